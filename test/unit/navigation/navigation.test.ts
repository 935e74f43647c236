import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { diskHost } from '../../../src/node/fsHost';
import type { RepoModel } from '../../../src/core/model/graph';
import type { Position } from '../../../src/core/yaml/lines';
import { definitionAt, documentLinks } from '../../../src/core/navigation/definition';
import { referencesAt } from '../../../src/core/navigation/references';
import { objectAtOffset } from '../../../src/core/navigation/locate';
import { referenceSites } from '../../../src/core/navigation/sites';

const corpora = path.resolve(__dirname, '../../../../shared/corpora').split(path.sep).join('/');
const EXAMPLE = `${corpora}/flux2-kustomize-helm-example`;

/** Position of the first occurrence of `needle` (optionally after `after`) in a file, plus `delta` characters. */
function posOf(model: RepoModel, file: string, needle: string, after = '', delta = 1): Position {
  const text = model.workspace.files.get(file)!.text;
  const start = after ? text.indexOf(after) : 0;
  assert.ok(start >= 0, `${after} not in ${file}`);
  const offset = text.indexOf(needle, start);
  assert.ok(offset >= 0, `${needle} not in ${file}`);
  return model.workspace.files.get(file)!.lines.position(offset + delta);
}

function def(model: RepoModel, file: string, pos: Position): string[] {
  const root = model.workspace.root;
  return definitionAt(model, model.workspace.files.get(file)!, pos).map((t) => `${t.file.slice(root.length + 1)}:${t.range.start.line + 1}`);
}

function refs(model: RepoModel, file: string, pos: Position, decl = false): string[] {
  const root = model.workspace.root;
  return referencesAt(model, model.workspace.files.get(file)!, pos, decl)
    .map((r) => `${r.file.slice(root.length + 1)}:${r.range.start.line + 1} ${r.why}`)
    .sort();
}

test('flux2-kustomize-helm-example: dependsOn, sourceRef and spec.path definitions', () => {
  const model = new Repo(EXAMPLE, diskHost).model();
  const apps = `${EXAMPLE}/clusters/production/apps.yaml`;
  // apps depends on infra-configs: the infra-configs document of the same cluster (its metadata.name line).
  assert.deepEqual(def(model, apps, posOf(model, apps, 'infra-configs', 'dependsOn')), ['clusters/production/infrastructure.yaml:21']);
  // Anywhere in the dependsOn entry works too (on the `- name` key).
  assert.deepEqual(def(model, apps, posOf(model, apps, 'name: infra-configs', '', 0)), ['clusters/production/infrastructure.yaml:21']);
  // ExternalArtifact produced by the ArtifactGenerator: its `artifacts[].name: apps` entry.
  assert.deepEqual(def(model, apps, posOf(model, apps, 'apps', 'sourceRef')), ['clusters/production/artifacts.yaml:18']);
  // spec.path resolves inside the generated artifact: ./production is apps/production.
  assert.deepEqual(def(model, apps, posOf(model, apps, './production')), ['apps/production/kustomization.yaml:1']);
  const staging = `${EXAMPLE}/clusters/staging/apps.yaml`;
  assert.deepEqual(def(model, staging, posOf(model, staging, './staging')), ['apps/staging/kustomization.yaml:1']);
  const infra = `${EXAMPLE}/clusters/production/infrastructure.yaml`;
  assert.deepEqual(def(model, infra, posOf(model, infra, 'infra-controllers', 'dependsOn')), ['clusters/production/infrastructure.yaml:5']);
  assert.deepEqual(def(model, infra, posOf(model, infra, './configs')), ['infrastructure/configs/kustomization.yaml:1']);
  // Not a reference: nothing.
  assert.deepEqual(def(model, apps, posOf(model, apps, 'interval')), []);
});

