import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkModel } from '../../../src/core/checks/index';
import { buildDependencyGraph, type ClusterGraph, type DependencyGraph } from '../../../src/core/graph/index';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { CORPORA, corpusRepo } from '../helpers';

const FIXTURE = path.resolve(__dirname, '../../fixtures/graph/problems');

function graphOf(repo: Repo, options = {}): DependencyGraph {
  const model = repo.model();
  return buildDependencyGraph(model, checkModel(model).diagnostics, options);
}

function fixture(): ClusterGraph {
  const graph = graphOf(new Repo(FIXTURE, diskHost));
  assert.equal(graph.clusters.length, 1);
  return graph.clusters[0];
}

const edge = (c: ClusterGraph, type: string, from: string, to: string) => c.edges.find((e) => e.type === type && e.from === from && e.to === to);

function assertWellFormed(c: ClusterGraph): void {
  const ids = new Set(c.nodes.map((n) => n.id));
  assert.equal(ids.size, c.nodes.length, `duplicate node ids in ${c.name}`);
  assert.ok(ids.has(c.root), `root ${c.root} is a node of ${c.name}`);
  for (const n of c.nodes) {
    assert.equal(n.id, `${n.kind}/${n.namespace}/${n.name}`);
    assert.ok(n.line >= 1 && !path.isAbsolute(n.file), `${n.id}: ${n.file}:${n.line}`);
  }
  for (const e of c.edges) assert.ok(ids.has(e.from) && ids.has(e.to), `edge ${e.from} -> ${e.to} in ${c.name} ends at a node`);
  const keys = c.edges.map((e) => `${e.type}|${e.from}|${e.to}`);
  assert.equal(new Set(keys).size, keys.length, `duplicate edges in ${c.name}`);
}

