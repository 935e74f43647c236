import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { treeJson } from '../../../src/core/tree/treeData';
import { checkModel } from '../../../src/core/checks';
import type { BuildOptions } from '../../../src/core/model/graph';

const ROOT = '/repo';
const repo = (files: Record<string, string>, options: BuildOptions = {}) => new Repo(ROOT, memoryHost(ROOT, files), options);

const KS = (name: string, path: string, extra = '', source = 'GitRepository', sourceName = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: ${source}\n    name: ${sourceName}\n${extra}`;

const FLUX_INSTANCE = (path: string, version = '2.6.x') =>
  `apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: "${version}"\n  sync:\n    kind: GitRepository\n    url: https://github.com/me/fleet.git\n    ref: refs/heads/main\n    path: ${path}\n`;

test('a FluxInstance sync is the cluster root; top-level Kustomizations of its path are one cluster; strays are unapplied', () => {
  const model = repo({
    'clusters/prod/flux-instance.yaml': FLUX_INSTANCE('clusters/prod'),
    'clusters/prod/infra.yaml': KS('infra', './infra'),
    'clusters/prod/apps.yaml': KS('apps', './apps', '  dependsOn:\n    - name: infra\n'),
    'infra/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n',
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n',
    '_archive/old.yaml': KS('old', './nowhere', '  dependsOn:\n    - name: missing\n'),
  }).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => c.name), ['prod']);
  assert.deepEqual(json.clusters[0].root.children.map((c) => `${c.kind}/${c.name}`), ['GitRepository/flux-system', 'Kustomization/apps', 'Kustomization/infra']);
  assert.deepEqual(json.sources.map((s) => [s.kind, s.name, s.file, s.root, s.rootOrigin]), [['GitRepository', 'flux-system', 'clusters/prod/flux-instance.yaml', '.', 'bootstrap']]);
  assert.deepEqual(json.unapplied.map((u) => u.name), ['old']);
  // The archived Kustomization gets no dependency or path diagnostics; nothing refers to a missing source.
  assert.deepEqual(checkModel(model).diagnostics.map((d) => d.rule), []);
});

test('a ResourceSet with inline inputs generates Flux objects under the Kustomization applying it', () => {
  const rs = `apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: tenants\n  namespace: flux-system\nspec:\n  inputs:\n    - tenant: team-a\n    - tenant: team-b\n  resources:\n    - apiVersion: kustomize.toolkit.fluxcd.io/v1\n      kind: Kustomization\n      metadata:\n        name: << inputs.tenant >>\n        namespace: flux-system\n      spec:\n        path: ./tenants/<< inputs.tenant >>\n        sourceRef:\n          kind: GitRepository\n          name: flux-system\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: << inputs.tenant | slugify >>\n`;
  const model = repo({
    'clusters/prod/flux-instance.yaml': FLUX_INSTANCE('clusters/prod'),
    'clusters/prod/tenants.yaml': rs,
    'tenants/team-a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n',
    'tenants/team-b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n',
  }).model();
  const root = model.clusters[0].root;
  assert.deepEqual(root.children.map((k) => `${k.applied.name} ${k.path} ${k.applies.length}`), ['team-a tenants/team-a 1', 'team-b tenants/team-b 1']);
  // An entry whose name uses a template function is left out, not guessed.
  assert.ok(!model.clusters[0].objects.some((a) => a.name.includes('<<')));
});

test("a child's spec.path is substituted by its applier's postBuild (substituteFrom ConfigMap in the repo)", () => {
  const model = repo({
    'clusters/prod/flux-system/gotk-sync.yaml': KS('flux-system', './clusters/prod'),
    'clusters/prod/vars.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\n  namespace: flux-system\ndata:\n  CLUSTER: prod\n',
    'clusters/prod/apps.yaml': KS('apps', './apps', '  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: vars\n'),
    'apps/kustomization.yaml': 'resources:\n  - app.yaml\n',
    'apps/app.yaml': KS('app', './app/${CLUSTER}'),
    'app/prod/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
  }).model();
  const app = model.clusters[0].kustomizations.find((k) => k.applied.name === 'app')!;
  assert.equal(app.path, 'app/prod');
  assert.equal(app.applies.length, 1);
  assert.deepEqual(checkModel(model).diagnostics.filter((d) => d.rule === 'path-not-found'), []);
});

