/**
 * Every HelmRelease whose chart is at hand rendered into the model (src/engine/helmRefine.ts): from
 * a real chart of ../shared/charts put in a chart cache (never fetched) or a workspace chart, with
 * helm as WebAssembly (dist/wasm). What the chart installs is in the tree, its own CRDs make it a
 * CRD provider (a chart the known-charts table lacks included), and a render is kept until its
 * inputs change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../src/engine/engine';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { diskHost } from '../../../src/node/fsHost';
import { checkModel } from '../../../src/core/checks/index';
import { KNOWN_CHARTS } from '../../../src/core/checks/knownCharts';
import { childrenOf, present, rootNodes, type TreeNode } from '../../../src/core/tree/viewModel';
import { treeJson, treeText } from '../../../src/core/tree/treeData';
import type { HelmReleaseNode, RepoModel } from '../../../src/core/model/graph';
import { chartCache, folderOf, gotkSync, helmReleaseYaml, helmRepositoryYaml, helmTmp, ks, refined, sha256, writeChartFolder, writeFiles } from './helmFixture';

const tmp = helmTmp();

/**
 * external-dns installs DNSEndpoint from its crds/ folder; `records` applies one without waiting
 * for `dns`, which applies the HelmRelease. `podinfo` is a workspace chart.
 */
function writeRepo(name: string, extraHrSpec = ''): string {
  const root = path.join(tmp.dir, name);
  const files: Record<string, string> = {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': `${ks('dns', '  path: ./dns\n')}---\n${ks('records', '  path: ./records\n')}---\n${ks('web', '  path: ./web\n')}`,
    'dns/release.yaml': `${helmRepositoryYaml('charts')}---\n${helmReleaseYaml('external-dns', 'network', 'external-dns', extraHrSpec, { repo: 'charts', version: '1.21.1' })}`,
    'records/endpoint.yaml': `apiVersion: externaldns.k8s.io/v1alpha1
kind: DNSEndpoint
metadata:
  name: home
  namespace: network
spec:
  endpoints: []
`,
    'web/release.yaml': helmReleaseYaml('podinfo', 'web', './charts/podinfo', '  values:\n    replicaCount: 2\n'),
  };
  writeFiles(root, files);
  writeChartFolder(root, 'podinfo-6.14.1.tgz');
  return root.split(path.sep).join('/');
}

function hrOf(model: RepoModel, name: string): HelmReleaseNode {
  const hr = model.clusters[0].helmReleases.find((h) => h.applied.name === name);
  assert.ok(hr, `HelmRelease ${name}`);
  return hr;
}

function crdOrder(model: RepoModel): string[] {
  return checkModel(model)
    .diagnostics.filter((d) => d.rule === 'crd-order')
    .map((d) => d.message.split('\n')[0]);
}

/** The tree node of a HelmRelease, found from the cluster down. */
function treeNodeOf(model: RepoModel, name: string): TreeNode {
  const stack = rootNodes(model).flatMap((n) => (n.type === 'cluster' ? childrenOf(n) : []));
  while (stack.length) {
    const n = stack.shift()!;
    if (n.type === 'flux' && n.applied.kind === 'HelmRelease' && n.applied.name === name) return n;
    if (n.type === 'flux' && n.applied.kind === 'Kustomization') stack.push(...childrenOf(n));
  }
  assert.fail(`no tree node for ${name}`);
}

