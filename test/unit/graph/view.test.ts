import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkModel } from '../../../src/core/checks/index';
import { buildDependencyGraph, type ClusterGraph } from '../../../src/core/graph/index';
import { expansionsFor, viewOf, type GraphView, type ViewOptions } from '../../../src/core/graph/view';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { generateRepo } from '../../../bench/generate';
import { memoryRepo } from '../helpers';

const FIXTURE = path.resolve(__dirname, '../../fixtures/graph/problems');

function clusterOf(repo: Repo): ClusterGraph {
  const model = repo.model();
  return buildDependencyGraph(model, checkModel(model).diagnostics).clusters[0];
}

const options = (o: Partial<ViewOptions> = {}): ViewOptions => ({ sources: true, groupBy: 'parent', threshold: 300, expanded: new Set(), ...o });

function assertConsistent(view: GraphView): void {
  const ids = new Set(view.nodes.map((n) => n.id));
  assert.equal(ids.size, view.nodes.length, 'unique view nodes');
  for (const e of view.edges) assert.ok(ids.has(e.first) && ids.has(e.then), `edge ${e.first} -> ${e.then} ends at drawn nodes`);
}

let generated: ClusterGraph | undefined;
function generatedCluster(): ClusterGraph {
  return (generated ??= clusterOf(memoryRepo(generateRepo().files)));
}

test('small graphs are drawn whole, edges in Flux order', () => {
  const c = clusterOf(new Repo(FIXTURE, diskHost));
  const view = viewOf(c, options());
  assert.equal(view.grouped, false);
  assert.equal(view.nodes.length, c.nodes.length);
  assertConsistent(view);
  // "a dependsOn b" is drawn b -> a: the dependency first.
  assert.ok(view.edges.some((e) => e.type === 'dependsOn' && e.first === 'Kustomization/flux-system/b' && e.then === 'Kustomization/flux-system/a'));
  const noSources = viewOf(c, options({ sources: false }));
  assert.ok(noSources.nodes.every((n) => n.node && /^(Kustomization|HelmRelease)$/.test(n.node.kind)));
  assert.ok(noSources.edges.every((e) => e.type !== 'source'));
});

test('past the threshold, what a Kustomization applies folds into a group; problems stay visible', () => {
  const c = clusterOf(new Repo(FIXTURE, diskHost));
  const view = viewOf(c, options({ threshold: 4, sources: false }));
  assert.equal(view.grouped, true);
  assertConsistent(view);
  const platform = view.nodes.find((n) => n.id === 'group:Kustomization/flux-system/platform');
  assert.deepEqual(platform?.group, { key: 'Kustomization/flux-system/platform', label: 'applied by platform', size: 1, kinds: { HelmRelease: 1 }, problems: 0 });
  // The crd-order problem on platform -> kube-prometheus-stack is kept on the merged edge.
  const folded = view.edges.find((e) => e.first === 'Kustomization/flux-system/platform' && e.then === platform!.id);
  assert.equal(folded?.problem?.rule, 'crd-order');
  // Opening the group shows the HelmRelease itself.
  const opened = viewOf(c, options({ threshold: 4, sources: false, expanded: new Set(['Kustomization/flux-system/platform']) }));
  assert.ok(opened.nodes.some((n) => n.id === 'HelmRelease/monitoring/kube-prometheus-stack'));
  assertConsistent(opened);
});

test('generated 2,000-Kustomization repo: folded under the threshold, expandable to any node', () => {
  const c = generatedCluster();
  assert.ok(c.nodes.length > 2400, `${c.nodes.length} nodes`);
  const view = viewOf(c, options({ threshold: 250 }));
  assert.equal(view.grouped, true);
  assert.ok(view.nodes.length <= 250, `${view.nodes.length} drawn`);
  assert.ok(view.nodes.length > 20);
  assertConsistent(view);
  assert.ok(view.nodes.some((n) => n.id === c.root));
  const grouped = view.nodes.filter((n) => n.group).reduce((s, n) => s + n.group!.size, 0);
  const hidden = c.nodes.length - view.nodes.filter((n) => n.node).length;
  assert.ok(grouped <= hidden && grouped > 2000, `${grouped} folded of ${hidden} hidden`);
  // The group chain g00 -> g01 -> … stays drawn between groups.
  assert.ok(view.edges.some((e) => e.type === 'dependsOn' && e.first === 'Kustomization/flux-system/g00' && e.then === 'Kustomization/flux-system/g01'));
  // Search reveals a deep node by opening its ancestors.
  const deep = c.nodes.filter((n) => n.kind === 'HelmRelease').at(-1)!;
  assert.ok(!view.nodes.some((n) => n.id === deep.id));
  const expanded = new Set(expansionsFor(c, deep.id, 'parent'));
  const revealed = viewOf(c, options({ threshold: 250, expanded }));
  assert.ok(revealed.nodes.some((n) => n.id === deep.id), `${deep.id} drawn after opening ${[...expanded].join(', ')}`);
  assertConsistent(revealed);
});

test('grouping by namespace folds every namespace but the root one', () => {
  const c = generatedCluster();
  const view = viewOf(c, options({ threshold: 250, groupBy: 'namespace' }));
  assertConsistent(view);
  const rootNs = c.nodes.find((n) => n.id === c.root)!.namespace;
  assert.ok(view.nodes.every((n) => (n.node ? n.node.namespace === rootNs : n.id.startsWith('ns:'))));
  const other = c.nodes.find((n) => n.namespace !== rootNs)!;
  const opened = viewOf(c, options({ threshold: 250, groupBy: 'namespace', expanded: new Set(expansionsFor(c, other.id, 'namespace')) }));
  assert.ok(opened.nodes.some((n) => n.id === other.id));
});