test('source roots: inferred for an OCIRepository, pinned by .gitops-preview.yaml or the setting, remote URL at another branch is external', () => {
  const files: Record<string, string> = {
    'clusters/prod/flux-system/gotk-sync.yaml': KS('flux-system', './clusters/prod'),
    'clusters/prod/apps.yaml': KS('apps', './production', '', 'OCIRepository', 'apps'),
    'clusters/prod/other.yaml': KS('other', './', '', 'GitRepository', 'other'),
    'clusters/prod/sources.yaml':
      'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  url: oci://example.com/apps\n  ref:\n    tag: latest\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: git@github.com:me/fleet\n  ref:\n    branch: release\n',
    'deploy/apps/production/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n',
    'alt/production/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: q\n',
  };
  const remotes = ['https://github.com/me/fleet.git'];
  // Two folders hold production/: ambiguous, so external.
  let model = repo(files, { remotes, checkout: { branch: 'main' } }).model();
  let ks = (name: string) => model.clusters[0].kustomizations.find((k) => k.applied.name === name)!;
  assert.equal(ks('apps').source.kind, 'external');
  // scp-style URL without .git matches the https remote, but branch release is not the checkout.
  assert.match(ks('other').source.description, /branch release: the same repository at another ref than this workspace's branch main/);
  // One candidate: inferred, and said so.
  const { ['alt/production/cm.yaml']: _, ...single } = files;
  model = repo(single, { remotes, checkout: { branch: 'main' } }).model();
  ks = (name: string) => model.clusters[0].kustomizations.find((k) => k.applied.name === name)!;
  const apps = ks('apps').source;
  assert.ok(apps.kind === 'view' && apps.root === 'deploy/apps' && apps.rootOrigin === 'inferred', apps.description);
  assert.equal(ks('apps').applies.length, 1);
  const json = treeJson(model);
  assert.deepEqual(json.sources.filter((s) => s.name === 'apps').map((s) => [s.root, s.rootOrigin]), [['./deploy/apps', 'inferred']]);
  // Pinned in the repository file (read by check in CI too), then overridden by the setting.
  model = repo({ ...files, '.gitops-preview.yaml': 'sourceRoots:\n  OCIRepository/flux-system/apps: alt\n' }, { remotes }).model();
  const pinned = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!.source;
  assert.ok(pinned.kind === 'view' && pinned.root === 'alt' && pinned.rootOrigin === 'configured');
  model = repo({ ...files, '.gitops-preview.yaml': 'sourceRoots:\n  OCIRepository/flux-system/apps: alt\n' }, { remotes, sourceRoots: { 'OCIRepository/flux-system/apps': 'deploy/apps' } }).model();
  const overridden = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!.source;
  assert.ok(overridden.kind === 'view' && overridden.root === 'deploy/apps');
  // A configured folder outside the repository is refused.
  model = repo(files, { sourceRoots: { 'OCIRepository/flux-system/apps': '../elsewhere' } }).model();
  assert.equal(model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!.source.kind, 'external');
});

test('api-version-unserved: a warning when the FluxInstance pins a Flux that still serves the version, an error otherwise', () => {
  const hr = 'apiVersion: helm.toolkit.fluxcd.io/v2beta2\nkind: HelmRelease\nmetadata:\n  name: x\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: x\n';
  const run = (version: string) => {
    const model = repo({ 'clusters/prod/flux-instance.yaml': FLUX_INSTANCE('clusters/prod', version), 'clusters/prod/hr.yaml': hr }).model();
    return checkModel(model).diagnostics.filter((d) => d.rule === 'api-version-unserved').map((d) => [d.severity, d.message]);
  };
  const [[severity, message]] = run('2.6.x');
  assert.equal(severity, 'warning');
  assert.match(message, /no longer served from Flux 2\.8: move to helm.toolkit.fluxcd.io\/v2 before upgrading Flux\.\nThe Flux 2\.6\.x this repository runs \(FluxInstance flux-system\/flux distribution\.version\) still serves it/);
  assert.equal(run('2.8.0')[0][0], 'error');
  assert.equal(run('2.x')[0][0], 'error');
});

test('a flux-instance chart whose values come from a ConfigMap that a kustomization generates is the cluster root, also inside a ResourceSet', () => {
  const helmRelease = (indent: string) =>
    ['apiVersion: helm.toolkit.fluxcd.io/v2', 'kind: HelmRelease', 'metadata:', '  name: flux-instance', '  namespace: flux-system', 'spec:', '  interval: 1h', '  chartRef:', '    kind: OCIRepository', '    name: flux-instance', '  values:', '    instance:', '      cluster:', '        size: medium', '  valuesFrom:', '    - kind: ConfigMap', '      name: flux-instance-values']
      .map((l) => indent + l)
      .join('\n');
  const resourceSet = `apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  resources:\n${helmRelease('    ').replace(/^    apiVersion/, '    - apiVersion').replace(/\n    (?!- )/g, '\n      ')}\n`;
  const app = 'kubernetes/flux/flux-instance/app';
  const files = (release: string): Record<string, string> => ({
    // The OCI artifact is the kubernetes/ folder: the sync path is relative to it.
    'kubernetes/clusters/one/flux-instance.yaml': KS('flux-instance', './flux/flux-instance/app', '', 'OCIRepository', 'flux-system'),
    [`${app}/kustomization.yaml`]:
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ocirepository.yaml\n  - helmrelease.yaml\nconfigMapGenerator:\n  - name: flux-instance-values\n    namespace: flux-system\n    files:\n      - values.yaml=./values.yaml\n',
    [`${app}/ocirepository.yaml`]:
      'apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance\n  ref:\n    tag: 0.53.0\n',
    [`${app}/helmrelease.yaml`]: release,
    [`${app}/values.yaml`]: '# chart values\ninstance:\n  sync:\n    kind: OCIRepository\n    url: oci://ghcr.io/me/manifests\n    ref: main\n    path: ./clusters/one\n',
    'kubernetes/clusters/one/apps.yaml': KS('apps', './apps', '', 'OCIRepository', 'flux-system'),
    'kubernetes/apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n',
    // A Kustomization the cluster leaves out: not a cluster of its own.
    'kubernetes/disabled/ks.yaml': KS('disabled', './disabled/app', '  dependsOn:\n    - name: missing\n', 'OCIRepository', 'flux-system'),
    'kubernetes/disabled/app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n',
  });
  for (const release of [`${helmRelease('')}\n`, resourceSet]) {
    const model = repo(files(release)).model();
    const json = treeJson(model);
    assert.deepEqual(json.clusters.map((c) => c.name), ['one'], release);
    const root = model.clusters[0].root;
    assert.ok(root.source.kind === 'view' && root.source.root === 'kubernetes', root.source.description);
    assert.deepEqual(model.clusters[0].kustomizations.map((k) => k.applied.name).sort(), ['apps', 'flux-instance', 'flux-system']);
    assert.deepEqual(json.unapplied.map((u) => u.name), ['disabled']);
    assert.deepEqual(checkModel(model).diagnostics.map((d) => d.rule), []);
  }
});

test('clusters whose root paths end in the same folder are named by the folder where their paths differ', () => {
  const model = repo({
    'kubernetes/main/cluster/config/flux-instance.yaml': FLUX_INSTANCE('kubernetes/main/cluster/config').replace('name: flux\n', 'name: flux-main\n'),
    'kubernetes/staging/cluster/config/flux-instance.yaml': FLUX_INSTANCE('kubernetes/staging/cluster/config').replace('name: flux\n', 'name: flux-staging\n'),
  }).model();
  assert.deepEqual(treeJson(model).clusters.map((c) => c.name), ['main', 'staging']);
});

test('no bootstrap file: a root that applies itself from a source of this repository is the cluster, strays beside it are unapplied, a flux2 release tag pins Flux', () => {
  const source =
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-cluster\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://github.com/me/home-ops\n  ref:\n    branch: main\n---\n' +
    KS('flux-cluster', './cluster/flux', '', 'GitRepository', 'flux-cluster');
  const installation =
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-installation\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://github.com/fluxcd/flux2\n  ref:\n    tag: "v2.6.4"\n---\n' +
    KS('flux-installation', './manifests/install', '', 'GitRepository', 'flux-installation');
  const model = repo(
    {
      'cluster/flux/flux-system/flux-cluster.yaml': source,
      'cluster/flux/flux-system/flux-installation.yaml': installation,
      'cluster/flux/apps.yaml': KS('apps', './cluster/apps', '', 'GitRepository', 'flux-cluster'),
      'cluster/apps/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2beta2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: default\nspec:\n  chart:\n    spec:\n      chart: app\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n',
      'cluster/apps/repo.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://charts.example.com\n',
      // Left out of every kustomization: a stray, not a cluster.
      'cluster/crds/old/crds.yaml': KS('old-crds', './crds', '  dependsOn:\n    - name: missing\n', 'GitRepository', 'flux-cluster'),
    },
    { remotes: ['https://github.com/me/home-ops.git'], checkout: { branch: 'main' } },
  ).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => c.name), ['flux']);
  assert.deepEqual(model.clusters[0].kustomizations.map((k) => k.applied.name).sort(), ['apps', 'flux-cluster', 'flux-installation']);
  assert.ok(model.clusters[0].helmReleases.some((h) => h.applied.name === 'app'));
  assert.deepEqual(json.unapplied.map((u) => u.name), ['old-crds']);
  // helm.toolkit.fluxcd.io/v2beta2 is still served by Flux 2.6: a warning naming the release that removes it.
  const d = checkModel(model).diagnostics.map((x) => [x.rule, x.severity, x.message.includes('v2.6.4') && x.message.includes('fluxcd/flux2')]);
  assert.deepEqual(d, [['api-version-unserved', 'warning', true]]);
});

