import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directSourceOf, isStaticSource } from '../../../src/core/status/sourceChain';

test('Kustomization: spec.sourceRef, namespace defaulting to the Kustomization', () => {
  assert.deepEqual(directSourceOf({ kind: 'Kustomization', metadata: { name: 'apps', namespace: 'team' }, spec: { sourceRef: { kind: 'GitRepository', name: 'repo' } } }), {
    key: { kind: 'GitRepository', namespace: 'team', name: 'repo' },
    withItsSource: false,
  });
  assert.deepEqual(
    directSourceOf({ kind: 'Kustomization', metadata: { name: 'apps', namespace: 'team' }, spec: { sourceRef: { kind: 'OCIRepository', name: 'o', namespace: 'flux-system' } } }),
    { key: { kind: 'OCIRepository', namespace: 'flux-system', name: 'o' }, withItsSource: false },
  );
});

test('HelmRelease chart template: HelmChart <hr-ns>-<hr-name> in the source namespace, with its own source first', () => {
  assert.deepEqual(
    directSourceOf({
      kind: 'HelmRelease',
      metadata: { name: 'podinfo', namespace: 'apps' },
      spec: { chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'charts', namespace: 'flux-system' } } } },
    }),
    { key: { kind: 'HelmChart', namespace: 'flux-system', name: 'apps-podinfo' }, withItsSource: true },
  );
});

test('HelmRelease chartRef: the OCIRepository, or a HelmChart with its source', () => {
  assert.deepEqual(directSourceOf({ kind: 'HelmRelease', metadata: { name: 'p', namespace: 'apps' }, spec: { chartRef: { kind: 'OCIRepository', name: 'oci' } } }), {
    key: { kind: 'OCIRepository', namespace: 'apps', name: 'oci' },
    withItsSource: false,
  });
  assert.deepEqual(directSourceOf({ kind: 'HelmRelease', metadata: { name: 'p', namespace: 'apps' }, spec: { chartRef: { kind: 'HelmChart', name: 'hc', namespace: 'x' } } }), {
    key: { kind: 'HelmChart', namespace: 'x', name: 'hc' },
    withItsSource: true,
  });
});

test('HelmChart source is in its own namespace; errors for objects without a source', () => {
  assert.deepEqual(directSourceOf({ kind: 'HelmChart', metadata: { name: 'c', namespace: 'fs' }, spec: { sourceRef: { kind: 'GitRepository', name: 'g' } } }), {
    key: { kind: 'GitRepository', namespace: 'fs', name: 'g' },
    withItsSource: false,
  });
  assert.ok('error' in directSourceOf({ kind: 'HelmRelease', metadata: { name: 'p', namespace: 'a' }, spec: {} }));
  assert.ok('error' in directSourceOf({ kind: 'GitRepository', metadata: { name: 'g', namespace: 'a' }, spec: {} }));
});

test('OCI HelmRepositories are static (not reconciled)', () => {
  assert.equal(isStaticSource({ kind: 'HelmRepository', spec: { type: 'oci' } }), true);
  assert.equal(isStaticSource({ kind: 'HelmRepository', spec: {} }), false);
  assert.equal(isStaticSource({ kind: 'GitRepository', spec: { type: 'oci' } }), false);
});
