import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { treeJson } from '../../../src/core/tree/treeData';
import { checkModel } from '../../../src/core/checks';

const ROOT = '/repo';
const cloned = (files: Record<string, string>) =>
  new Repo(ROOT, memoryHost(ROOT, files), { remotes: ['https://github.com/example/repro.git'], checkout: { branch: 'main' } });

const KS = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: flux-system\n`;

test('a gotk-sync.yaml of ordinary Kustomizations that a FluxInstance sync applies is part of that one cluster (repro gotksync)', () => {
  const model = cloned({
    'clusters/a/flux-system/flux-instance.yaml':
      'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: 2.x\n  sync:\n    kind: GitRepository\n    url: https://github.com/example/repro.git\n    ref: refs/heads/main\n    path: clusters/a/flux-system\n',
    'clusters/a/flux-system/gotk-sync.yaml': `${KS('config', './config')}---\n${KS('apps', './apps', '  dependsOn:\n    - name: config\n')}`,
    'clusters/a/flux-system/kustomization.yaml': 'resources:\n  - gotk-sync.yaml\n  - flux-instance.yaml\n',
    'config/cm.yaml': CM('cfg'),
    'apps/cm.yaml': CM('app'),
  }).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => c.root.name), ['flux-system']);
  assert.deepEqual(model.clusters[0].kustomizations.map((k) => k.applied.name).sort(), ['apps', 'config', 'flux-system']);
  assert.deepEqual(checkModel(model).diagnostics.filter((d) => d.rule.startsWith('depends-on')), []);
});

test('a Kustomization commented out of its folder’s kustomization.yaml is not applied, not a cluster of its own (repro commented)', () => {
  const gitRepo = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://github.com/example/repro.git\n  ref:\n    branch: main\n';
  const model = cloned({
    'flux/config/cluster.yaml': `${gitRepo}---\n${KS('flux-system', './flux/config')}`,
    'flux/config/extra.yaml': KS('extra', './extra'),
    'flux/config/kustomization.yaml': 'resources:\n  - ./cluster.yaml\n#  - ./extra.yaml\n',
    'extra/ks.yaml': KS('extra-apps', './extra/apps'),
    'extra/apps/cm.yaml': CM('x'),
  }).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => c.root.name), ['flux-system']);
  assert.deepEqual(json.unapplied.map((u) => u.name).sort(), ['extra', 'extra-apps']);
});

test('a bootstrap GitRepository with a placeholder URL reads the folder named after it when its paths resolve only there (aws-samples)', () => {
  const sync =
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: REPO_PREFIX/gitops-system\n  ref:\n    branch: main\n---\n' +
    KS('flux-system', './clusters/mgmt');
  const model = cloned({
    'repos/gitops-system/clusters/mgmt/flux-system/gotk-sync.yaml': sync,
    'repos/gitops-system/clusters/mgmt/tools.yaml': KS('tools', './tools/a'),
    // A template whose path names a folder that exists nowhere: the source's paths do not all resolve in one folder.
    'repos/gitops-system/clusters-config/template/app.yaml': KS('template-app', './clusters/cluster-name'),
    'repos/gitops-system/tools/a/cm.yaml': CM('a'),
  }).model();
  const root = model.clusters.find((c) => c.root.applied.object.file.includes('/clusters/mgmt/'))!.root;
  assert.equal(root.source.kind === 'view' ? root.source.root : root.source.kind, 'repos/gitops-system');
  assert.deepEqual(root.children.map((k) => `${k.applied.name} ${k.applies.length}`), ['tools 1']);
  assert.deepEqual(checkModel(model).diagnostics.filter((d) => d.rule === 'path-not-found' && d.file.includes('/clusters/mgmt/')), []);
});

test('a gotk-sync.yaml syncing a folder other than its own that the source does not hold is a template, not a cluster (aws-samples clusters/template)', () => {
  const sync = (path: string) =>
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: REPO_PREFIX/gitops-system\n  ref:\n    branch: main\n---\n' +
    KS('flux-system', path);
  const model = cloned({
    'repos/gitops-system/clusters/mgmt/flux-system/gotk-sync.yaml': sync('./clusters/mgmt'),
    'repos/gitops-system/clusters/mgmt/tools.yaml': KS('tools', './tools/a'),
    // bin/add-cluster.sh copies clusters/template to clusters/<name> and fills in `cluster-name`.
    'repos/gitops-system/clusters/template/flux-system/gotk-sync.yaml': sync('./clusters/cluster-name'),
    'repos/gitops-system/clusters/template/tools.yaml': KS('tools', './tools/a'),
    'repos/gitops-system/tools/a/cm.yaml': CM('a'),
  }).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => c.name), ['mgmt']);
  assert.deepEqual(json.unapplied.map((u) => `${u.kind}/${u.name} ${u.file}`).sort(), [
    'GitRepository/flux-system repos/gitops-system/clusters/template/flux-system/gotk-sync.yaml',
    'Kustomization/flux-system repos/gitops-system/clusters/template/flux-system/gotk-sync.yaml',
    'Kustomization/tools repos/gitops-system/clusters/template/tools.yaml',
  ]);
  assert.deepEqual(checkModel(model).diagnostics.filter((d) => d.file.includes('/template/') || d.rule === 'path-not-found'), []);
});

test('a gotk-sync.yaml syncing another folder that exists stays a root (anthr76: ./k8s/rbac)', () => {
  const model = cloned({
    'clusters/a/flux-system/gotk-sync.yaml': KS('flux-system', './rbac'),
    'rbac/cm.yaml': CM('r'),
  }).model();
  assert.deepEqual(treeJson(model).clusters.map((c) => c.root.name), ['flux-system']);
  assert.deepEqual(model.clusters[0].objects.filter((o) => o.object.kind === 'ConfigMap').map((o) => o.name), ['r']);
});