test('no bootstrap file: Kustomizations nothing applies that sit in one folder and depend on each other are that folder’s cluster', () => {
  const files = {
    'clusters/my-cluster/istio.yaml': `${KS('istio-system', './istio/system')}---\n${KS('istio-gateway', './istio/gateway', '  dependsOn:\n    - name: istio-system\n')}`,
    'clusters/my-cluster/apps.yaml': KS('apps', './apps', '  dependsOn:\n    - name: istio-system\n'),
    'istio/system/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n  namespace: istio-system\n',
    'istio/gateway/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: g\n  namespace: istio-system\n',
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: prod\n',
  };
  const model = repo(files).model();
  assert.deepEqual(treeJson(model).clusters.map((c) => c.name), ['my-cluster']);
  assert.deepEqual(model.clusters[0].kustomizations.map((k) => k.applied.name).sort(), ['apps', 'flux-system', 'istio-gateway', 'istio-system']);
  assert.ok(model.clusters[0].root.applied.object.synthetic);
  assert.deepEqual(checkModel(model).diagnostics.map((d) => d.rule), []);
  // One Kustomization alone in its folder stays its own root.
  const single = repo({ 'deploy/app.yaml': KS('app', './apps'), 'apps/cm.yaml': files['apps/cm.yaml'] }).model();
  assert.deepEqual(single.clusters.map((c) => c.root.applied.name), ['app']);
});

