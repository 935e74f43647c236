import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileIgnoreRules, helmIgnoreRules } from '../../../src/core/drift';
import { formatPointer, parsePointer, removeAtPointer } from '../../../src/core/drift/jsonPointer';
import { compileSelector, parseLabelSelector } from '../../../src/core/drift/selector';

describe('JSON pointers', () => {
  test('~0 and ~1 escapes round-trip', () => {
    assert.deepEqual(parsePointer('/metadata/annotations/a~1b~0c'), ['metadata', 'annotations', 'a/b~c']);
    assert.equal(formatPointer(['metadata', 'annotations', 'a/b~c']), '/metadata/annotations/a~1b~0c');
    assert.throws(() => parsePointer('spec'), /must start with '\/'/);
  });
  test('remove: map key, array index, negative index, missing path tolerated', () => {
    const o = { spec: { replicas: 2, list: [1, 2, 3] } };
    removeAtPointer(o, '/spec/replicas');
    removeAtPointer(o, '/spec/list/0');
    removeAtPointer(o, '/spec/list/-1');
    removeAtPointer(o, '/spec/nope/deeper');
    assert.deepEqual(o, { spec: { list: [2] } });
  });
});

describe('selectors', () => {
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web-1', namespace: 'prod', labels: { tier: 'web' }, annotations: { a: 'x' } } };
  test('regexes are anchored', () => {
    assert.equal(compileSelector({ name: 'web' }).matches(dep), false);
    assert.equal(compileSelector({ name: 'web-.*', kind: 'Deploy.*', group: 'apps', version: 'v1' }).matches(dep), true);
    assert.equal(compileSelector({ group: '' , kind: 'Deployment', namespace: 'dev' }).matches(dep), false);
  });
  test('label and annotation selector expressions', () => {
    assert.equal(compileSelector({ labelSelector: 'tier in (web,api)', annotationSelector: 'a=x' }).matches(dep), true);
    assert.equal(compileSelector({ labelSelector: 'tier notin (web)' }).matches(dep), false);
    assert.equal(compileSelector({ labelSelector: '!tier' }).matches(dep), false);
    assert.equal(compileSelector({ labelSelector: 'tier!=db,tier' }).matches(dep), true);
    assert.throws(() => parseLabelSelector('tier in web'), /cannot read/);
  });
});

describe('ignore rules', () => {
  test('rules from a HelmRelease apply by target', () => {
    const rules = helmIgnoreRules({
      spec: { driftDetection: { mode: 'enabled', ignore: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment' } }, { paths: ['/data/x'] }, 'junk'] } },
    });
    const c = compileIgnoreRules(rules);
    assert.deepEqual(c.pathsFor({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } }), ['/spec/replicas', '/data/x']);
    assert.deepEqual(c.pathsFor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }), ['/data/x']);
  });
  test('a bad regex names the rule', () => {
    assert.throws(() => compileIgnoreRules([{ paths: [], target: { name: '(' } }]), /ignore rule 0: invalid name regex/);
  });
});
