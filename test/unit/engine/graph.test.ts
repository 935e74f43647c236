import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TreeItemData } from '../../../src/engine/protocol';
import { fluxRepo, memoryEngine } from './fixture';

const R = '/repo';
const APPS = `${R}/clusters/prod/apps.yaml`;
const fixedApps = () => fluxRepo()['clusters/prod/apps.yaml'].replace('name: infra\n', 'name: infrastructure\n');

test('graph: plain data built in the engine from the model and the checks’ findings', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const graph = await engine.request('graph', { root: R });
  assert.deepEqual(JSON.parse(JSON.stringify(graph)), graph, 'survives structured cloning unchanged');
  assert.deepEqual(
    graph.clusters.map((c) => [c.name, c.root]),
    [['prod', 'Kustomization/flux-system/flux-system']],
  );
  const c = graph.clusters[0];
  const typo = c.edges.find((e) => e.type === 'dependsOn');
  assert.deepEqual([typo?.from, typo?.to, typo?.problem?.rule], ['Kustomization/flux-system/apps', 'Kustomization/flux-system/infra', 'depends-on-not-found']);
  assert.equal(c.nodes.find((n) => n.id === 'Kustomization/flux-system/infra')?.missing, true);
  assert.ok(c.nodes.some((n) => n.kind === 'GitRepository'));

  const bare = await engine.request('graph', { root: R, sources: false });
  assert.ok(bare.clusters[0].nodes.every((n) => n.kind === 'Kustomization' || n.kind === 'HelmRelease'));
  assert.ok(bare.clusters[0].edges.every((e) => e.type !== 'source'));
  assert.deepEqual(await engine.request('graph', { root: R, cluster: 'staging' }), { clusters: [] });
  await assert.rejects(engine.request('graph', { root: '/elsewhere' }), /not an open folder/);
});

test('graph follows an editor buffer: fixing the dependsOn removes the missing node and the problem', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  assert.ok((await engine.request('graph', { root: R })).clusters[0].nodes.some((n) => n.missing));
  engine.setBuffer(APPS, fixedApps());
  const c = (await engine.request('graph', { root: R })).clusters[0];
  assert.ok(!c.nodes.some((n) => n.missing));
  const dep = c.edges.find((e) => e.type === 'dependsOn');
  assert.deepEqual([dep?.to, dep?.problem], ['Kustomization/flux-system/infrastructure', undefined]);
});

test('graphLive: node states from the posted snapshot, nothing when not connected', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  assert.deepEqual(await engine.request('graphLive', { root: R }), {});
  engine.input({
    type: 'live',
    snapshot: { connected: true, statuses: [{ kind: 'Kustomization', namespace: 'flux-system', name: 'apps', state: 'NotReady', message: 'boom' }], syncedKinds: ['Kustomization'] },
  });
  const live = await engine.request('graphLive', { root: R });
  assert.deepEqual(live.prod['Kustomization/flux-system/apps'], { state: 'NotReady', message: 'boom' });
  // Listed kind without the object: Absent, as the tree says. A kind never listed: no state.
  assert.equal(live.prod['Kustomization/flux-system/infrastructure']?.state, 'Absent');
  assert.equal(live.prod['HelmRelease/default/podinfo'], undefined);
  // A missing dependency is no object at all.
  assert.equal(live.prod['Kustomization/flux-system/infra'], undefined);
});

test('graphNodesAt a position: the object’s own node, or the Kustomization applying it', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const at = (file: string, line: number, text?: string) => engine.request('graphNodesAt', { file, position: { line, character: 2 }, text });
  assert.deepEqual(await at(APPS, 3), { root: R, nodes: ['Kustomization/flux-system/apps'] });
  assert.deepEqual(await at(APPS, 16), { root: R, nodes: ['Kustomization/flux-system/infrastructure'] });
  // Namespace defaulted as Flux defaults it, matching the node's id.
  assert.deepEqual(await at(`${R}/apps/release.yaml`, 3), { root: R, nodes: ['HelmRelease/default/podinfo'] });
  assert.deepEqual(await at(`${R}/apps/cm.yaml`, 3), { root: R, nodes: ['Kustomization/flux-system/apps'] });
  // Not applied by any cluster (ignored by .sourceignore): nothing to highlight.
  assert.equal(await at(`${R}/docs/example.yaml`, 3), undefined);
  // The editor's text is what counts: a rename is the renamed node at once.
  const renamed = fluxRepo()['clusters/prod/apps.yaml'].replace('name: apps\n', 'name: apps2\n');
  assert.deepEqual(await at(APPS, 3, renamed), { root: R, nodes: ['Kustomization/flux-system/apps2'] });
});

