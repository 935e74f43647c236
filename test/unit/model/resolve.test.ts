import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryRepo } from '../helpers';
import { rangeAt } from '../../../src/core/yaml/document';

const ks = (name: string, path: string, extra = '', ns = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  interval: 10m\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;
const cm = (name: string, ns?: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${ns ? `  namespace: ${ns}\n` : ''}data: {}\n`;

test('generator rule: every manifest below the path, a sub-folder with its own kustomization counted once', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/apps.yaml': ks('apps', './apps'),
    'apps/a.yaml': cm('a', 'team'),
    'apps/nested/b.yaml': cm('b', 'team'),
    'apps/unit/kustomization.yaml': 'resources:\n  - c.yaml\n',
    'apps/unit/c.yaml': cm('c', 'team'),
    'apps/unit/ignored-by-kustomization.yaml': cm('d', 'team'),
    'apps/values.yaml': 'replicaCount: 2\n',
  });
  const model = repo.model();
  assert.deepEqual(model.clusters.map((c) => c.name), ['dev']);
  const apps = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  assert.deepEqual(apps.applies.map((a) => `${a.namespace}/${a.name}`).sort(), ['team/a', 'team/b', 'team/c']);
});

test('kustomize namespace/namePrefix and Flux targetNamespace decide where objects land; cluster-scoped kinds keep none', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/apps.yaml': ks('apps', './apps', '  targetNamespace: prod\n'),
    'clusters/dev/raw.yaml': ks('raw', './raw'),
    'apps/kustomization.yaml': 'namespace: team\nnamePrefix: x-\nresources:\n  - cm.yaml\n  - ns.yaml\n',
    'apps/cm.yaml': cm('a', 'other'),
    'apps/ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n',
    'raw/kustomization.yaml': 'namespace: team\nnameSuffix: -y\nresources:\n  - cm.yaml\n',
    'raw/cm.yaml': cm('b'),
  });
  const c = repo.model().clusters[0];
  const get = (n: string) => c.kustomizations.find((k) => k.applied.name === n)!;
  assert.deepEqual(get('apps').applies.map((a) => `${a.kind}:${a.namespace ?? '-'}/${a.name}`), ['ConfigMap:prod/x-a', 'Namespace:-/team']);
  assert.deepEqual(get('raw').applies.map((a) => `${a.namespace}/${a.name}`), ['team/b-y']);
});

test('missing resources are located at the exact kustomization entry; remote bases are listed, not fetched', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/apps.yaml': ks('apps', './apps'),
    'apps/kustomization.yaml': 'resources:\n  - cm.yaml\n  - missing.yaml\n  - https://github.com/org/repo//deploy?ref=v1\n  - plain-dir\n',
    'apps/cm.yaml': cm('a', 'x'),
    'apps/plain-dir/x.yaml': cm('x', 'x'),
  });
  const apps = repo.model().clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  assert.deepEqual(apps.problems.map((p) => [p.code, p.path.join('.')]), [
    ['path-not-found', 'resources.1'],
    ['not-a-kustomization', 'resources.3'],
  ]);
  const range = rangeAt(apps.problems[0].doc, apps.problems[0].path);
  assert.deepEqual([range.start.line, range.start.character], [2, 4]);
  assert.deepEqual(apps.remoteResources, ['https://github.com/org/repo//deploy?ref=v1']);
});

test('.sourceignore and Helm chart templates are not read; chart folders are remembered', () => {
  const repo = memoryRepo({
    '.sourceignore': '/docs/\n*.tmp.yaml\n',
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/skip.tmp.yaml': ks('skipped', './x'),
    'docs/example.yaml': ks('doc-example', './docs'),
    'charts/app/Chart.yaml': 'apiVersion: v2\nname: app\nversion: 1.0.0\n',
    'charts/app/templates/deploy.yaml': '{{- if .Values.x }}\nkind: {{ .Values.kind }}\n{{- end }}\n',
  });
  const ws = repo.workspace;
  assert.equal(ws.files.has('/repo/docs/example.yaml'), false);
  assert.equal(ws.files.has('/repo/clusters/dev/skip.tmp.yaml'), false);
  assert.equal(ws.files.has('/repo/charts/app/templates/deploy.yaml'), false);
  assert.ok(ws.chartDirs.has('/repo/charts/app'));
  assert.deepEqual(repo.model().clusters.map((c) => c.name), ['dev']);
});

test('objects with the same identity in two clusters are distinct; an unreferenced Flux object is listed as unapplied', () => {
  const repo = memoryRepo({
    'clusters/a/flux-system/gotk-sync.yaml': ks('flux-system', './clusters/a'),
    'clusters/a/flux-system/kustomization.yaml': 'resources:\n  - gotk-sync.yaml\n',
    'clusters/a/apps.yaml': ks('apps', './apps'),
    'clusters/b/flux-system/gotk-sync.yaml': ks('flux-system', './clusters/b'),
    'clusters/b/flux-system/kustomization.yaml': 'resources:\n  - gotk-sync.yaml\n',
    'clusters/b/apps.yaml': ks('apps', './apps'),
    'apps/cm.yaml': cm('shared', 'x'),
    'stray/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: stray\n  namespace: x\nspec: {}\n',
  });
  const model = repo.model();
  assert.deepEqual(model.clusters.map((c) => [c.name, c.root.appliesItself, c.kustomizations.length]), [
    ['a', true, 2],
    ['b', true, 2],
  ]);
  const applied = model.appliedById.get('/repo/apps/cm.yaml#0')!;
  assert.deepEqual(applied.map((a) => a.cluster.name), ['a', 'b']);
  assert.deepEqual(model.unapplied.map((o) => o.name), ['stray']);
});

test('ExternalArtifact from an ArtifactGenerator maps artifact paths through its copy rules', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/gen.yaml':
      'apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: gen\n  namespace: flux-system\nspec:\n  sources:\n    - alias: repo\n      kind: GitRepository\n      name: flux-system\n  artifacts:\n    - name: apps\n      copy:\n        - from: "@repo/deploy/base/**"\n          to: "@artifact/base/"\n        - from: "@repo/deploy/dev/**"\n          to: "@artifact/dev/"\n',
    'clusters/dev/apps.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./dev\n  sourceRef:\n    kind: ExternalArtifact\n    name: apps\n',
    'deploy/base/kustomization.yaml': 'resources:\n  - cm.yaml\n',
    'deploy/base/cm.yaml': cm('from-base', 'x'),
    'deploy/dev/kustomization.yaml': 'resources:\n  - ../base\n  - extra.yaml\n',
    'deploy/dev/extra.yaml': cm('from-dev', 'x'),
  });
  const apps = repo.model().clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  assert.equal(apps.source.kind, 'view');
  assert.deepEqual(apps.applies.map((a) => a.name).sort(), ['from-base', 'from-dev']);
});

test('incremental: an edit re-parses one file, unsaved buffers win over disk, closing the buffer restores disk', () => {
  const files = {
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/apps.yaml': ks('apps', './apps'),
    'apps/cm.yaml': cm('a', 'x'),
    'apps/other.yaml': cm('b', 'x'),
  };
  const repo = memoryRepo(files);
  const before = repo.model();
  const untouched = repo.workspace.files.get('/repo/apps/other.yaml');
  assert.equal(repo.setBuffer('/repo/apps/cm.yaml', cm('renamed', 'x')), true);
  const after = repo.model();
  assert.notEqual(after, before);
  assert.equal(repo.workspace.files.get('/repo/apps/other.yaml'), untouched);
  const names = () => repo.model().clusters[0].kustomizations[1].applies.map((a) => a.name).sort();
  assert.deepEqual(names(), ['b', 'renamed']);
  repo.setBuffer('/repo/apps/cm.yaml', undefined);
  assert.deepEqual(names(), ['a', 'b']);
  assert.equal(repo.setBuffer('/repo/apps/cm.yaml', undefined), false, 'no change, no rebuild');
});

test('a file that does not parse is reported with its position and the rest of the tree still builds', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/broken.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n',
    'clusters/dev/ok.yaml': cm('ok', 'x'),
  });
  const broken = repo.workspace.files.get('/repo/clusters/dev/broken.yaml')!;
  assert.ok(broken.docs[0].problems.length > 0);
  assert.deepEqual(repo.model().clusters[0].root.applies.map((a) => a.name).sort(), ['ok']);
});

test('names follow post-build substitution and kustomize renames Namespace objects to its namespace', () => {
  const repo = memoryRepo({
    'clusters/dev/root.yaml': ks('root', './clusters/dev'),
    'clusters/dev/app.yaml': ks('app', './app', '  postBuild:\n    substitute:\n      APP: web\n'),
    'app/kustomization.yaml': 'namespace: media\nresources:\n  - ns.yaml\n  - cm.yaml\n',
    'app/ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n',
    'app/cm.yaml': cm('${APP}-config-${SUFFIX:=x}-$${LITERAL}'),
  });
  const app = repo.model().clusters[0].kustomizations.find((k) => k.applied.name === 'app')!;
  assert.deepEqual(app.applies.map((a) => `${a.kind}:${a.namespace ?? '-'}/${a.name}`), ['Namespace:-/media', 'ConfigMap:media/web-config-x-${LITERAL}']);
});
