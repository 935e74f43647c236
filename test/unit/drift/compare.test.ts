import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldChanges, helmDrifted, kustomizeDrifted } from '../../../src/core/drift';

const cm = (data: Record<string, string>, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'default', ...meta },
  data,
});

describe('kustomizeDrifted (fluxcd/pkg ssa hasDrifted)', () => {
  test('same body, differing resourceVersion and managedFields: not drifted', () => {
    assert.equal(kustomizeDrifted(cm({ a: '1' }, { resourceVersion: '1', managedFields: [1] }), cm({ a: '1' }, { resourceVersion: '2' })), false);
  });
  test('missing and empty label maps are equal', () => {
    assert.equal(kustomizeDrifted(cm({ a: '1' }), cm({ a: '1' }, { labels: {} })), false);
  });
  test('a label only the cluster has is drift', () => {
    assert.equal(kustomizeDrifted(cm({ a: '1' }, { labels: { extra: 'y' } }), cm({ a: '1' })), true);
  });
  test('a changed data value is drift', () => {
    assert.equal(kustomizeDrifted(cm({ a: '1' }), cm({ a: '2' })), true);
  });
  test('status is ignored', () => {
    assert.equal(kustomizeDrifted({ ...cm({}), status: { x: 1 } }, cm({})), false);
  });
});

describe('helmDrifted (fluxcd/pkg ssa/jsondiff)', () => {
  test('labels only the cluster has are not drift', () => {
    assert.equal(helmDrifted(cm({ a: '1' }, { labels: { extra: 'y' } }), cm({ a: '1' })), false);
  });
  test('a label the chart changes is drift', () => {
    assert.equal(helmDrifted(cm({ a: '1' }, { labels: { l: 'old' } }), cm({ a: '1' }, { labels: { l: 'new' } })), true);
  });
});

describe('fieldChanges', () => {
  test('walks maps and equal-length arrays down to the changed leaf', () => {
    const live = { spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } } } };
    const desired = { spec: { replicas: 3, template: { spec: { containers: [{ name: 'a', image: 'x:2' }] } } } };
    assert.deepEqual(fieldChanges(live, desired), [
      { path: ['spec', 'replicas'], op: 'replace', live: 1, desired: 3 },
      { path: ['spec', 'template', 'spec', 'containers', 0, 'image'], op: 'replace', live: 'x:1', desired: 'x:2' },
    ]);
  });
  test('added and removed keys, and arrays of different length replaced whole', () => {
    const changes = fieldChanges({ a: 1, list: [1] }, { b: 2, list: [1, 2] });
    assert.deepEqual(changes, [
      { path: ['a'], op: 'remove', live: 1 },
      { path: ['list'], op: 'replace', live: [1], desired: [1, 2] },
      { path: ['b'], op: 'add', desired: 2 },
    ]);
  });
});
