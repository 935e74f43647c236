import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { treeJson, type TreeNodeEntry } from '../../../src/core/tree/treeData';
import { corpusRepo, CORPORA } from '../helpers';

const FLUX_GROUPS: Record<string, string> = {
  Kustomization: 'kustomize.toolkit.fluxcd.io',
  HelmRelease: 'helm.toolkit.fluxcd.io',
  GitRepository: 'source.toolkit.fluxcd.io',
  OCIRepository: 'source.toolkit.fluxcd.io',
  HelmRepository: 'source.toolkit.fluxcd.io',
  HelmChart: 'source.toolkit.fluxcd.io',
  Bucket: 'source.toolkit.fluxcd.io',
};

/**
 * An independent, line-based count of Flux object documents (not the model's parser): top-level
 * `apiVersion:`/`kind:` lines per `---`-separated document, outside Helm chart folders.
 */
function scanFluxDocs(root: string): Set<string> {
  const found = new Set<string>();
  const walk = (dir: string, inChart: boolean) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    const chart = inChart || entries.some((e) => e.name === 'Chart.yaml');
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, chart);
      else if (!chart && /\.ya?ml$/.test(e.name)) {
        const docs = fs.readFileSync(p, 'utf8').split(/^---\s*$/m);
        for (const d of docs) {
          const kind = /^kind:\s*(\S+)/m.exec(d)?.[1];
          const api = /^apiVersion:\s*(\S+)/m.exec(d)?.[1];
          if (kind && api && FLUX_GROUPS[kind] && api.startsWith(FLUX_GROUPS[kind] + '/')) {
            found.add(`${kind} ${path.relative(root, p)}`);
          }
        }
      }
    }
  };
  walk(root, false);
  return found;
}

/** Each corpus opened as a clone of its repository (origin = its GitHub URL). */
const EXPECTED: Record<string, { clusters: string[]; kustomizations: number; helmReleases: number; sources: Record<string, number>; unapplied: number }> = {
  'flux2-kustomize-helm-example': { clusters: ['production', 'staging'], kustomizations: 8, helmReleases: 6, sources: { GitRepository: 2, HelmRepository: 2, OCIRepository: 4 }, unapplied: 0 },
  'flux2-multi-tenancy': { clusters: ['production', 'staging'], kustomizations: 12, helmReleases: 0, sources: { GitRepository: 4, OCIRepository: 2 }, unapplied: 0 },
  // One Flux (the hub); the spokes are API servers the hub's Kustomizations reach through spec.kubeConfig.
  'flux2-hub-spoke-example': { clusters: ['hub'], kustomizations: 9, helmReleases: 6, sources: { GitRepository: 1, HelmRepository: 6 }, unapplied: 0 },
  'flux2-monitoring-example': { clusters: ['test'], kustomizations: 3, helmReleases: 3, sources: { GitRepository: 1, HelmRepository: 1, OCIRepository: 1 }, unapplied: 0 },
  // The flux-instance HelmRelease syncs kubernetes/flux/cluster: its root flux-system and the sync GitRepository.
  'bjw-s-labs-home-ops': { clusters: ['cluster'], kustomizations: 94, helmReleases: 79, sources: { GitRepository: 1, OCIRepository: 79 }, unapplied: 0 },
  // 12 HelmReleases under devcontainers/prod/workspaces are not listed in that folder's kustomization.yaml.
  'allenporter-k8s-gitops': { clusters: ['prod'], kustomizations: 16, helmReleases: 31, sources: { GitRepository: 1, HelmRepository: 23, OCIRepository: 1 }, unapplied: 12 },
  // FluxInstance (flux-instance chart) syncs setup/flux/cluster: flux-repositories and cluster-apps are one cluster.
  'billimek-k8s-gitops': { clusters: ['cluster'], kustomizations: 3, helmReleases: 74, sources: { GitRepository: 1, OCIRepository: 34 }, unapplied: 0 },
  // One FluxInstance per cluster folder; tenants' Kustomizations and sources come from ResourceSets.
  'controlplaneio-fluxcd-d2-fleet': { clusters: ['prod-eu', 'prod-us', 'staging', 'update'], kustomizations: 27, helmReleases: 4, sources: { GitRepository: 2, OCIRepository: 20 }, unapplied: 0 },
  // Three FluxInstances; apps commented out of their kustomization.yaml (grafana, rtlamr2mqtt on utility, games) are unapplied.
  'joryirving-home-ops': { clusters: ['main', 'test', 'utility'], kustomizations: 253, helmReleases: 206, sources: { GitRepository: 4, OCIRepository: 207 }, unapplied: 21 },
};