test('a CRD chart the known-charts table lacks is a CRD provider once its chart is at hand', { timeout: 300_000 }, async () => {
  assert.equal(KNOWN_CHARTS['external-dns'], undefined, 'the fixture needs a chart the table lacks');
  const root = writeRepo('provider');

  // Not at hand: the provider is unknown, so nothing is said (the old behaviour, and the fallback).
  const without = folderOf(root, null);
  await refined(without);
  const bare = without.model();
  assert.deepEqual(crdOrder(bare), []);
  const missing = hrOf(bare, 'external-dns').install;
  assert.ok(missing && !missing.ok && !missing.atHand, JSON.stringify(missing));
  assert.match(missing.message, /chart external-dns@1\.21\.1 from http:\/\/charts\.invalid\/ is not in the workspace/);
  const bareTip = present(treeNodeOf(bare, 'external-dns'), bare).tooltip ?? '';
  assert.match(bareTip, /Not rendered: chart external\\-dns\\@1\\.21\\.1 from .* is not in the workspace.*no chart cache is read/);
  assert.match(bareTip, /CRDs it installs unknown \(its chart is not in the known-charts table\)/);
  const bareJson = treeJson(bare).helmReleases;
  assert.deepEqual(bareJson.find((h) => h.name === 'external-dns')?.installs, null);
  assert.equal(bareJson.find((h) => h.name === 'external-dns')?.chart, null);
  assert.equal(bareJson.find((h) => h.name === 'podinfo')?.chart?.from, 'workspace', 'a workspace chart needs no chart cache');

  // In the chart cache: rendered, and its crds/ folder provides DNSEndpoint.
  const cache = chartCache(tmp.dir, 'cache-provider', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  const withChart = folderOf(root, cache);
  assert.equal((await refined(withChart)).rendered, 2, 'external-dns from the cache, podinfo from the workspace');
  const model = withChart.model();
  const install = hrOf(model, 'external-dns').install;
  assert.ok(install?.ok, JSON.stringify(install));
  assert.equal(install.chart.name, 'external-dns');
  assert.equal(install.chart.from, 'chart cache');
  assert.deepEqual(
    install.crds.map((c) => c.metadata.name),
    ['dnsendpoints.externaldns.k8s.io'],
  );
  assert.ok(install.objects.some((o) => o.kind === 'Deployment' && o.metadata.namespace === 'network'));
  const findings = crdOrder(model);
  assert.equal(findings.length, 1, findings.join('\n'));
  assert.match(findings[0], /^DNSEndpoint home needs CRD externaldns\.k8s\.io from HelmRelease network\/external-dns: add dependsOn dns/);
  const detail = checkModel(model).diagnostics.find((d) => d.rule === 'crd-order')!.message;
  assert.match(detail, /chart external-dns 1\.21\.1: CRD DNSEndpoint\.externaldns\.k8s\.io, rendered/);
});

test('install.crds: Skip leaves the crds/ folder out; the tree shows what each release installs', { timeout: 300_000 }, async () => {
  const root = writeRepo('skip', '  install:\n    crds: Skip\n');
  const cache = chartCache(tmp.dir, 'cache-skip', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  const f = folderOf(root, cache);
  await refined(f);
  const model = f.model();
  assert.deepEqual(crdOrder(model), [], 'no CRD is installed, so none is missing either');

  const dns = treeNodeOf(model, 'external-dns');
  const dnsGroups = childrenOf(dns).map((n) => present(n, model).label);
  assert.ok(!dnsGroups.includes('CRDs'), dnsGroups.join(','));
  assert.ok(dnsGroups.includes('Deployment'), dnsGroups.join(','));

  const web = treeNodeOf(model, 'podinfo');
  const shown = present(web, model);
  assert.equal(shown.collapsible, 'collapsed');
  assert.match(shown.description ?? '', /· 2 objects$/);
  assert.match(shown.tooltip ?? '', /Rendered: chart podinfo 6\\\.14\\\.1 \(workspace chart, `sha256:[0-9a-f]{12}`\), Kubernetes 1\\\.33\\\.0 \(no version pinned/);
  const groups = childrenOf(web);
  assert.deepEqual(
    groups.map((g) => `${present(g, model).label} ${present(g, model).description} ${present(g, model).collapsible}`),
    ['Service 1 collapsed', 'Deployment 1 collapsed'],
  );
  const [deployment] = childrenOf(groups[1]);
  const item = present(deployment, model);
  assert.equal(item.label, 'podinfo');
  assert.equal(item.description, 'Deployment · web');
  assert.equal(item.contextValue, 'resource:Deployment:helm');
  assert.ok(item.location?.file.endsWith('/charts/podinfo/templates/deployment.yaml'), item.location?.file);

  const json = treeJson(model).helmReleases;
  assert.deepEqual(json.find((h) => h.name === 'podinfo')?.installs, ['Service/web/podinfo', 'Deployment/web/podinfo']);
  assert.deepEqual(json.find((h) => h.name === 'external-dns')?.chart, { name: 'external-dns', version: '1.21.1', from: 'chart cache', digest: (hrOf(model, 'external-dns').install as { chart: { digest: string } }).chart.digest, kubeVersion: '1.33.0' });
  assert.ok(treeText(model).includes('│   └── HelmRelease/web/podinfo\n│       ├── Service/web/podinfo\n│       └── Deployment/web/podinfo\n'), treeText(model));
});

test('a render is kept until its inputs change, and only that HelmRelease is rendered again', { timeout: 300_000 }, async () => {
  const root = writeRepo('cache');
  const chart = chartCache(tmp.dir, 'cache-rerender', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  const builds = new MemoryBuildCache();
  const f = folderOf(root, chart, builds);
  assert.equal((await refined(f)).rendered, 2);
  const first = hrOf(f.model(), 'podinfo').install;
  assert.deepEqual((await refined(f)).renders, [], 'nothing changed');

  // A folder opened again with the same build cache (a persisted one, say) renders nothing.
  const reopened = folderOf(root, chart, builds);
  const warm = await refined(reopened);
  assert.equal(warm.rendered, 0);
  assert.ok(hrOf(reopened.model(), 'external-dns').install?.ok);

  // An edit elsewhere keeps every render.
  const endpoint = `${root}/records/endpoint.yaml`;
  f.repo.setBuffer(endpoint, fs.readFileSync(endpoint, 'utf8').replace('name: home', 'name: office'));
  assert.deepEqual((await refined(f)).renders, []);
  assert.equal(hrOf(f.model(), 'podinfo').install, first, 'the very same install');

  // A value of one HelmRelease: that one alone; its last render stands until the new one is in.
  const replicas = (install: HelmReleaseNode['install']) => (install?.ok ? (install.objects.find((o) => o.kind === 'Deployment')?.spec as { replicas?: number })?.replicas : undefined);
  const release = `${root}/web/release.yaml`;
  f.repo.setBuffer(release, fs.readFileSync(release, 'utf8').replace('replicaCount: 2', 'replicaCount: 3'));
  await f.refine({ allowNetwork: false });
  assert.equal(replicas(hrOf(f.model(), 'podinfo').install), 2, 'stale while its render is pending');
  const again = await f.refineHelm({});
  assert.deepEqual(again?.renders.map((r) => r.name), ['web/podinfo']);
  assert.equal(replicas(hrOf(f.model(), 'podinfo').install), 3);

  // A file of the workspace chart: its digest changes, so its release is rendered again.
  fs.appendFileSync(`${root}/charts/podinfo/templates/extra.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n');
  f.repo.fileChanged(`${root}/charts/podinfo/templates/extra.yaml`);
  const chartEdit = await refined(f);
  assert.deepEqual(chartEdit.renders.map((r) => r.name), ['web/podinfo']);
  assert.ok((hrOf(f.model(), 'podinfo').install as any).objects.some((o: any) => o.kind === 'ConfigMap' && o.metadata.name === 'extra'));

});

test('the engine sends what the HelmRelease renders change once they are done; check waits for them', { timeout: 300_000 }, async () => {
  const root = writeRepo('engine');
  const cacheDir = chartCache(tmp.dir, 'cache-engine', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  const engine = new Engine({ host: diskHost, builds: true, debounceMs: 0, charts: { cacheDir }, buildOptions: () => ({ sha256, remotes: ['https://example.com/fleet.git'], checkout: { branch: 'main' } }) });
  const published: string[][] = [];
  engine.onEvent((e) => {
    if (e.type === 'diagnostics') published.push(e.files.flatMap((f) => f.diagnostics.map((d) => `${path.basename(f.file)} ${d.rule}`)));
  });
  engine.open([root]);
  await engine.refined();
  // The builds' publication finds nothing (external-dns is not in the known-charts table and not
  // rendered yet), so the first diagnostics sent are the renders'.
  assert.deepEqual(published, [['endpoint.yaml crd-order']]);
  const check = await engine.request('check', { root });
  assert.deepEqual(
    check.diagnostics.filter((d) => d.rule === 'crd-order').map((d) => path.basename(d.file)),
    ['endpoint.yaml'],
  );
  engine.dispose();
});

test('refinedBuilds settles with the Kustomization builds, before the HelmRelease renders (build ks does not wait for charts)', { timeout: 300_000 }, async () => {
  const root = writeRepo('builds-first');
  const cacheDir = chartCache(tmp.dir, 'cache-builds-first', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  const engine = new Engine({ host: diskHost, builds: true, debounceMs: 0, charts: { cacheDir }, buildOptions: () => ({ sha256, remotes: ['https://example.com/fleet.git'], checkout: { branch: 'main' } }) });
  engine.open([root]);
  await engine.refinedBuilds();
  const installs = async () => (await engine.request('treeJson', { root })).helmReleases.map((h) => `${h.name} ${h.installs === null ? 'pending' : 'rendered'}`).sort();
  const builds = await engine.request('treeJson', { root });
  assert.ok(builds.kustomizations.length >= 3);
  assert.deepEqual(await installs(), ['external-dns pending', 'podinfo pending']);
  await engine.refined();
  assert.deepEqual(await installs(), ['external-dns rendered', 'podinfo rendered']);
  engine.dispose();
});

test("a chart's templated CRDs are installed whatever install.crds says; a cached entry of another shape is rendered again", { timeout: 300_000 }, async () => {
  const root = path.join(tmp.dir, 'templated').split(path.sep).join('/');
  const files: Record<string, string> = {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': `${ks('operator', '  path: ./operator\n')}---\n${ks('widgets', '  path: ./widgets\n')}`,
    'operator/release.yaml': `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: widget-operator
  namespace: widgets
spec:
  interval: 1h
  install:
    crds: Skip
  chart:
    spec:
      chart: ./charts/widget-operator
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
`,
    'widgets/widget.yaml': 'apiVersion: example.io/v1\nkind: Widget\nmetadata:\n  name: blue\n  namespace: widgets\n',
    'charts/widget-operator/Chart.yaml': 'apiVersion: v2\nname: widget-operator\nversion: 0.1.0\n',
    'charts/widget-operator/values.yaml': 'crds:\n  enabled: true\n',
    'charts/widget-operator/templates/crd.yaml': `{{- if .Values.crds.enabled }}
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
{{- end }}
`,
  };
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const builds = new MemoryBuildCache();
  const f = folderOf(root, null, builds);
  await refined(f);
  const findings = crdOrder(f.model());
  assert.equal(findings.length, 1, findings.join('\n'));
  assert.match(findings[0], /^Widget blue needs CRD example\.io from HelmRelease widgets\/widget-operator: add dependsOn operator/);
  const groups = childrenOf(treeNodeOf(f.model(), 'widget-operator')).map((n) => `${present(n, f.model()).label} ${present(n, f.model()).description}`);
  assert.deepEqual(groups, ['CRDs 1']);

  // An entry of another shape (another version's, a hand edit) is dropped and rendered again.
  for (const key of [...(builds as unknown as { entries: Map<string, unknown> }).entries.keys()]) if (key.startsWith('helm:')) builds.set(key, { reads: {}, value: { install: { ok: true } } });
  const reopened = folderOf(root, null, builds);
  assert.equal((await refined(reopened)).rendered, 1);
  assert.equal(crdOrder(reopened.model()).length, 1);
});