test('flux2-kustomize-helm-example: HelmRelease chart sources and kustomization.yaml entries', () => {
  const model = new Repo(EXAMPLE, diskHost).model();
  const release = `${EXAMPLE}/apps/base/podinfo/release.yaml`;
  assert.deepEqual(def(model, release, posOf(model, release, 'podinfo', 'sourceRef')), ['apps/base/podinfo/repository.yaml:4']);
  const certManager = `${EXAMPLE}/infrastructure/controllers/cert-manager.yaml`;
  assert.deepEqual(def(model, certManager, posOf(model, certManager, 'name: cert-manager', 'chartRef', 7)), ['infrastructure/controllers/cert-manager.yaml:12']);
  const prod = `${EXAMPLE}/apps/production/kustomization.yaml`;
  assert.deepEqual(def(model, prod, posOf(model, prod, '../base/podinfo')), ['apps/base/podinfo/kustomization.yaml:1']);
  assert.deepEqual(def(model, prod, posOf(model, prod, 'podinfo-values.yaml')), ['apps/production/podinfo-values.yaml:1']);
  const links = documentLinks(model, model.workspace.files.get(prod)!);
  assert.deepEqual(
    links.map((l) => [l.range.start.line + 1, l.target.file.slice(EXAMPLE.length + 1)]),
    [
      [4, 'apps/base/podinfo/kustomization.yaml'],
      [6, 'apps/production/podinfo-values.yaml'],
    ],
  );
});

test('flux2-kustomize-helm-example: references list dependents and appliers', () => {
  const model = new Repo(EXAMPLE, diskHost).model();
  const infra = `${EXAMPLE}/clusters/production/infrastructure.yaml`;
  // On infra-configs' metadata.name: apps depends on it; the (inferred) flux-system Kustomization applies it.
  assert.deepEqual(refs(model, infra, posOf(model, infra, 'infra-configs')), [
    'clusters/production/apps.yaml:9 dependsOn',
    'clusters/production/flux-system/gotk-sync.yaml:12 applies',
  ]);
  const release = `${EXAMPLE}/apps/base/podinfo/release.yaml`;
  // A base shared by both clusters: applied twice, listed once in its kustomization.yaml.
  assert.deepEqual(refs(model, release, posOf(model, release, 'podinfo'), true), [
    'apps/base/podinfo/kustomization.yaml:7 kustomizeFile',
    'apps/base/podinfo/release.yaml:4 declaration',
    'clusters/production/apps.yaml:16 applies',
    'clusters/staging/apps.yaml:16 applies',
  ]);
  // From a reference (the dependsOn entry), references are those of the object it names.
  const apps = `${EXAMPLE}/clusters/production/apps.yaml`;
  assert.deepEqual(refs(model, apps, posOf(model, apps, 'infra-configs', 'dependsOn')), refs(model, infra, posOf(model, infra, 'infra-configs')));
  // The HelmRepository is referenced by the HelmRelease's chart sourceRef.
  const repo = `${EXAMPLE}/apps/base/podinfo/repository.yaml`;
  assert.ok(refs(model, repo, posOf(model, repo, 'podinfo')).includes('apps/base/podinfo/release.yaml:14 chartSourceRef'));
});