for (const [corpus, expected] of Object.entries(EXPECTED)) {
  test(`${corpus}: clusters and counts per kind`, () => {
    const json = treeJson(corpusRepo(corpus).model());
    assert.deepEqual(json.clusters.map((c) => c.name), expected.clusters);
    assert.equal(json.kustomizations.length, expected.kustomizations);
    assert.equal(json.helmReleases.length, expected.helmReleases);
    const sources: Record<string, number> = {};
    for (const s of json.sources) sources[s.kind] = (sources[s.kind] ?? 0) + 1;
    assert.deepEqual(sources, expected.sources);
    assert.equal(json.unapplied.length, expected.unapplied);
  });

  test(`${corpus}: every Flux object document is in the tree, applied, unapplied or a kustomize patch`, () => {
    const repo = corpusRepo(corpus);
    const model = repo.model();
    const json = treeJson(model);
    const root = path.join(CORPORA, corpus);
    const listed = new Set<string>();
    for (const e of [...json.kustomizations, ...json.helmReleases, ...json.sources, ...json.unapplied]) listed.add(`${e.kind} ${e.file}`);
    const patches = new Set([...model.patchFiles].map((p) => path.relative(root, p)));
    const missing = [...scanFluxDocs(root)].filter((k) => !listed.has(k) && !patches.has(k.slice(k.indexOf(' ') + 1)));
    assert.deepEqual(missing, []);
  });
}

function shape(node: TreeNodeEntry): unknown {
  const flux = node.children.filter((c) => c.kind === 'Kustomization' || c.kind === 'HelmRelease');
  return { [`${node.kind}/${node.namespace}/${node.name}`]: flux.map(shape) };
}

test('flux2-kustomize-helm-example: full parent/child structure per cluster', () => {
  const json = treeJson(corpusRepo('flux2-kustomize-helm-example').model());
  const expectedCluster = (appsHr: string) => ({
    'Kustomization/flux-system/flux-system': [
      { 'Kustomization/flux-system/apps': [{ [appsHr]: [] }] },
      {
        'Kustomization/flux-system/infra-controllers': [
          { 'HelmRelease/cert-manager/cert-manager': [] },
          { 'HelmRelease/envoy-gateway-system/envoy-gateway': [] },
        ],
      },
      { 'Kustomization/flux-system/infra-configs': [] },
    ],
  });
  for (const cluster of json.clusters) {
    assert.deepEqual(shape(cluster.root), expectedCluster('HelmRelease/podinfo/podinfo'), cluster.name);
  }
  const apps = json.kustomizations.filter((k) => k.name === 'apps');
  assert.deepEqual(apps.map((k) => [k.cluster, k.path, k.sourceRef, k.dependsOn]), [
    ['production', './production', 'ExternalArtifact/flux-system/apps', ['flux-system/infra-configs']],
    ['staging', './staging', 'ExternalArtifact/flux-system/apps', ['flux-system/infra-configs']],
  ]);
  const staging = json.kustomizations.find((k) => k.cluster === 'staging' && k.name === 'apps')!;
  assert.deepEqual(staging.applies, ['HelmRepository/podinfo/podinfo', 'HelmRelease/podinfo/podinfo']);
  assert.equal(staging.file, 'clusters/staging/apps.yaml');
  assert.equal(staging.line, 2);
});

