import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileDiagnostics, TreeItemData } from '../../../src/engine/protocol';
import { fluxRepo, memoryEngine } from './fixture';

const R = '/repo';

test('first index publishes diagnostics per file, as plain data', () => {
  const { events } = memoryEngine({ [R]: fluxRepo() });
  const published = events.filter((e) => e.type === 'diagnostics').flatMap((e) => (e as { files: FileDiagnostics[] }).files);
  const apps = published.find((f) => f.file === `${R}/clusters/prod/apps.yaml`);
  assert.ok(apps, 'apps.yaml has diagnostics');
  const d = apps.diagnostics.find((x) => x.rule === 'depends-on-not-found');
  assert.ok(d, JSON.stringify(apps.diagnostics));
  assert.equal(d.range.start.line, 8);
  assert.deepEqual(JSON.parse(JSON.stringify(apps)), apps, 'survives structured cloning unchanged');
  const status = events.filter((e) => e.type === 'status').at(-1);
  assert.ok(status?.type === 'status' && !status.status.indexing && status.status.folders[0].clusters[0] === 'prod');
});

test('an edit republishes only the files whose diagnostics changed; fixing clears the file', () => {
  const { engine, events } = memoryEngine({ [R]: fluxRepo() });
  events.length = 0;
  const file = `${R}/clusters/prod/apps.yaml`;
  engine.setBuffer(file, fluxRepo()['clusters/prod/apps.yaml'].replace('name: infra\n', 'name: infrastructure\n'));
  const files = events.filter((e) => e.type === 'diagnostics').flatMap((e) => (e as { files: FileDiagnostics[] }).files);
  // The fixture's Kustomizations leave out interval and prune: those schema findings stay, the edit clears the rest.
  assert.deepEqual(
    files.map((f) => ({ file: f.file, diagnostics: f.diagnostics.map((d) => d.rule).filter((r) => !r.startsWith('schema-')) })),
    [{ file, diagnostics: [] }],
  );
});

test('quick fixes come back as text edits tied to the diagnostic they fix', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const file = `${R}/clusters/prod/apps.yaml`;
  const fixes = await engine.request('codeActions', { file, range: { start: { line: 8, character: 0 }, end: { line: 8, character: 20 } } });
  const fix = fixes.find((f) => f.preferred);
  assert.ok(fix, JSON.stringify(fixes));
  assert.equal(fix.diagnostic?.rule, 'depends-on-not-found');
  assert.equal(fix.edits[0].newText, 'infrastructure');
  // Every finding can also be ignored, by a comment above its line or for the file; never preferred.
  const ignores = fixes.filter((f) => f.title.startsWith('Ignore depends-on-not-found'));
  assert.deepEqual(ignores.map((f) => [f.title, f.preferred, f.diagnostic?.rule]), [
    ['Ignore depends-on-not-found on this line', false, 'depends-on-not-found'],
    ['Ignore depends-on-not-found in this file', false, 'depends-on-not-found'],
  ]);
  assert.match(ignores[0].edits[0].newText, /^ *# gitops-preview: ignore depends-on-not-found -- /);
});

test('namespace defaulting is decided once: targets, file targets and tree items agree', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const targets = await engine.request('targets', { kind: 'HelmRelease' });
  // Written without a namespace, applied by a Kustomization without targetNamespace: the API server's default.
  assert.deepEqual(
    targets.map((t) => [t.kind, t.namespace, t.name, t.cluster]),
    [['HelmRelease', 'default', 'podinfo', 'prod']],
  );
  const inFile = await engine.request('fileTargets', { file: `${R}/apps/release.yaml` });
  assert.deepEqual(inFile, [{ kind: 'HelmRelease', namespace: 'default', name: 'podinfo', line: 0, applied: true }]);
  const items = await walk(engine, undefined);
  const hr = items.find((i) => i.label === 'podinfo');
  assert.deepEqual(hr?.target, { kind: 'HelmRelease', namespace: 'default', name: 'podinfo', cluster: 'prod' });
});

test('definition, references and objectAt answer with locations, never model objects', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const file = `${R}/clusters/prod/apps.yaml`;
  const def = await engine.request('definition', { file, position: { line: 6, character: 10 } });
  assert.deepEqual(
    def.map((d) => d.file),
    [`${R}/apps/cm.yaml`, `${R}/apps/release.yaml`],
  );
  const at = await engine.request('objectAt', { file, position: { line: 3, character: 9 } });
  assert.deepEqual(at?.ref, { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' });
  assert.deepEqual(at?.applied.map((a) => a.cluster), ['prod']);
  const refs = await engine.request('references', { file: `${R}/apps/cm.yaml`, position: { line: 3, character: 8 }, includeDeclaration: false });
  assert.ok(refs.some((r) => r.file === file && r.why === 'applies'), JSON.stringify(refs));
});

test('a query carrying the editor text sees that text (one way for buffers to reach the model)', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const file = `${R}/clusters/prod/apps.yaml`;
  const edited = fluxRepo()['clusters/prod/apps.yaml'].replace('path: ./apps', 'path: ./infra');
  const def = await engine.request('definition', { file, position: { line: 6, character: 10 }, text: edited });
  assert.deepEqual(
    def.map((d) => d.file),
    [`${R}/infra/ns.yaml`],
  );
  assert.deepEqual(JSON.parse(JSON.stringify(def)), def, 'plain data');
});

