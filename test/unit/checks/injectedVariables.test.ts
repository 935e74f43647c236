import { test } from 'node:test';
import assert from 'node:assert/strict';
import { postBuildVariables } from '../../../src/core/flux/postbuild';
import { check } from './helpers';
import { memoryRepo } from './helpers';

const ks = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const files = {
  'clusters/c/root.yaml': ks('root', './clusters/c/ks'),
  'clusters/c/ks/app.yaml': ks('app', './app', '  postBuild:\n    substitute:\n      APP: app\n'),
  'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${APP}\n  namespace: default\ndata:\n  url: https://${SECRET_DOMAIN}\n',
};
const webhookByChartRef = {
  'clusters/c/ks/webhook.yaml': ks('webhook', './webhook'),
  'webhook/oci.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: kustomize-mutating-webhook\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/xunholy/charts/kustomize-mutating-webhook\n',
  'webhook/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: kustomize-mutating-webhook\n  namespace: flux-system\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: kustomize-mutating-webhook\n',
};

test('a cluster running kustomize-mutating-webhook gives every Kustomization variables the workspace cannot tell: unknown, not undefined', () => {
  const rules = (extra: Record<string, string>) => check(memoryRepo({ ...files, ...extra })).diagnostics.map((d) => `${d.rule}|${d.file.slice(6)}`);
  assert.deepEqual(rules({}), ['substitution-undefined|app/cm.yaml']);
  assert.deepEqual(rules(webhookByChartRef), []);
  const byChartName = { 'clusters/c/ks/webhook.yaml': ks('webhook', './webhook'), 'webhook/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: webhook\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: kustomize-mutating-webhook\n' };
  assert.deepEqual(rules(byChartName), []);
  // The build keeps the unknown variable as written instead of failing strict substitution.
  const model = memoryRepo({ ...files, ...webhookByChartRef }).model();
  const app = model.clusters[0].kustomizations.find((k) => k.applied.name === 'app')!;
  const pb = postBuildVariables(model, app);
  assert.equal(pb.incomplete, true);
  assert.match(pb.warnings.join('\n'), /kustomize-mutating-webhook \(HelmRelease flux-system\/kustomize-mutating-webhook\) adds variables/);
});