test("a FluxInstance's sync.path variables take the values of the Kustomization applying it", () => {
  const model = repo({
    'apps/flux-instance/instance.yaml': FLUX_INSTANCE('kubernetes/clusters/${CLUSTER}/bootstrap'),
    'kubernetes/clusters/home/apps/flux-instance.yaml': KS('flux-instance', './apps/flux-instance', '  postBuild:\n    substitute:\n      CLUSTER: home\n'),
    'kubernetes/clusters/home/bootstrap/apps.yaml': KS('cluster-apps', './kubernetes/clusters/home/apps'),
    // A folder the variable could stand for, but the applier says otherwise: not a cluster.
    'kubernetes/clusters/lab/bootstrap/apps.yaml': KS('lab-apps', './kubernetes/clusters/lab/apps'),
  }).model();
  assert.deepEqual(model.clusters.map((c) => c.root.path), ['kubernetes/clusters/home/bootstrap']);
  const names = model.clusters[0].kustomizations.map((k) => k.applied.name).sort();
  assert.deepEqual(names, ['cluster-apps', 'flux-instance', 'flux-system']);
});

test('with no applier giving its values, a sync.path variable stands for each existing folder: one cluster per match', () => {
  const model = repo({
    'flux/instance.yaml': FLUX_INSTANCE('clusters/${CLUSTER}'),
    'clusters/home/apps.yaml': KS('apps', './apps/home'),
    'clusters/lab/apps.yaml': KS('apps', './apps/lab'),
    'apps/home/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n',
    'apps/lab/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n',
  }).model();
  assert.deepEqual(model.clusters.map((c) => `${c.name} ${c.root.path}`).sort(), ['home clusters/home', 'lab clusters/lab']);
  assert.deepEqual(new Set(model.clusters.map((c) => c.root.applied.object.id)).size, 2);
});