test('graphNodesAt a tree item: a cluster names its graph, an object its node; still answered after an edit', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const items = await walk(engine, undefined);
  const byLabel = (label: string) => items.find((i) => i.label === label)!;
  const cluster = items.find((i) => i.contextValue === 'cluster')!;
  assert.deepEqual(await engine.request('graphNodesAt', { treeItem: cluster.id }), { root: R, cluster: 'prod', nodes: ['Kustomization/flux-system/flux-system'] });
  assert.deepEqual(await engine.request('graphNodesAt', { treeItem: byLabel('podinfo').id }), { root: R, nodes: ['HelmRelease/default/podinfo'] });
  assert.deepEqual(await engine.request('graphNodesAt', { treeItem: byLabel('settings').id }), { root: R, nodes: ['Kustomization/flux-system/apps'] });
  // An edit forgets the listed items; the cluster item (the context-menu command's argument) is found again.
  engine.setBuffer(APPS, fixedApps());
  assert.deepEqual(await engine.request('graphNodesAt', { treeItem: cluster.id }), { root: R, cluster: 'prod', nodes: ['Kustomization/flux-system/flux-system'] });
  assert.equal(await engine.request('graphNodesAt', { treeItem: 'no such item' }), undefined);
});

test('multi-root: each folder has its own graph, and a selection names its folder', async () => {
  const { engine } = memoryEngine({ '/a': fluxRepo('east'), '/b': fluxRepo('west') });
  assert.deepEqual((await engine.request('graph', { root: '/a' })).clusters.map((c) => c.name), ['east']);
  assert.deepEqual((await engine.request('graph', { root: '/b' })).clusters.map((c) => c.name), ['west']);
  const sel = await engine.request('graphNodesAt', { file: '/b/clusters/west/apps.yaml', position: { line: 3, character: 2 } });
  assert.deepEqual(sel, { root: '/b', nodes: ['Kustomization/flux-system/apps'] });
  const clusters = (await walk(engine, undefined)).filter((i) => i.contextValue === 'cluster');
  const west = clusters.find((i) => i.label === 'west')!;
  assert.equal((await engine.request('graphNodesAt', { treeItem: west.id }))?.root, '/b');
});

test('graphNodesAt a tree item while builds are coming in: the model moved on, the item is still found', async () => {
  const { engine } = memoryEngine({ '/a': fluxRepo('east'), '/b': fluxRepo('west') });
  const west = (await walk(engine, undefined)).find((i) => i.contextValue === 'cluster' && i.label === 'west')!;
  // What a build round does between the tree's listing and its end: each folder's model is rebuilt
  // with the new builds, and the tree is told only once the round is over.
  for (const folder of (engine as unknown as { folders: { repo: { invalidate(): void } }[] }).folders) folder.repo.invalidate();
  assert.deepEqual(await engine.request('graphNodesAt', { treeItem: west.id }), { root: '/b', cluster: 'west', nodes: ['Kustomization/flux-system/flux-system'] });
  // The tree listed afresh holds the new models' nodes: expanding works again.
  const roots = await engine.request('treeChildren', {});
  assert.ok((await engine.request('treeChildren', { id: roots[1].id })).some((i) => i.label === 'west'));
});

async function walk(engine: ReturnType<typeof memoryEngine>['engine'], id: string | undefined): Promise<TreeItemData[]> {
  const out: TreeItemData[] = [];
  for (const item of await engine.request('treeChildren', { id })) {
    out.push(item, ...(item.collapsible === 'none' ? [] : await walk(engine, item.id)));
  }
  return out;
}
