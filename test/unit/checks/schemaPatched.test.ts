import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';

const ROOT_KS = (patches: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${patches}`;
const PATCHES =
  '  patches:\n    - patch: |-\n        apiVersion: kustomize.toolkit.fluxcd.io/v1\n        kind: Kustomization\n        metadata:\n          name: not-used\n        spec:\n          sourceRef:\n            kind: GitRepository\n            name: flux-system\n      target:\n        kind: Kustomization\n';

test('schema: a Kustomization read as written is not judged when its applier’s spec.patches may complete it (JJGadgets)', () => {
  const files = (patches: string) => ({
    'clusters/main/apps.yaml': ROOT_KS(patches),
    'apps/a.yaml': 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: a\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps/a/app\n  prune: true\n',
    'apps/a/app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
  });
  const schemaFindings = (patches: string) =>
    check(memoryRepo(files(patches)), { schema: true }).diagnostics.filter((d) => d.rule.startsWith('schema-')).map((d) => `${d.rule} ${d.file.slice(6)}`);
  assert.deepEqual(schemaFindings(PATCHES), []);
  assert.deepEqual(schemaFindings(''), ['schema-invalid apps/a.yaml']);
});
