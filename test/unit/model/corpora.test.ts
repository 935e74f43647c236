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

const EXPECTED: Record<string, { clusters: string[]; kustomizations: number; helmReleases: number; sources: Record<string, number>; unapplied: number }> = {
  'flux2-kustomize-helm-example': { clusters: ['production', 'staging'], kustomizations: 8, helmReleases: 6, sources: { GitRepository: 2, HelmRepository: 2, OCIRepository: 4 }, unapplied: 0 },
  'flux2-multi-tenancy': { clusters: ['production', 'staging'], kustomizations: 12, helmReleases: 0, sources: { GitRepository: 4, OCIRepository: 2 }, unapplied: 0 },
  'flux2-hub-spoke-example': { clusters: ['hub'], kustomizations: 9, helmReleases: 6, sources: { GitRepository: 1, HelmRepository: 6 }, unapplied: 0 },
  'flux2-monitoring-example': { clusters: ['test'], kustomizations: 3, helmReleases: 3, sources: { GitRepository: 1, HelmRepository: 1, OCIRepository: 1 }, unapplied: 0 },
  'bjw-s-labs-home-ops': { clusters: ['cluster-apps'], kustomizations: 93, helmReleases: 79, sources: { OCIRepository: 79 }, unapplied: 0 },
  // 12 HelmReleases under devcontainers/prod/workspaces are not listed in that folder's kustomization.yaml.
  'allenporter-k8s-gitops': { clusters: ['prod'], kustomizations: 16, helmReleases: 31, sources: { GitRepository: 1, HelmRepository: 23, OCIRepository: 1 }, unapplied: 12 },
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

test('flux2-multi-tenancy: tenant Kustomization from an external GitRepository is shown, not guessed', () => {
  const model = corpusRepo('flux2-multi-tenancy').model();
  const production = model.clusters.find((c) => c.name === 'production')!;
  const devTeam = production.kustomizations.find((k) => k.applied.name === 'dev-team')!;
  assert.equal(devTeam.source.kind, 'external');
  assert.equal(devTeam.applies.length, 0);
  assert.equal(devTeam.applied.namespace, 'apps');
});

test('bjw-s-labs-home-ops: kustomize `namespace:` gives app Kustomizations their namespace; dependsOn defaults to it', () => {
  const model = corpusRepo('bjw-s-labs-home-ops').model();
  const webui = model.clusters[0].kustomizations.find((k) => k.applied.name === 'open-webui')!;
  assert.equal(webui.applied.namespace, 'ai');
  assert.deepEqual(webui.dependsOn.map((d) => `${d.namespace}/${d.name}`), ['system/kopiur', 'database/dragonfly-operator']);
  assert.ok(webui.helmReleases.some((h) => h.applied.name === 'open-webui' && h.applied.namespace === 'ai'));
});
