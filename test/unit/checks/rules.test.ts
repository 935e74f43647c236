import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';

const ks = (name: string, path: string, extra = '', ns = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;
const hr = (name: string, ns: string, chart: string, extra = '') =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  chart:\n    spec:\n      chart: ${chart}\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n${extra}`;
const repoDoc = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n';
const root = { 'clusters/c/root.yaml': ks('root', './clusters/c/ks') };
const rules = (files: Record<string, string>) => check(memoryRepo({ ...root, ...files })).diagnostics.map((d) => `${d.rule}|${d.severity}|${d.file.slice(6)}|${d.range.start.line + 1}`);

test('crd-order: a HelmRelease providing CRDs in the same Kustomization as the custom resource', () => {
  const list = rules({
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/repo.yaml': repoDoc,
    'infra/es.yaml': hr('external-secrets', 'flux-system', 'external-secrets'),
    'infra/store.yaml': 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n',
  });
  assert.deepEqual(list, ['crd-order|error|infra/store.yaml|2']);
});

test('crd-order: install.crds Skip and cert-manager without crds.enabled provide nothing (no alarm); with CRDs on, the same layout is flagged', () => {
  const layout = (esExtra: string, cmExtra: string) => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'infra/repo.yaml': repoDoc,
    'infra/es.yaml': hr('external-secrets', 'flux-system', 'external-secrets', esExtra),
    'infra/cm.yaml': hr('cert-manager', 'flux-system', 'cert-manager', cmExtra),
    'configs/store.yaml': 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n',
    'configs/issuer.yaml': 'apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: le\n',
  });
  assert.deepEqual(rules(layout('  install:\n    crds: Skip\n', '')), []);
  // The counterpart: both charts now install their CRDs from 'infra', which 'configs' does not depend on.
  assert.deepEqual(rules(layout('', '  values:\n    crds:\n      enabled: true\n')), ['crd-order|warning|configs/issuer.yaml|2', 'crd-order|warning|configs/store.yaml|2']);
});

test('crd-order: CRDs from the crds/ folder of a chart in the workspace; transitive dependsOn with wait is fine', () => {
  const files = {
    'clusters/c/ks/operator.yaml': ks('operator', './deploy/operator', '  wait: true\n'),
    'clusters/c/ks/middle.yaml': ks('middle', './deploy/middle', '  dependsOn:\n    - name: operator\n'),
    'clusters/c/ks/apps.yaml': ks('apps', './deploy/apps', '  dependsOn:\n    - name: middle\n'),
    'clusters/c/ks/other.yaml': ks('other', './deploy/other'),
    'charts/widget-operator/Chart.yaml': 'apiVersion: v2\nname: widget-operator\nversion: 1.0.0\n',
    'charts/widget-operator/crds/widgets.yaml':
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\nspec:\n  group: acme.io\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n',
    'deploy/operator/hr.yaml':
      'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: widget-operator\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: ./charts/widget-operator\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n',
    'deploy/middle/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\n  namespace: default\n',
    'deploy/apps/w.yaml': 'apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: ok\n  namespace: default\n',
    'deploy/other/w.yaml': 'apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: early\n  namespace: default\n',
  };
  assert.deepEqual(rules(files), ['crd-order|warning|deploy/other/w.yaml|2']);
});

test('crd-order: CRDs installed by a bootstrap helmfile before Flux are not flagged', () => {
  const files = {
    'clusters/c/ks/es.yaml': ks('es', './es'),
    'clusters/c/ks/app.yaml': ks('app', './app'),
    'es/repo.yaml': repoDoc,
    'es/hr.yaml': hr('external-secrets', 'external-secrets', 'external-secrets'),
    'app/secret.yaml': 'apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata:\n  name: s\n  namespace: default\n',
  };
  assert.deepEqual(rules(files), ['crd-order|warning|app/secret.yaml|2']);
  const helmfile = 'releases:\n  - name: external-secrets\n    namespace: external-secrets\n';
  assert.deepEqual(rules({ ...files, 'bootstrap/helmfile.yaml': helmfile }), []);
});

test('hub and spoke: objects sent to another cluster through spec.kubeConfig are separate', () => {
  const remote = '  kubeConfig:\n    secretRef:\n      name: spoke-kubeconfig\n';
  const list = rules({
    'clusters/c/ks/local.yaml': ks('local', './tenant'),
    'clusters/c/ks/spoke.yaml': ks('spoke', './tenant', remote, 'spoke'),
    'tenant/ns.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: default\n',
  });
  assert.deepEqual(list, []);
  const twice = rules({
    'clusters/c/ks/local.yaml': ks('local', './tenant'),
    'clusters/c/ks/again.yaml': ks('again', './tenant', '', 'other'),
    'tenant/ns.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: default\n',
  });
  assert.deepEqual(twice, ['duplicate-object|error|tenant/ns.yaml|4']);
});

test('dependsOn: names built from the parent Kustomization variables; unknown parts downgrade to warning', () => {
  const vars = '  postBuild:\n    substitute:\n      ENV: prod\n';
  const base = {
    'clusters/c/root.yaml': ks('root', './clusters/c/ks', vars),
    'clusters/c/ks/db.yaml': ks('db-prod', './db'),
    'clusters/c/ks/app.yaml': ks('app', './app', '  dependsOn:\n    - name: db-${ENV}\n'),
    'db/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  namespace: default\n',
    'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\n',
  };
  assert.deepEqual(check(memoryRepo(base)).diagnostics, []);
  const broken = { ...base, 'clusters/c/ks/app.yaml': ks('app', './app', '  dependsOn:\n    - name: db-staging\n') };
  assert.deepEqual(
    check(memoryRepo(broken)).diagnostics.map((d) => [d.rule, d.severity]),
    [['depends-on-not-found', 'error']],
  );
  // A Kustomization of the same cluster reads an external repository: the dependency may be there.
  const external = {
    ...broken,
    'clusters/c/ks/ext.yaml': ks('ext', './x').replace('name: flux-system\n    namespace', 'name: elsewhere\n    namespace'),
    'clusters/c/ks/src.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: elsewhere\n  namespace: flux-system\nspec:\n  url: https://example.com/other.git\n',
  };
  assert.deepEqual(
    check(memoryRepo(external)).diagnostics.map((d) => [d.rule, d.severity]),
    [['depends-on-not-found', 'warning']],
  );
});

test('substitution: no postBuild means no substitution; unknown substituteFrom sources stay silent', () => {
  const app = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  a: ${undefined_var}\n';
  assert.deepEqual(rules({ 'clusters/c/ks/app.yaml': ks('app', './app'), 'app/cm.yaml': app }), []);
  const from = '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: created-by-terraform\n';
  assert.deepEqual(rules({ 'clusters/c/ks/app.yaml': ks('app', './app', from), 'app/cm.yaml': app }), []);
  const inline = '  postBuild:\n    substitute:\n      other: x\n';
  assert.deepEqual(rules({ 'clusters/c/ks/app.yaml': ks('app', './app', inline), 'app/cm.yaml': app }), ['substitution-undefined|warning|app/cm.yaml|7']);
});

test('the inferred bootstrap Kustomization never gets diagnostics', () => {
  const files = {
    'clusters/prod/flux-system/gotk-sync.yaml': '# placeholder written by flux bootstrap\n',
    'clusters/prod/apps.yaml': ks('apps', './apps', '  dependsOn:\n    - name: flux-system\n'),
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\n',
  };
  assert.deepEqual(check(memoryRepo(files)).diagnostics, []);
});

test('crd-order: CRDs applied by an ancestor (flux-system applying gotk-components) exist before the child runs', () => {
  const crd =
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: alerts.notification.toolkit.fluxcd.io\nspec:\n  group: notification.toolkit.fluxcd.io\n  scope: Namespaced\n  names:\n    kind: Alert\n    plural: alerts\n';
  const alert = 'apiVersion: notification.toolkit.fluxcd.io/v1beta3\nkind: Alert\nmetadata:\n  name: a\n  namespace: flux-system\n';
  assert.deepEqual(rules({ 'clusters/c/ks/gotk-components.yaml': crd, 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/alert.yaml': alert }), []);
  // A sibling providing the CRD is not enough.
  const sibling = rules({ 'clusters/c/ks/crds.yaml': ks('crds', './crds'), 'crds/alert-crd.yaml': crd, 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/alert.yaml': alert });
  assert.deepEqual(sibling, ['crd-order|warning|apps/alert.yaml|2']);
});

test('crd-order: a CRDs-only chart of a bootstrap helmfile provides its CRDs, whichever HelmRelease also installs them', () => {
  const files = {
    'clusters/c/ks/monitoring.yaml': ks('monitoring', './monitoring'),
    'clusters/c/ks/app.yaml': ks('app', './app'),
    'monitoring/repo.yaml': repoDoc,
    'monitoring/hr.yaml': hr('kube-prometheus-stack', 'observability', 'kube-prometheus-stack'),
    'app/sm.yaml': 'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: s\n  namespace: default\n',
  };
  assert.deepEqual(rules(files), ['crd-order|warning|app/sm.yaml|2']);
  const helmfile = (chart: string) => `releases:\n  - name: crds\n    namespace: observability\n    chart: ${chart}\n    version: 29.0.0\n`;
  assert.deepEqual(rules({ ...files, 'bootstrap/helmfile/crds.yaml': helmfile('oci://ghcr.io/prometheus-community/charts/prometheus-operator-crds') }), []);
  // A chart this check does not know says nothing about the group.
  assert.deepEqual(rules({ ...files, 'bootstrap/helmfile/crds.yaml': helmfile('oci://example.com/charts/something-else') }), ['crd-order|warning|app/sm.yaml|2']);
});

test('crd-order: CRDs-only and plugin charts of the well-known table (gateway-api-crds, plugin-barman-cloud)', () => {
  const route = 'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: default\n';
  const helmfile = 'releases:\n  - name: gateway-api-crds\n    namespace: kube-system\n    chart: oci://ghcr.io/wiremind/wiremind-helm-charts/gateway-api-crds\n';
  const gateway = {
    'clusters/c/ks/network.yaml': ks('network', './network'),
    'network/repo.yaml': repoDoc,
    'network/envoy.yaml': hr('envoy-gateway', 'network', 'gateway-helm'),
    'clusters/c/ks/app.yaml': ks('app', './app'),
    'app/route.yaml': route,
  };
  assert.deepEqual(rules(gateway), ['crd-order|warning|app/route.yaml|2']);
  // The bootstrap helmfile installs the gateway-api CRDs before Flux starts.
  assert.deepEqual(rules({ ...gateway, 'bootstrap/helmfile.yaml': helmfile }), []);
  const barman = {
    'clusters/c/ks/cnpg.yaml': ks('cnpg', './cnpg'),
    'cnpg/repo.yaml': repoDoc,
    'cnpg/barman.yaml': hr('plugin-barman-cloud', 'database', 'plugin-barman-cloud'),
    'clusters/c/ks/db.yaml': ks('db', './db'),
    'db/store.yaml': 'apiVersion: barmancloud.cnpg.io/v1\nkind: ObjectStore\nmetadata:\n  name: s3\n  namespace: database\n',
  };
  assert.deepEqual(rules(barman), ['crd-order|warning|db/store.yaml|2']);
});

test('crd-order: what a dependency applies from another repository may install the CRD; the rest of a root applying the resource does not count', () => {
  const upstream =
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: upstream\n  namespace: flux-system\nspec:\n  url: https://github.com/other/operator\n  ref:\n    tag: v1.0.0\n---\n' +
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: crds-upstream\n  namespace: flux-system\nspec:\n  path: ./deploy/crds\n  sourceRef:\n    kind: GitRepository\n    name: upstream\n';
  const layout = (dependsOn: string) => ({
    'clusters/c/ks/crds.yaml': ks('crds', './crds'),
    'crds/upstream.yaml': upstream,
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/repo.yaml': repoDoc,
    'infra/es.yaml': hr('external-secrets', 'flux-system', 'external-secrets'),
    'clusters/c/ks/configs.yaml': ks('configs', './configs', dependsOn),
    'configs/store.yaml': 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n',
  });
  assert.deepEqual(rules(layout('  dependsOn:\n    - name: crds\n')), []);
  assert.deepEqual(rules(layout('')), ['crd-order|warning|configs/store.yaml|2']);
  // Depending on the root that applies configs: the root's other children may run after configs.
  assert.deepEqual(rules(layout('  dependsOn:\n    - name: root\n')), ['crd-order|warning|configs/store.yaml|2']);
});

test('revalidation: renaming an object into a collision and back', () => {
  const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;
  const repo = memoryRepo({ ...root, 'clusters/c/ks/a.yaml': ks('a', './a'), 'clusters/c/ks/b.yaml': ks('b', './b'), 'a/cm.yaml': cm('one'), 'b/cm.yaml': cm('two') });
  const now = () => check(repo).diagnostics.map((d) => `${d.rule}|${d.file.slice(6)}`);
  assert.deepEqual(now(), []);
  repo.setBuffer('/repo/b/cm.yaml', cm('one'));
  assert.deepEqual(now(), ['duplicate-object|a/cm.yaml', 'duplicate-object|b/cm.yaml']);
  repo.setBuffer('/repo/b/cm.yaml', undefined);
  assert.deepEqual(now(), []);
});

test('api-version-unserved: a document no cluster applies (an archive, another repository\'s part) is a warning unless ignored; without clusters every document is', () => {
  const old = 'apiVersion: helm.toolkit.fluxcd.io/v2beta1\nkind: HelmRelease\nmetadata:\n  name: old\n  namespace: default\nspec:\n  chart:\n    spec:\n      chart: old\n';
  const unapplied = { 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n', '.archive/apps/old/hr.yaml': old };
  assert.deepEqual(rules(unapplied), ['api-version-unserved|warning|.archive/apps/old/hr.yaml|1']);
  assert.deepEqual(rules({ ...unapplied, '.gitops-preview.yaml': 'ignore:\n  - .archive/**\n' }), []);
  // The same document applied is an error.
  assert.deepEqual(rules({ 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/hr.yaml': old }), ['api-version-unserved|error|apps/hr.yaml|1']);
  const alone = check(memoryRepo({ 'old/hr.yaml': old })).diagnostics.map((d) => d.rule);
  assert.deepEqual(alone, ['api-version-unserved']);
});

test('crd-order: an error only where the cluster never converges; a warning where a retry gets past it', () => {
  const store = 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n';
  const layout = (installerExtra: string, configsExtra = '') => ({
    'clusters/c/ks/infra.yaml': ks('infra', './infra', installerExtra),
    'clusters/c/ks/configs.yaml': ks('configs', './configs', configsExtra),
    'infra/repo.yaml': repoDoc,
    'infra/es.yaml': hr('external-secrets', 'flux-system', 'external-secrets'),
    'configs/store.yaml': store,
  });
  // Siblings: configs fails until infra has installed the chart, then converges on its next retry.
  const [transient] = check(memoryRepo({ ...root, ...layout('') })).diagnostics;
  assert.equal(transient.severity, 'warning');
  assert.match(transient.message, /stays not ready until a retry after flux-system\/infra has installed the CRD\. Add dependsOn 'flux-system\/infra'/);
  // The installer waits for configs: configs is never ready, so infra never runs.
  const [waits] = check(memoryRepo({ ...root, ...layout('  dependsOn:\n    - name: configs\n') })).diagnostics;
  assert.equal(waits.severity, 'error');
  assert.match(waits.message, /installed only after flux-system\/configs is ready .* the cluster never converges/);
  // configs applies the installer's Kustomization: its failing dry-run never creates it.
  const nested = {
    ...root,
    'clusters/c/ks/configs.yaml': ks('configs', './configs'),
    'configs/store.yaml': store,
    'configs/infra.yaml': ks('infra', './infra'),
    'infra/repo.yaml': repoDoc,
    'infra/es.yaml': hr('external-secrets', 'flux-system', 'external-secrets'),
  };
  assert.deepEqual(rules(nested), ['crd-order|error|configs/store.yaml|2']);
});

test('yaml-syntax: an error in a file a cluster reads, a note in one nothing includes (a template)', () => {
  const broken = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }\n';
  const list = rules({ 'clusters/c/ks/apps.yaml': ks('apps', './apps'), 'apps/bad.yaml': broken, 'templates/bad.yaml': broken });
  assert.deepEqual(list.filter((l) => l.startsWith('yaml-syntax')), ['yaml-syntax|error|apps/bad.yaml|5', 'yaml-syntax|info|templates/bad.yaml|5']);
  // Without any cluster nothing says what is applied: every file counts.
  const alone = check(memoryRepo({ 'templates/bad.yaml': broken })).diagnostics.map((d) => `${d.rule}|${d.severity}`);
  assert.deepEqual(alone, ['yaml-syntax|error']);
});

test('depends-on-descendant: a Kustomization depending on one it applies (directly or through another) never becomes ready', () => {
  const files = {
    'clusters/c/ks/apps.yaml': ks('apps', './apps', '  dependsOn:\n    - name: app-a\n    - name: app-b\n    - name: infra\n'),
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: i\n  namespace: default\n',
    'apps/a.yaml': ks('app-a', './a'),
    'apps/b-parent.yaml': ks('b-parent', './b'),
    'b/b.yaml': ks('app-b', './a'),
    'a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
  };
  const list = check(memoryRepo({ ...root, ...files })).diagnostics.filter((d) => d.rule === 'depends-on-descendant');
  assert.deepEqual(list.map((d) => [d.severity, d.file.slice(6), d.range.start.line + 1]), [['error', 'clusters/c/ks/apps.yaml', 13], ['error', 'clusters/c/ks/apps.yaml', 14]]);
  assert.match(list[0].message, /^flux-system\/apps depends on flux-system\/app-a, which it applies itself: remove this dependsOn entry\.\n.*neither ever becomes ready/);
  assert.match(list[1].message, /which it applies itself: .*\n.* \(through flux-system\/b-parent\) is created only when/);
});

test('depends-on-descendant: a self-applying root may depend on a Kustomization its own folder creates with it (repro siblings)', () => {
  const gitRepo = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: home\n  namespace: flux-system\nspec:\n  url: https://github.com/example/repro.git\n  ref:\n    branch: main\n';
  const withSource = (name: string, path: string, extra: string, source: string) =>
    ks(name, path, extra).replace('kind: GitRepository\n    name: flux-system', `kind: ${source.split('/')[0]}\n    name: ${source.split('/')[1]}`);
  const files = {
    'flux/config/kustomization.yaml': 'resources:\n  - ./flux.yaml\n  - ./cluster.yaml\n',
    'flux/config/cluster.yaml': `${gitRepo}---\n${withSource('cluster', './flux', '  dependsOn:\n    - name: flux\n', 'GitRepository/home')}`,
    'flux/config/flux.yaml': withSource('flux', './other', '', 'GitRepository/home'),
    'other/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\n  namespace: default\n',
  };
  const cloned = (f: Record<string, string>) => new Repo('/repo', memoryHost('/repo', f), { remotes: ['https://github.com/example/repro.git'], checkout: { branch: 'main' } });
  const model = cloned(files).model();
  assert.deepEqual(model.clusters.map((c) => c.root.applied.name), ['cluster']);
  assert.ok(model.clusters[0].root.appliesItself);
  assert.deepEqual(check(cloned(files)).diagnostics.filter((d) => d.rule.startsWith('depends-on')), []);
  // The same dependency on a Kustomization of another folder, which only the root applies, still never becomes ready.
  const apart: Record<string, string> = { ...files, 'flux/config/kustomization.yaml': 'resources:\n  - ./cluster.yaml\n', 'flux/apps/flux.yaml': files['flux/config/flux.yaml'] };
  delete apart['flux/config/flux.yaml'];
  assert.deepEqual(check(cloned(apart)).diagnostics.filter((d) => d.rule.startsWith('depends-on')).map((d) => d.rule), ['depends-on-descendant']);
});

test('crd-order: a remote bundle with a known URL before the resource hides only its own CRD groups', () => {
  const layout = {
    'clusters/c/ks/crds.yaml': ks('crds', './crds', '  wait: true\n'),
    'crds/kustomization.yaml': 'resources:\n  - https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.0/standard-install.yaml\n',
    'clusters/c/ks/infra.yaml': ks('infra', './infra'),
    'infra/repo.yaml': repoDoc,
    'infra/cm.yaml': hr('cert-manager', 'flux-system', 'cert-manager', '  values:\n    crds:\n      enabled: true\n'),
    'clusters/c/ks/apps.yaml': ks('apps', './apps', '  dependsOn:\n    - name: crds\n'),
    'apps/route.yaml': 'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: default\n',
    'apps/cert.yaml': 'apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: c\n  namespace: default\n',
  };
  // The Certificate's CRD is not in the gateway-api bundle: still reported; the HTTPRoute's may be.
  assert.deepEqual(rules(layout).filter((r) => r.startsWith('crd-order')), ['crd-order|warning|apps/cert.yaml|2']);
});

test('yaml-syntax: the first parse error of each document, ten documents of a file at most, the tenth saying how many more', () => {
  // One document whose error cascades into many: one finding.
  const cascade = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: "v\n  j: x: y\n  l: "w\n  m: [1\n';
  const one = check(memoryRepo({ 'tmp/dump.yaml': cascade })).diagnostics.filter((d) => d.rule === 'yaml-syntax');
  assert.equal(one.length, 1, one.map((d) => d.message).join('\n'));
  // Twelve broken documents: ten findings, and the tenth counts the two left.
  const many = Array.from({ length: 12 }, () => cascade).join('---\n');
  const list = check(memoryRepo({ 'tmp/dump.yaml': many })).diagnostics.filter((d) => d.rule === 'yaml-syntax');
  assert.equal(list.length, 10);
  assert.match(list[9].message, /2 more documents of this file do not parse either/);
  assert.ok(list.slice(0, 9).every((d) => !/more documents/.test(d.message)));
});
