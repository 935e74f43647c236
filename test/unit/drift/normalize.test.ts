import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeDesired, withoutNoise } from '../../../src/core/drift';

describe('normalizeDesired (fluxcd/pkg ssa/normalize)', () => {
  test('Secret stringData is folded into base64 data', () => {
    const n = normalizeDesired({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'hé' } });
    assert.deepEqual(n.data, { a: 'YQ==', b: Buffer.from('hé').toString('base64') });
    assert.equal(n.stringData, undefined);
  });
  test('container and Service ports default to TCP', () => {
    const d = normalizeDesired({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] }] } } },
    });
    assert.deepEqual(d.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }]);
    const s = normalizeDesired({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(s.spec.ports[0].protocol, 'TCP');
  });
  test('status dropped except on CRDs; creationTimestamp null; input untouched', () => {
    const input = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, status: { a: 1 } };
    const n = normalizeDesired(input);
    assert.equal(n.status, undefined);
    assert.equal(n.metadata.creationTimestamp, null);
    assert.deepEqual(input.status, { a: 1 });
    const crd = normalizeDesired({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'x' }, status: { s: 1 } });
    assert.deepEqual(crd.status, { s: 1 });
  });
  test('Role is left alone (kustomize-controller#1041)', () => {
    const r = normalizeDesired({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [] });
    assert.deepEqual(r.rules, []);
  });
});

describe('withoutNoise', () => {
  test('drops server-maintained metadata and status, keeps labels', () => {
    const o = withoutNoise({
      kind: 'X',
      metadata: { name: 'n', labels: { a: 'b' }, managedFields: [], resourceVersion: '1', uid: 'u', generation: 2, creationTimestamp: 't' },
      status: {},
    });
    assert.deepEqual(o, { kind: 'X', metadata: { name: 'n', labels: { a: 'b' } } });
  });
});
