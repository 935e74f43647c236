import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postBuildVariables } from '../../../src/core/flux/postbuild';
import { resolveSubstituteVars } from '../../../src/core/substitution/resolve';
import { check } from './helpers';
import { memoryRepo } from './helpers';

const ks = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const vars = '  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: cluster-secrets\n';
const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: cluster-secrets\n  namespace: flux-system\nstringData:\n  DOMAIN: test.local\n';
const files = {
  'clusters/c/root.yaml': ks('root', './clusters/c/ks'),
  'clusters/c/ks/app.yaml': ks('app', './app', vars),
  'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  url: https://${DOMAIN}/${PATH_PREFIX}\n',
  // A test fixture of the same name that no Kustomization applies.
  'tests/fixtures/cluster-secrets.yaml': secret,
};

test('substituteFrom reads only the ConfigMaps/Secrets the cluster applies; a same-named manifest elsewhere is not the source', () => {
  const repo = memoryRepo(files);
  const model = repo.model();
  const app = model.clusters[0].kustomizations.find((k) => k.applied.name === 'app')!;
  const resolved = resolveSubstituteVars(app, model);
  assert.equal(resolved.complete, false);
  assert.deepEqual(resolved.unresolved.map((u) => u.name), ['cluster-secrets']);
  assert.equal(postBuildVariables(model, app).incomplete, true);
  // Unknown values: no substitution-undefined for PATH_PREFIX.
  assert.deepEqual(check(repo).diagnostics.map((d) => d.rule), []);
});

test('substituteFrom: the Secret the cluster applies is the source', () => {
  const repo = memoryRepo({ ...files, 'clusters/c/ks/secrets.yaml': ks('secrets', './secrets'), 'secrets/cluster-secrets.yaml': secret });
  const model = repo.model();
  const app = model.clusters[0].kustomizations.find((k) => k.applied.name === 'app')!;
  const resolved = resolveSubstituteVars(app, model);
  assert.equal(resolved.complete, true);
  assert.equal(resolved.vars.get('DOMAIN')?.origin.doc?.file.path, '/repo/secrets/cluster-secrets.yaml');
  assert.deepEqual(check(repo).diagnostics.map((d) => `${d.rule}|${d.file}`), ['substitution-undefined|/repo/app/cm.yaml']);
});