const ROOT = '/repo';
const KS = (name: string, spec: string, ns = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n${spec}`;
const FILES: Record<string, string> = {
  'clusters/dev/flux-system/gotk-sync.yaml':
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: ssh://git@example.com/dev\n---\n' +
    KS('flux-system', '  path: ./clusters/dev\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n'),
  'clusters/dev/apps.yaml': KS(
    'apps',
    [
      '  path: ./apps/plain',
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
      '  components:',
      '    - ../../components/extra',
      '  dependsOn:',
      '    - name: missing-one',
      '  postBuild:',
      '    substituteFrom:',
      '      - kind: ConfigMap',
      '        name: cluster-vars',
      '      - kind: Secret',
      '        name: cluster-secrets',
      '',
    ].join('\n'),
  ),
  'clusters/dev/vars.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata: {a: b}\n',
  'clusters/dev/secrets/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: flux-system\nsecretGenerator:\n  - name: cluster-secrets\n    envs:\n      - secrets.env\n',
  'apps/plain/a.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n',
  'apps/plain/b.yaml': [
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    '  name: web',
    '  namespace: a',
    'spec:',
    '  chart:',
    '    spec:',
    '      chart: ./charts/web',
    '      sourceRef:',
    '        kind: GitRepository',
    '        name: flux-system',
    '        namespace: flux-system',
    '  dependsOn:',
    '    - name: db',
    '  valuesFrom:',
    '    - kind: ConfigMap',
    '      name: web-values',
    '---',
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    '  name: db',
    '  namespace: a',
    'spec: {}',
    '---',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: web-values',
    '  namespace: a',
    '',
  ].join('\n'),
  'components/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
  'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
  'stray/hr.yaml': 'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: lost\n  namespace: a\nspec:\n  dependsOn:\n    - namespace: a\n      name: db\n',
  'stray/ks.yaml': KS('stray', '  path: ./apps/plain\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  dependsOn:\n    - name: apps\n'),
};

test('fixture: folder without kustomization.yaml, components, substituteFrom and generators', () => {
  const model = new Repo(ROOT, memoryHost(ROOT, FILES)).model();
  const apps = `${ROOT}/clusters/dev/apps.yaml`;
  // Flux generates a kustomization for a plain folder: Go to Definition lists its manifests.
  const plain = definitionAt(model, model.workspace.files.get(apps)!, posOf(model, apps, './apps/plain'));
  assert.deepEqual(plain.map((t) => [t.file, t.folder]), [
    [`${ROOT}/apps/plain/a.yaml`, `${ROOT}/apps/plain`],
    [`${ROOT}/apps/plain/b.yaml`, `${ROOT}/apps/plain`],
  ]);
  assert.deepEqual(def(model, apps, posOf(model, apps, '../../components/extra')), ['components/extra/kustomization.yaml:1']);
  assert.deepEqual(def(model, apps, posOf(model, apps, 'cluster-vars')), ['clusters/dev/vars.yaml:4']);
  // A Secret made by a secretGenerator: its generator entry.
  assert.deepEqual(def(model, apps, posOf(model, apps, 'cluster-secrets')), ['clusters/dev/secrets/kustomization.yaml:5']);
  // A dependsOn naming nothing resolves to nothing (the diagnostics engineer reports it).
  assert.deepEqual(def(model, apps, posOf(model, apps, 'missing-one')), []);
  assert.equal(documentLinks(model, model.workspace.files.get(apps)!).length, 5);
});

test('fixture: HelmRelease dependsOn, valuesFrom and chart folder from a workspace GitRepository', () => {
  const model = new Repo(ROOT, memoryHost(ROOT, FILES)).model();
  const b = `${ROOT}/apps/plain/b.yaml`;
  assert.deepEqual(def(model, b, posOf(model, b, 'db', 'dependsOn')), ['apps/plain/b.yaml:23']);
  assert.deepEqual(def(model, b, posOf(model, b, 'web-values', 'valuesFrom')), ['apps/plain/b.yaml:30']);
  assert.deepEqual(def(model, b, posOf(model, b, './charts/web')), ['charts/web/Chart.yaml:1']);
  assert.deepEqual(def(model, b, posOf(model, b, 'flux-system', 'sourceRef')), ['clusters/dev/flux-system/gotk-sync.yaml:4']);
  // sourceRef from the Kustomization also lands on the GitRepository, and Find References lists both users.
  const gitRepoRefs = refs(model, `${ROOT}/clusters/dev/flux-system/gotk-sync.yaml`, { line: 3, character: 9 });
  assert.ok(gitRepoRefs.includes('apps/plain/b.yaml:12 chartSourceRef'), gitRepoRefs.join());
  assert.ok(gitRepoRefs.includes('clusters/dev/apps.yaml:10 sourceRef'), gitRepoRefs.join());
  assert.deepEqual(refs(model, b, posOf(model, b, 'db', 'name: db')), ['apps/plain/b.yaml:15 dependsOn', 'clusters/dev/apps.yaml:7 applies', 'stray/hr.yaml:9 dependsOn'].sort());
});

test('fixture: objects no cluster applies (a Kustomization outside the bootstrap tree included) still navigate; unsaved buffers are followed', () => {
  const repo = new Repo(ROOT, memoryHost(ROOT, FILES));
  const stray = `${ROOT}/stray/ks.yaml`;
  let model = repo.model();
  // The cluster is the bootstrap root's tree: the stray Kustomization is not a cluster of its own.
  assert.deepEqual(model.clusters.map((c) => c.name), ['dev']);
  assert.deepEqual(model.unapplied.map((o) => o.name).sort(), ['lost', 'stray']);
  const lost = `${ROOT}/stray/hr.yaml`;
  assert.deepEqual(def(model, lost, posOf(model, lost, 'db')), ['apps/plain/b.yaml:23']);
  assert.deepEqual(def(model, stray, posOf(model, stray, 'apps', 'dependsOn')), ['clusters/dev/apps.yaml:4']);
  assert.deepEqual(def(model, stray, posOf(model, stray, './apps/plain')), ['apps/plain/a.yaml:1', 'apps/plain/b.yaml:1']);
  // Edit (unsaved) the stray Kustomization to depend on flux-system instead.
  repo.setBuffer(stray, repo.workspace.readText(stray)!.replace('- name: apps', '- name: flux-system'));
  model = repo.model();
  assert.deepEqual(def(model, stray, posOf(model, stray, 'flux-system', 'dependsOn')), ['clusters/dev/flux-system/gotk-sync.yaml:12']);
  assert.equal(objectAtOffset(model, model.workspace.files.get(stray)!, 0)?.name, 'stray');
});

test('fixture: bad YAML and non-Flux files give no links and no crash', () => {
  const files = { ...FILES, 'broken.yaml': 'apiVersion: v1\nkind: [unclosed\n', 'clusters/dev/apps.yaml': KS('apps', '  path: 42\n  dependsOn: oops\n  sourceRef: {}\n') };
  const model = new Repo(ROOT, memoryHost(ROOT, files)).model();
  assert.deepEqual(documentLinks(model, model.workspace.files.get(`${ROOT}/broken.yaml`)!), []);
  assert.deepEqual(documentLinks(model, model.workspace.files.get(`${ROOT}/clusters/dev/apps.yaml`)!), []);
  assert.deepEqual(refs(model, `${ROOT}/broken.yaml`, { line: 1, character: 3 }), []);
});

test('every corpus: links resolve to files that exist, and definitions agree with links', () => {
  for (const name of ['flux2-kustomize-helm-example', 'flux2-multi-tenancy', 'flux2-hub-spoke-example', 'flux2-monitoring-example', 'allenporter-k8s-gitops', 'bjw-s-labs-home-ops']) {
    const model = new Repo(`${corpora}/${name}`, diskHost).model();
    let links = 0;
    for (const file of model.workspace.files.values()) {
      for (const link of documentLinks(model, file)) {
        links++;
        assert.ok(model.workspace.hasFile(link.target.file), `${name}: ${link.target.file} (from ${file.path}:${link.range.start.line + 1})`);
        const defs = definitionAt(model, file, link.range.start);
        assert.deepEqual(defs[0], link.target, `${name}: ${file.path}:${link.range.start.line + 1}`);
      }
    }
    assert.ok(links > 10, `${name}: only ${links} links`);
  }
});

test('bjw-s-labs-home-ops: HelmRelease chartRef and Kustomization substituteFrom resolve', () => {
  const root = `${corpora}/bjw-s-labs-home-ops`;
  const model = new Repo(root, diskHost).model();
  const counts = { chartSourceRef: [0, 0], dependsOn: [0, 0], substituteFrom: [0, 0] } as Record<string, [number, number]>;
  for (const file of model.workspace.files.values()) {
    for (const site of referenceSites(model, file)) {
      if (!counts[site.kind]) continue;
      counts[site.kind][0]++;
      if (site.targets.length) counts[site.kind][1]++;
    }
  }
  // Every HelmRelease chart source and every dependsOn in this repo names an object in it.
  assert.ok(counts.chartSourceRef[0] >= 70, JSON.stringify(counts));
  assert.equal(counts.chartSourceRef[1], counts.chartSourceRef[0], JSON.stringify(counts));
  assert.ok(counts.dependsOn[0] > 20, JSON.stringify(counts));
  assert.equal(counts.dependsOn[1], counts.dependsOn[0], JSON.stringify(counts));
});