test('flux2-multi-tenancy: the tenant GitRepository (this URL, branch dev-team) is another source, never the workspace', () => {
  // Checked out on main: the ref differs. Checkout unknown: taking it for the workspace would make
  // dev-team apply its own appliers (path ./), so it is external too. Either way both clusters stay.
  for (const checkout of [{ branch: 'main', commit: 'a'.repeat(40) }, undefined]) {
    const model = corpusRepo('flux2-multi-tenancy', { checkout }).model();
    assert.deepEqual(model.clusters.map((c) => c.name), ['production', 'staging']);
    for (const cluster of model.clusters) {
      const devTeam = cluster.kustomizations.find((k) => k.applied.name === 'dev-team')!;
      assert.equal(devTeam.source.kind, 'external', devTeam.source.description);
      assert.equal(devTeam.applies.length, 0);
      assert.equal(devTeam.applied.namespace, 'apps');
    }
    const description = model.clusters[0].kustomizations.find((k) => k.applied.name === 'dev-team')!.source.description;
    assert.match(description, checkout ? /branch dev-team: the same repository at another ref than this workspace's branch main/ : /would make it apply its own Kustomization/);
  }
  // Checked out on dev-team, the tenant repository is this workspace (and ./ is its root).
  const onDevTeam = corpusRepo('flux2-multi-tenancy', { checkout: { branch: 'dev-team', commit: 'b'.repeat(40) } }).model();
  const devTeam = onDevTeam.clusters[0].kustomizations.find((k) => k.applied.name === 'dev-team')!;
  assert.equal(devTeam.source.kind, 'external', 'applying ./ would still apply its own appliers from this checkout');
});

test('joryirving-home-ops: three FluxInstance clusters, ${CLUSTER} paths from the parent ConfigMap, namespaces from replacements', () => {
  const model = corpusRepo('joryirving-home-ops').model();
  const json = treeJson(model);
  for (const cluster of model.clusters) {
    const root = cluster.root;
    assert.equal(`${root.applied.namespace}/${root.applied.name}`, 'flux-system/flux-system');
    assert.equal(root.applied.object.origin?.kind, 'HelmRelease');
    assert.equal(root.path, `kubernetes/clusters/${cluster.name}`);
    assert.deepEqual(root.sources.map((s) => `${s.kind}/${s.applied.namespace}/${s.applied.name}`).slice(0, 1), ['GitRepository/flux-system/flux-system']);
    assert.deepEqual(root.children.map((k) => k.applied.name), ['cluster-apps', 'flux-instance']);
    const cilium = cluster.kustomizations.find((k) => k.applied.name === 'cilium-config')!;
    assert.equal(cilium.path, `kubernetes/apps/${cluster.name}/kube-system/cilium`);
    assert.ok(cilium.applies.length > 0);
    // Every HelmRelease sits under the Kustomization that applies it, in its targetNamespace.
    for (const hr of cluster.helmReleases) assert.ok(hr.applied.appliedBy?.helmReleases.includes(hr));
  }
  const main = model.clusters.find((c) => c.name === 'main')!;
  const es = main.helmReleases.find((h) => h.applied.name === 'external-secrets')!;
  assert.equal(es.applied.namespace, 'external-secrets');
  assert.equal(es.applied.appliedBy?.applied.name, 'external-secrets');
  // Kustomizations commented out of utility's kustomization.yaml are listed, not clusters.
  const unapplied = json.unapplied.filter((u) => u.kind === 'Kustomization').map((u) => `${u.name} ${u.file}`);
  assert.deepEqual(unapplied, ['rtlamr2mqtt kubernetes/apps/utility/home-automation/rtlamr2mqtt.yaml', 'grafana kubernetes/apps/utility/observability/grafana.yaml', 'grafana-instance kubernetes/apps/utility/observability/grafana.yaml']);
  const sync = json.sources.find((s) => s.cluster === 'main' && s.kind === 'GitRepository' && s.name === 'flux-system')!;
  assert.equal(sync.file, 'kubernetes/clusters/main/flux-instance/helmrelease.yaml');
  assert.deepEqual([sync.root, sync.rootOrigin], ['.', 'bootstrap']);
});

test('billimek-k8s-gitops: one cluster, every HelmRelease under cluster-apps', () => {
  const json = treeJson(corpusRepo('billimek-k8s-gitops').model());
  assert.equal(json.clusters.length, 1);
  const root = json.clusters[0].root;
  assert.deepEqual(shape(root), {
    'Kustomization/flux-system/flux-system': [{ 'Kustomization/flux-system/flux-repositories': [] }, { 'Kustomization/flux-system/cluster-apps': Array(74).fill(null).map((_, i) => shape(root.children.find((c) => c.name === 'cluster-apps')!.children.filter((c) => c.kind === 'HelmRelease')[i])) }],
  });
  assert.equal(json.helmReleases.filter((h) => h.cluster === 'cluster').length, 74);
});

test('d2-fleet: one cluster per folder, sync OCIRepository not missing, ResourceSet tenants expanded', () => {
  const model = corpusRepo('controlplaneio-fluxcd-d2-fleet').model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => shape(c.root)).slice(0, 1), [
    {
      'Kustomization/flux-system/flux-system': [
        {
          'Kustomization/flux-system/tenants': [
            { 'Kustomization/frontend/apps': [] },
            { 'Kustomization/backend/apps': [] },
            { 'Kustomization/cert-manager/infra-controllers': [] },
            { 'Kustomization/cert-manager/infra-configs': [] },
            { 'Kustomization/monitoring/infra-controllers': [] },
            { 'Kustomization/monitoring/infra-configs': [] },
          ],
        },
        { 'HelmRelease/flux-system/flux-operator': [] },
      ],
    },
  ]);
  const prodEu = model.clusters[0];
  const tenants = prodEu.kustomizations.find((k) => k.applied.name === 'tenants')!;
  assert.equal(tenants.source.kind, 'view');
  // `${ENVIRONMENT}` in the ResourceSet's inputs, substituted by tenants from flux-runtime-info.
  const frontend = prodEu.kustomizations.find((k) => k.applied.namespace === 'frontend')!;
  assert.equal(frontend.path, 'production');
  assert.equal(frontend.source.kind, 'external');
  const staging = model.clusters.find((c) => c.name === 'staging')!;
  assert.equal(staging.kustomizations.find((k) => k.applied.namespace === 'frontend')!.path, 'staging');
  const source = json.sources.find((s) => s.cluster === 'prod-eu' && s.name === 'flux-system')!;
  assert.deepEqual([source.kind, source.file, source.root], ['OCIRepository', 'clusters/prod-eu/flux-system/flux-instance.yaml', '.']);
});

test('bjw-s-labs-home-ops: kustomize `namespace:` gives app Kustomizations their namespace; dependsOn defaults to it', () => {
  const model = corpusRepo('bjw-s-labs-home-ops').model();
  const webui = model.clusters[0].kustomizations.find((k) => k.applied.name === 'open-webui')!;
  assert.equal(webui.applied.namespace, 'ai');
  assert.deepEqual(webui.dependsOn.map((d) => `${d.namespace}/${d.name}`), ['system/kopiur', 'database/dragonfly-operator']);
  assert.ok(webui.helmReleases.some((h) => h.applied.name === 'open-webui' && h.applied.namespace === 'ai'));
});
