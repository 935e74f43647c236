/**
 * crd-order counts readiness as Flux does (src/core/checks/readiness.ts): what a dependency's Ready
 * implies (wait, healthChecks of any kind, readyExpr), what a parent's dependsOn gives what it
 * creates, and HelmRelease dependsOn, both for ordering and for telling a deadlock from a retry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, diskRepo, expectedMarkers, FIXTURES, keys, memoryRepo } from './helpers';

const ks = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;
const hr = (name: string, ns: string, chart: string, extra = '') =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  chart:\n    spec:\n      chart: ${chart}\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n${extra}`;
const repoDoc = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n';
const store = 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n';
const certificate = 'apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\n  namespace: default\n';
const certManager = hr('cert-manager', 'cert-manager', 'cert-manager', '  values:\n    crds:\n      enabled: true\n');
const dependsOn = (...names: string[]) => `  dependsOn:\n${names.map((n) => `    - name: ${n}\n`).join('')}`;
const root = { 'clusters/c/root.yaml': ks('root', './clusters/c/ks') };
const found = (files: Record<string, string>) => check(memoryRepo({ ...root, 'infra/repo.yaml': repoDoc, ...files })).diagnostics;
const rules = (files: Record<string, string>) => found(files).map((d) => `${d.rule}|${d.severity}|${d.file.slice(6)}|${d.range.start.line + 1}`);

function fixture(name: string) {
  const dir = `${FIXTURES}/readiness/${name}`;
  const repo = diskRepo(dir);
  return { found: keys(repo, check(repo)), expected: expectedMarkers(dir) };
}

test('readiness fixtures: a chart Deployment health check, an empty Kustomization health-checking a CRD, a parent dependsOn and a Ready readyExpr all order', () => {
  assert.deepEqual(fixture('gates').found, []);
});

test('readiness fixtures: healthCheckExprs alone, a Deployment no chart creates and a readyExpr on something else than Ready do not', () => {
  const { found, expected } = fixture('not-gates');
  assert.deepEqual(found, expected);
  assert.deepEqual(expected, ['crd-order-no-wait|clusters/test/infra-configs.yaml|15', 'crd-order|infrastructure/stores/store.yaml|2']);
});

test('healthChecks: a HelmRelease, a CRD by name or a Kustomization of another branch of the tree, not only the dependency\'s own HelmRelease', () => {
  const layout = (gateExtra: string, infraExtra = '') => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra', infraExtra),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    // An empty Kustomization: a gate made of health checks only.
    'clusters/c/ks/gate.yaml': ks('gate', './gate', gateExtra),
    'gate/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
    'clusters/c/ks/configs.yaml': ks('configs', './configs', dependsOn('gate')),
    'configs/store.yaml': store,
  });
  const check = (kind: string, name: string, ns = '') => `  healthChecks:\n    - kind: ${kind}\n      name: ${name}\n${ns ? `      namespace: ${ns}\n` : ''}`;
  assert.deepEqual(rules(layout(check('HelmRelease', 'external-secrets', 'external-secrets'))), []);
  assert.deepEqual(rules(layout(check('CustomResourceDefinition', 'externalsecrets.external-secrets.io'))), []);
  assert.deepEqual(rules(layout(check('Kustomization', 'infra', 'flux-system'), '  wait: true\n')), []);
  // infra Ready without waiting for its HelmRelease: configs depends on it in effect, but not on the chart.
  assert.deepEqual(rules(layout(check('Kustomization', 'infra', 'flux-system'))), ['crd-order-no-wait|warning|clusters/c/ks/configs.yaml|4']);
  // A CRD of another group, or nothing at all: configs may still run before the chart.
  assert.deepEqual(rules(layout(check('CustomResourceDefinition', 'certificates.cert-manager.io'))), ['crd-order|warning|configs/store.yaml|2']);
  assert.deepEqual(rules(layout('')), ['crd-order|warning|configs/store.yaml|2']);
});

test('a health check on one of several charts\' Deployments in a namespace counts for the release it is named after', () => {
  const layout = (deployment: string) => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra', `  healthChecks:\n    - apiVersion: apps/v1\n      kind: Deployment\n      name: ${deployment}\n      namespace: cert-manager\n`),
    'infra/cm.yaml': certManager,
    'infra/tm.yaml': hr('trust-manager', 'cert-manager', 'trust-manager'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs', dependsOn('infra')),
    'configs/cert.yaml': certificate,
  });
  assert.deepEqual(rules(layout('cert-manager-webhook')), []);
  assert.deepEqual(rules(layout('trust-manager')), ['crd-order-no-wait|warning|clusters/c/ks/configs.yaml|13']);
  // A Deployment the workspace applies itself is no chart's.
  const own = { ...layout('cert-manager-webhook'), 'infra/webhook.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cert-manager-webhook\n  namespace: cert-manager\n' };
  assert.deepEqual(rules(own), ['crd-order-no-wait|warning|clusters/c/ks/configs.yaml|13']);
});

test('a Kustomization created by a parent that depends on the provider is ordered; one whose parent does not is not', () => {
  const layout = (appsExtra: string) => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra', '  wait: true\n'),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'clusters/c/ks/apps.yaml': ks('apps', './apps', appsExtra),
    'apps/web.yaml': ks('web', './web'),
    'web/store.yaml': store,
  });
  assert.deepEqual(rules(layout(dependsOn('infra'))), []);
  assert.deepEqual(rules(layout('')), ['crd-order|warning|web/store.yaml|2']);
  // A grandparent's dependsOn counts as well.
  const deeper = { ...layout(''), 'clusters/c/ks/apps.yaml': ks('apps', './apps', dependsOn('infra')), 'apps/web.yaml': ks('team', './team'), 'team/web.yaml': ks('web', './web') };
  assert.deepEqual(rules(deeper), []);
});

test('HelmRelease dependsOn: a Ready release implies the releases it depends on are installed', () => {
  const layout = (issuersDeps: string) => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/cm.yaml': certManager,
    'clusters/c/ks/issuers.yaml': ks('issuers', './issuers', '  wait: true\n'),
    'issuers/hr.yaml': hr('cert-manager-issuers', 'cert-manager', 'raw', issuersDeps),
    'clusters/c/ks/configs.yaml': ks('configs', './configs', dependsOn('issuers')),
    'configs/cert.yaml': certificate,
  });
  assert.deepEqual(rules(layout('  dependsOn:\n    - name: cert-manager\n')), []);
  assert.deepEqual(rules(layout('')), ['crd-order|warning|configs/cert.yaml|2']);
});

test('readyExpr replaces the Ready check unless AdditiveCELDependencyCheck is on; one testing Ready still waits', () => {
  const layout = (readyExpr: string) => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra', '  wait: true\n'),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs', `  dependsOn:\n    - name: infra\n      readyExpr: ${readyExpr}\n`),
    'configs/store.yaml': store,
  });
  const label = "dep.metadata.labels['v'] == self.metadata.labels['v']";
  assert.deepEqual(rules(layout(label)), ['crd-order|warning|configs/store.yaml|2']);
  assert.deepEqual(rules(layout(`"${label} && dep.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')"`)), []);
  const gate =
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\npatches:\n  - patch: |\n      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: --feature-gates=AdditiveCELDependencyCheck=true\n    target:\n      kind: Deployment\n      name: kustomize-controller\n';
  assert.deepEqual(rules({ ...layout(label), 'clusters/c/flux-system/kustomization.yaml': gate }), []);
});

test('deadlock through readiness: the installer waits (HelmRelease dependsOn, a health check) for what applies the custom resource', () => {
  const viaRelease = {
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets', '  dependsOn:\n    - name: vault\n      namespace: vault\n'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'configs/store.yaml': store,
    'configs/vault.yaml': hr('vault', 'vault', 'vault'),
  };
  // helm-controller installs external-secrets only once vault is Ready; configs, which applies vault, never gets past its dry-run.
  assert.deepEqual(rules(viaRelease), ['crd-order|error|configs/store.yaml|2']);
  const viaHealthCheck = {
    'clusters/c/ks/infra.yaml': ks('infra', './infra', dependsOn('gate')),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'clusters/c/ks/gate.yaml': ks('gate', './gate', '  healthChecks:\n    - kind: Kustomization\n      name: configs\n      namespace: flux-system\n'),
    'gate/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'configs/store.yaml': store,
  };
  assert.deepEqual(rules(viaHealthCheck), ['crd-order|error|configs/store.yaml|2']);
});

test('a dependency that has applied a resource of the same kind proves its CRD exists: one finding, on the dependency', () => {
  const files = {
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'clusters/c/ks/vault.yaml': ks('vault', './vault'),
    'vault/store.yaml': store,
    'clusters/c/ks/apps.yaml': ks('apps', './apps', dependsOn('vault')),
    'apps/store.yaml': store.replace('name: vault', 'name: apps'),
  };
  // vault passes its dry-run only once the CRD exists; apps runs only after vault is Ready.
  assert.deepEqual(rules(files), ['crd-order|warning|vault/store.yaml|2']);
  // A resource vault does not apply (ssa: Ignore) proves nothing.
  const ignored = { ...files, 'vault/store.yaml': store.replace('metadata:\n', 'metadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/ssa: Ignore\n') };
  assert.deepEqual(rules(ignored), ['crd-order|warning|apps/store.yaml|2', 'crd-order|warning|vault/store.yaml|2']);
});

test('a CRD whose installer is applied by a Kustomization that never gets past its dry-run never comes: an error, not a retry', () => {
  const files = {
    // cert-manager applies its chart and a ClusterIssuer together: its dry-run fails on every retry.
    'clusters/c/ks/cert-manager.yaml': ks('cert-manager', './cert-manager'),
    'cert-manager/hr.yaml': certManager,
    'cert-manager/issuer.yaml': 'apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: ca\n',
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'configs/cert.yaml': certificate,
  };
  assert.deepEqual(rules(files), ['crd-order|error|cert-manager/issuer.yaml|2', 'crd-order|error|configs/cert.yaml|2']);
  const [first] = found(files)[1].message.split('\n');
  assert.ok(first.length < 160, first);
  assert.equal(first, 'Certificate needs CRD cert-manager.io: never installed, as flux-system/cert-manager never applies; see its crd-order error');
  // Once the issuer moves out, configs only waits for a retry.
  const fixed = { ...files, 'cert-manager/issuer.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ca\n  namespace: default\n' };
  assert.deepEqual(rules(fixed), ['crd-order|warning|configs/cert.yaml|2']);
  // What the stuck Kustomization creates itself never runs at all: that is its finding, the rest stays a retry.
  const nested = {
    'clusters/c/ks/apps.yaml': ks('apps', './apps'),
    'apps/store.yaml': store,
    'apps/es.yaml': ks('es', './es'),
    'es/hr.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'apps/cm.yaml': ks('cert-manager', './cert-manager'),
    'cert-manager/hr.yaml': certManager,
    'apps/web.yaml': ks('web', './web'),
    'web/cert.yaml': certificate,
  };
  assert.deepEqual(rules(nested), ['crd-order|error|apps/store.yaml|2', 'crd-order|warning|web/cert.yaml|2']);
});

test('crd-order messages: a first line under 160 characters with what fails and the fix, the explanation after it', () => {
  const sibling = found({
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'configs/store.yaml': store,
  });
  const [firstLine, detail] = sibling[0].message.split('\n');
  assert.equal(firstLine, 'ClusterSecretStore needs CRD external-secrets.io from HelmRelease external-secrets/external-secrets: add dependsOn infra and wait: true on infra');
  assert.match(detail, /On a fresh cluster the dry-run fails/);
  const first = (files: Record<string, string>) => found(files).map((d) => d.message.split('\n')[0]);
  // One Kustomization applies the chart and the custom resource: a deadlock.
  const same = first({ 'clusters/c/ks/infra.yaml': ks('infra', './infra'), 'infra/es.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'), 'infra/store.yaml': store });
  assert.deepEqual(same, ['ClusterSecretStore needs CRD external-secrets.io in the same Kustomization, which never converges: move it to one that dependsOn flux-system/infra']);
  // The chart comes with the Kustomization applying the resource, from their parent.
  const parent = first({ 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/es.yaml': hr('cert-manager', 'cert-manager', 'cert-manager', '  values:\n    installCRDs: true\n'), 'apps/web.yaml': ks('web', './web'), 'web/cert.yaml': certificate });
  assert.deepEqual(parent, ['Certificate needs CRD cert-manager.io, applied by parent flux-system/apps: move the HelmRelease to a Kustomization with wait: true, then dependsOn it']);
  for (const l of [firstLine, ...same, ...parent]) assert.ok(l.length < 160, l);
});
