/**
 * `bootstrap` in `.gitops-preview.yaml`: CRD groups, CRD names and charts installed before Flux,
 * optionally per cluster; entries not understood are config-invalid warnings at their line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preinstalledCrdGroups, repoBootstrapFacts } from '../../../src/core/bootstrap/index';
import { memoryRepo } from '../helpers';
import { check } from '../checks/helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

function cluster(name: string): Record<string, string> {
  return {
    [`clusters/${name}/root.yaml`]: ks('flux-system', `./clusters/${name}`),
    [`clusters/${name}/es.yaml`]: ks('es', `./apps/${name}/es`),
    [`clusters/${name}/stores.yaml`]: ks('stores', `./apps/${name}/stores`),
    [`apps/${name}/es/hr.yaml`]:
      'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: external-secrets\n  namespace: external-secrets\nspec:\n  chart:\n    spec:\n      chart: external-secrets\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n',
    [`apps/${name}/es/repo.yaml`]: 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n',
    [`apps/${name}/stores/store.yaml`]: 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n',
  };
}
const files = { ...cluster('prod'), ...cluster('lab') };
const findings = (config: string) =>
  check(memoryRepo({ ...files, '.gitops-preview.yaml': config }))
    .diagnostics.map((d) => `${d.rule}|${d.file.slice(6)}:${d.range.start.line + 1}|${d.severity}`)
    .sort();

test('declared groups, CRD names and charts are facts of the config reader, at their line', () => {
  const config = 'bootstrap:\n  - external-secrets.io\n  - crd: servicemonitors.monitoring.coreos.com\n  - chart: oci://ghcr.io/cert-manager/charts/cert-manager\n    repo: oci://ghcr.io/cert-manager/charts\n  - chart: in-house\n';
  const all = repoBootstrapFacts(memoryRepo({ ...files, '.gitops-preview.yaml': config }).model());
  assert.deepEqual(
    all.map((f) => `${f.reader} ${f.what} ${f.name} [${f.groups.join(',')}] :${f.line}`),
    [
      'config crd-group external-secrets.io [external-secrets.io] :2',
      'config crd servicemonitors.monitoring.coreos.com [monitoring.coreos.com] :3',
      'config chart cert-manager [cert-manager.io,acme.cert-manager.io] :4',
      'config chart in-house [] :6',
    ],
  );
  assert.deepEqual(findings(config), []);
});

test('a declaration for one cluster counts for that cluster only', () => {
  const before = findings('');
  assert.deepEqual(before, ['crd-order|apps/lab/stores/store.yaml:2|warning', 'crd-order|apps/prod/stores/store.yaml:2|warning']);
  assert.deepEqual(findings('bootstrap:\n  - group: external-secrets.io\n    cluster: prod\n'), ['crd-order|apps/lab/stores/store.yaml:2|warning']);
  const model = memoryRepo({ ...files, '.gitops-preview.yaml': 'bootstrap:\n  - chart: external-secrets\n    clusters: [lab]\n' }).model();
  assert.deepEqual(Object.fromEntries(model.clusters.map((c) => [c.name, preinstalledCrdGroups(model, c).size])), { lab: 2, prod: 0 });
});

test('entries not understood are config-invalid warnings at their line, and ignored', () => {
  const config = [
    'bootstrap:',
    '  - NotAGroup', // 2
    '  - crd: servicemonitors', // 3
    '  - group: a.b', // 4
    '    chart: c', // 5
    '  - chart: x', // 6
    '    version: 1', // 7
    '  - group: external-secrets.io', // 8
    '    cluster: nowhere', // 9
    '  - 42', // 10
    '',
  ].join('\n');
  const base = findings('');
  assert.deepEqual(
    findings(config).filter((f) => !base.includes(f)),
    [
      'config-invalid|.gitops-preview.yaml:10|warning',
      'config-invalid|.gitops-preview.yaml:2|warning',
      'config-invalid|.gitops-preview.yaml:3|warning',
      'config-invalid|.gitops-preview.yaml:4|warning',
      'config-invalid|.gitops-preview.yaml:7|warning',
      'config-invalid|.gitops-preview.yaml:9|warning',
    ],
  );
  const messages = check(memoryRepo({ ...files, '.gitops-preview.yaml': config })).diagnostics.filter((d) => d.rule === 'config-invalid').map((d) => d.message);
  assert.ok(messages.some((m) => m.startsWith("'nowhere' is not a cluster of this repository (it has prod, lab)") || m.startsWith("'nowhere' is not a cluster of this repository (it has lab, prod)")), messages.join('\n'));
  assert.deepEqual(findings('bootstrap: cert-manager.io\n').filter((f) => !base.includes(f)), ['config-invalid|.gitops-preview.yaml:1|warning']);
});