test('a Kustomization a Taskfile step applies is the cluster root; a FluxInstance no cluster applies makes no second cluster', () => {
  const files = (kubernetesDir: string, value = `{{.ROOT_DIR}}/${kubernetesDir}`) => ({
    'Taskfile.yaml': `version: "3"\nvars:\n  KUBERNETES_DIR: "${value}"\nincludes:\n  flux: .taskfiles/Flux/Taskfile.yaml\n`,
    '.taskfiles/Flux/Taskfile.yaml': 'version: "3"\ntasks:\n  bootstrap:\n    cmds:\n      - kubectl apply --server-side --kustomize {{.KUBERNETES_DIR}}/flux/config\n',
    'kubernetes/flux/config/kustomization.yaml': 'resources: [cluster.yaml]\n',
    'kubernetes/flux/config/cluster.yaml': KS('cluster', './kubernetes/flux'),
    'kubernetes/flux/apps.yaml': KS('cluster-apps', './kubernetes/apps'),
    'kubernetes/apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
    'kubernetes/apps/kustomization.yaml': 'resources: [cm.yaml]\n',
    // A draft beside it: nothing applies this FluxInstance (the kustomization above leaves it out), whose sync path is the same folder.
    'kubernetes/apps/flux-system/flux-instance/instance.yaml': FLUX_INSTANCE('kubernetes/flux'),
  });
  const json = treeJson(repo(files('kubernetes')).model());
  assert.deepEqual(json.clusters.map((c) => `${c.name}: ${c.root.kind}/${c.root.name} ${c.root.file}`), ['flux: Kustomization/cluster kubernetes/flux/config/cluster.yaml']);
  assert.deepEqual(json.kustomizations.filter((k) => k.cluster).map((k) => k.name).sort(), ['cluster', 'cluster-apps']);
  // A value relative to the repository root, as task runs commands there.
  assert.deepEqual(treeJson(repo(files('kubernetes', 'kubernetes')).model()).clusters.map((c) => c.root.file), ['kubernetes/flux/config/cluster.yaml']);
  // The step's variable names no folder of this repository (its clusters moved): its path is then
  // matched in every folder, which tells no root, and the roots are found as without the step (the
  // FluxInstance's sync, which applies the same folder): still one cluster.
  const moved = treeJson(repo(files('k8s')).model());
  assert.deepEqual(moved.clusters.map((c) => `${c.root.kind}/${c.root.name} ${c.root.file}`), ['Kustomization/flux-system kubernetes/apps/flux-system/flux-instance/instance.yaml']);
  assert.deepEqual(moved.kustomizations.filter((k) => k.cluster).map((k) => k.name).sort(), ['cluster', 'cluster-apps', 'flux-system']);
  // The same with a relative value.
  assert.deepEqual(treeJson(repo(files('k8s', 'k8s')).model()).clusters, moved.clusters);
});