test('revealing: treePath returns items from a root down to the object', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const path = await engine.request('treePath', { file: `${R}/apps/release.yaml`, position: { line: 3, character: 8 } });
  assert.deepEqual(
    path.map((i) => i.label),
    ['prod', 'flux-system', 'apps', 'podinfo'],
  );
  // The same ids the tree hands out, so the editor's reveal finds them.
  const roots = await engine.request('treeChildren', {});
  assert.equal(path[0].id, roots[0].id);
});

test('each change carries the tree\'s top level, the same items treeChildren lists, and an edit sends the new one', async () => {
  const { engine, events } = memoryEngine({ [R]: fluxRepo() });
  const rootsOf = () => events.filter((e) => e.type === 'changed').map((e) => (e as { treeRoots?: TreeItemData[] }).treeRoots);
  const sent = rootsOf().at(-1);
  assert.ok(sent?.length, 'the first index sends the top level');
  assert.deepEqual(sent, await engine.request('treeChildren', {}));
  // The items sent are held by the engine: their children can be asked for.
  assert.ok((await engine.request('treeChildren', { id: sent[0].id })).length > 0);
  events.length = 0;
  const file = `${R}/clusters/prod/flux-system/gotk-sync.yaml`;
  const text = fluxRepo()['clusters/prod/flux-system/gotk-sync.yaml'];
  engine.setBuffer(file, text.replace(/path: \.\/clusters\/prod/, 'path: ./clusters/nowhere'));
  const after = rootsOf().at(-1);
  assert.ok(after, 'the edit sends a top level');
  assert.notDeepEqual(after, sent);
  assert.deepEqual(after, await engine.request('treeChildren', {}));
});

test('multi-root: one repository per folder, each a top-level tree node; folders without Flux objects are left out', async () => {
  const { engine } = memoryEngine({ '/ws/fleet-a': fluxRepo('alpha'), '/ws/fleet-b': fluxRepo('beta'), '/ws/docs': { 'README.yaml': 'title: not flux\n' } });
  const roots = await engine.request('treeChildren', {});
  assert.deepEqual(
    roots.map((r) => [r.label, r.contextValue]),
    [
      ['fleet-a', 'folder'],
      ['fleet-b', 'folder'],
    ],
  );
  const clusters = await Promise.all(roots.map((r) => engine.request('treeChildren', { id: r.id })));
  assert.deepEqual(
    clusters.map((c) => c.map((i) => i.label)),
    [['alpha'], ['beta']],
  );
  // A folder's clusters are listed even when the tree was reset after the editor got its top level
  // and no change followed (the editor asks with the folder id it holds).
  (engine as unknown as { tree: { reset(): void } }).tree.reset();
  assert.deepEqual((await engine.request('treeChildren', { id: roots[1].id })).map((i) => i.label), ['beta']);
  const targets = await engine.request('targets', { name: 'apps' });
  assert.deepEqual(
    targets.map((t) => `${t.root}:${t.cluster}`),
    ['/ws/fleet-a:alpha', '/ws/fleet-b:beta'],
  );
  const status = await engine.request('status', {});
  assert.deepEqual(
    status.folders.map((f) => f.root),
    ['/ws/fleet-a', '/ws/fleet-b'],
  );
});

test('live status from a posted snapshot decorates tree items and lists cluster-only objects', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  engine.input({
    type: 'live',
    snapshot: {
      connected: true,
      statuses: [
        { kind: 'Kustomization', namespace: 'flux-system', name: 'apps', state: 'Ready' },
        { kind: 'Kustomization', namespace: 'flux-system', name: 'only-in-cluster', state: 'NotReady' },
      ],
      syncedKinds: ['Kustomization'],
    },
  });
  const items = await walk(engine, undefined);
  assert.equal(items.find((i) => i.label === 'apps')?.contextValue, 'flux:Kustomization:inCluster:ready');
  assert.equal(items.find((i) => i.label === 'infrastructure')?.contextValue, 'flux:Kustomization:absent');
  assert.deepEqual(
    (await engine.request('clusterOnly', {})).map((s) => s.name),
    ['only-in-cluster'],
  );
});

async function walk(engine: ReturnType<typeof memoryEngine>['engine'], id: string | undefined): Promise<TreeItemData[]> {
  const out: TreeItemData[] = [];
  for (const item of await engine.request('treeChildren', { id })) {
    out.push(item, ...(item.collapsible === 'none' ? [] : await walk(engine, item.id)));
  }
  return out;
}