test('fixture: applies, dependsOn and source edges in Flux terms', () => {
  const c = fixture();
  assertWellFormed(c);
  assert.equal(c.root, 'Kustomization/flux-system/flux-system');
  for (const ks of ['a', 'b', 'apps', 'infra-configs', 'infra-controllers', 'platform']) {
    assert.ok(edge(c, 'applies', c.root, `Kustomization/flux-system/${ks}`), `root applies ${ks}`);
  }
  assert.ok(edge(c, 'applies', 'Kustomization/flux-system/apps', 'HelmRelease/apps/frontend'));
  // A HelmRelease's dependsOn defaults to its own namespace.
  const hrDep = edge(c, 'dependsOn', 'HelmRelease/apps/frontend', 'HelmRelease/apps/backend');
  assert.ok(hrDep && !hrDep.problem);
  // The Kustomization's sourceRef namespace defaults to its own; the chart sourceRef to the HelmRelease's.
  assert.ok(edge(c, 'source', 'Kustomization/flux-system/apps', 'GitRepository/flux-system/flux-system'));
  assert.ok(edge(c, 'source', 'HelmRelease/apps/frontend', 'HelmRepository/apps/charts'));
  // Sources are not `applies` targets: applies is Kustomization -> Kustomization/HelmRelease only.
  assert.ok(!c.edges.some((e) => e.type === 'applies' && !/^(Kustomization|HelmRelease)\//.test(e.to)));
  assert.equal(c.nodes.find((n) => n.id === 'Kustomization/flux-system/apps')?.file, 'clusters/test/apps.yaml');
  assert.equal(c.nodes.find((n) => n.id === 'HelmRelease/apps/frontend')?.line, 24);
});

test('fixture: cycle edges carry the depends-on-cycle finding', () => {
  const c = fixture();
  for (const [from, to] of [['a', 'b'], ['b', 'a']]) {
    const e = edge(c, 'dependsOn', `Kustomization/flux-system/${from}`, `Kustomization/flux-system/${to}`);
    assert.equal(e?.problem?.rule, 'depends-on-cycle', `${from} -> ${to}`);
    assert.match(e!.problem!.message, /dependsOn cycle flux-system\/\w -> flux-system\/\w -> flux-system\/\w/);
  }
  // Edges outside the cycle stay clean.
  assert.equal(edge(c, 'dependsOn', 'Kustomization/flux-system/apps', 'Kustomization/flux-system/infra-configs')?.problem, undefined);
});

test('fixture: a missing dependency is a missing node at the dependsOn entry, its edge marked', () => {
  const c = fixture();
  const missing = c.nodes.find((n) => n.id === 'Kustomization/flux-system/databases');
  assert.deepEqual(missing, {
    id: 'Kustomization/flux-system/databases',
    kind: 'Kustomization',
    name: 'databases',
    namespace: 'flux-system',
    file: 'clusters/test/apps.yaml',
    line: 15,
    missing: true,
  });
  const e = edge(c, 'dependsOn', 'Kustomization/flux-system/apps', 'Kustomization/flux-system/databases');
  assert.equal(e?.problem?.rule, 'depends-on-not-found');
  assert.match(e!.problem!.message, /dependency 'flux-system\/databases' not found/);
  assert.equal(c.nodes.filter((n) => n.missing).length, 1);
});

test('fixture: CRD-before-CR problems become the lacking dependsOn, or mark the applies edge', () => {
  const c = fixture();
  const absent = edge(c, 'dependsOn', 'Kustomization/flux-system/infra-configs', 'Kustomization/flux-system/infra-controllers');
  assert.equal(absent?.absent, true);
  assert.equal(absent?.problem?.rule, 'crd-order');
  assert.match(absent!.problem!.message, /ClusterIssuer letsencrypt/);
  // One Kustomization applies both the chart and its custom resource: its applies edge is marked.
  const same = edge(c, 'applies', 'Kustomization/flux-system/platform', 'HelmRelease/monitoring/kube-prometheus-stack');
  assert.equal(same?.problem?.rule, 'crd-order');
  assert.equal(same?.absent, undefined);
  // The Kustomization applying the custom resource lists the finding with its file and line.
  const configs = c.nodes.find((n) => n.id === 'Kustomization/flux-system/infra-configs');
  assert.deepEqual(
    configs?.problems?.map((p) => [p.rule, p.file, p.line]),
    [['crd-order', 'infra/configs/issuer.yaml', 2]],
  );
  assert.equal(c.edges.filter((e) => e.absent).length, 1);
});

test('without sources: no source nodes and no source edges', () => {
  const c = graphOf(new Repo(FIXTURE, diskHost), { sources: false }).clusters[0];
  assertWellFormed(c);
  assert.ok(c.nodes.every((n) => n.kind === 'Kustomization' || n.kind === 'HelmRelease'));
  assert.ok(c.edges.every((e) => e.type !== 'source'));
  assert.ok(edge(c, 'dependsOn', 'Kustomization/flux-system/a', 'Kustomization/flux-system/b'));
});

test('the graph follows an unsaved edit: a fixed dependsOn clears the missing node', () => {
  const repo = new Repo(FIXTURE, diskHost);
  assert.ok(graphOf(repo).clusters[0].nodes.some((n) => n.missing));
  const file = `${FIXTURE}/clusters/test/apps.yaml`;
  repo.setBuffer(file, fs.readFileSync(file, 'utf8').replace('name: databases', 'name: platform'));
  const c = graphOf(repo).clusters[0];
  assert.ok(!c.nodes.some((n) => n.missing));
  assert.ok(edge(c, 'dependsOn', 'Kustomization/flux-system/apps', 'Kustomization/flux-system/platform'));
});

test('bjw-s-labs-home-ops: known dependsOn edges across namespaces', () => {
  const graph = graphOf(corpusRepo('bjw-s-labs-home-ops'));
  const c = graph.clusters.find((x) => x.name === 'cluster'); // the FluxInstance's bootstrap root
  assert.ok(c, `clusters: ${graph.clusters.map((x) => x.name)}`);
  assertWellFormed(c);
  // kubernetes/apps/ai/litellm/ks.yaml: dependsOn dragonfly-operator (database) and litellm-operator (ai).
  for (const to of ['Kustomization/database/dragonfly-operator', 'Kustomization/ai/litellm-operator']) {
    assert.ok(edge(c, 'dependsOn', 'Kustomization/ai/litellm', to), `litellm dependsOn ${to}`);
  }
  assert.ok(c.edges.filter((e) => e.type === 'dependsOn').length > 50);
  assert.ok(c.nodes.filter((n) => n.kind === 'HelmRelease').length > 50);
});

test('every corpus: well-formed graphs, and every dependsOn and crd-order finding is drawn', () => {
  const names = fs.readdirSync(CORPORA).filter((n) => fs.statSync(path.join(CORPORA, n)).isDirectory());
  assert.ok(names.length >= 5, `corpora in ${CORPORA}`);
  let drawn = 0;
  for (const name of names) {
    const model = corpusRepo(name).model();
    const diagnostics = checkModel(model).diagnostics;
    const graph = buildDependencyGraph(model, diagnostics);
    graph.clusters.forEach(assertWellFormed);
    const edges = graph.clusters.flatMap((c) => c.edges);
    const nodes = graph.clusters.flatMap((c) => c.nodes);
    for (const d of diagnostics) {
      if (d.rule === 'depends-on-cycle' || d.rule === 'depends-on-not-found' || d.rule === 'depends-on-kind') {
        assert.ok(edges.some((e) => e.problem?.message === d.message), `${name}: no edge shows ${d.rule} at ${d.file}:${d.range.start.line + 1}`);
        drawn++;
      }
      if (d.rule === 'crd-order') {
        // A finding merged from several places is drawn once per place, each with its own message.
        const messages = new Set((d.places ?? [d]).map((x) => x.message));
        assert.ok(nodes.some((n) => n.problems?.some((p) => messages.has(p.message))), `${name}: no node shows crd-order at ${d.file}:${d.range.start.line + 1}`);
        drawn++;
      }
    }
  }
  assert.ok(drawn > 10, `findings drawn: ${drawn}`);
});
