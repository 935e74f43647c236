import { test } from 'node:test';
import assert from 'node:assert/strict';
import { treeJson } from '../../../src/core/tree/treeData';
import { memoryRepo } from '../helpers';

const ks = (name: string, path: string, source: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: OCIRepository\n    name: ${source}\n`;
const oci = (name: string) => `apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  url: oci://registry.local/${name}\n`;

test('the tree lists as not applied only documents the files hold: no GitRepository the model inferred for a bootstrap', () => {
  // Applied with kubectl by a script: the model infers the bootstrap's GitRepository and Kustomization.
  const model = memoryRepo({
    'clusters/local/apps.yaml': `${oci('apps-source')}---\n${ks('apps-sync', './', 'apps-source')}  dependsOn:\n    - name: infra-sync\n`,
    'clusters/local/infra.yaml': `${oci('infra-source')}---\n${ks('infra-sync', './', 'infra-source')}`,
    'apps/podinfo.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: podinfo\n  namespace: default\n',
  }).model();
  const json = treeJson(model);
  assert.ok(json.clusters.length > 0);
  // apps.yaml holds an OCIRepository and a Kustomization, both applied: nothing to list.
  assert.deepEqual(json.unapplied.map((u) => `${u.kind} ${u.file}:${u.line}`), []);
});
