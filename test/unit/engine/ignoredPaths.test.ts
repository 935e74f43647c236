import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineClient } from '../../../src/engine/client';
import { localTransport } from '../../../src/engine/serve';
import type { ToEngine } from '../../../src/engine/protocol';
import { fluxRepo, memoryEngine } from './fixture';

const R = '/repo';

/** Every parse starts with a read; identical SourceFile objects prove nothing was re-parsed. */
function snapshot(engine: ReturnType<typeof memoryEngine>['engine']) {
  const files = engine.models()[0].workspace.files;
  return new Map(files);
}

for (const rel of ['.git/index.lock', '.git/objects/ab/cdef', 'node_modules/pkg/x.yaml', 'charts/podinfo/templates/cm.yaml', 'docs/example.yaml', 'docs/new/more.yaml']) {
  test(`a change under an ignored path (${rel}) reads nothing, parses nothing and rebuilds nothing`, () => {
    const { engine, events, host, files } = memoryEngine({ [R]: fluxRepo() });
    const before = snapshot(engine);
    const model = engine.models()[0];
    host.reads.length = 0;
    events.length = 0;
    files.set(`${R}/${rel}`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: changed\n');
    engine.filesChanged([`${R}/${rel}`]);
    assert.deepEqual(host.reads, [], 'no file read');
    const after = snapshot(engine);
    assert.equal(after.size, before.size);
    for (const [path, file] of before) assert.equal(after.get(path), file, `${path} not re-parsed`);
    assert.equal(engine.models()[0], model, 'same model: no rebuild');
    assert.deepEqual(events, [], 'nothing announced');
  });
}

test('the counterpart: a change to a manifest reads and re-parses that file alone', () => {
  const { engine, host, files } = memoryEngine({ [R]: fluxRepo() });
  const before = snapshot(engine);
  host.reads.length = 0;
  const path = `${R}/apps/cm.yaml`;
  files.set(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: renamed\n');
  engine.filesChanged([path]);
  assert.deepEqual([...new Set(host.reads)], [path], 'only that file is read');
  const after = snapshot(engine);
  for (const [p, file] of before) {
    if (p === path) assert.notEqual(after.get(p), file);
    else assert.equal(after.get(p), file, `${p} not re-parsed`);
  }
});

test('the client drops ignored paths before posting: .git, node_modules, and the folders the engine reports', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const transport = localTransport(engine);
  const posted: ToEngine[] = [];
  const client = new EngineClient({ ...transport, post: (m) => (posted.push(m), transport.post(m)) });
  client.open([R]);
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(client.ready);
  assert.ok(client.status.ignoredFolders.includes(`${R}/charts/podinfo/templates`), JSON.stringify(client.status.ignoredFolders));
  assert.ok(client.status.ignoredFolders.includes(`${R}/docs`));
  posted.length = 0;
  client.filesChanged([`${R}/.git/index.lock`, `${R}/node_modules/a/b.yaml`, `${R}/charts/podinfo/templates/x.yaml`, `${R}/docs/a.yaml`]);
  client.buffer(`${R}/.git/COMMIT_EDITMSG`, 'msg');
  assert.deepEqual(posted, []);
  client.filesChanged([`${R}/apps/cm.yaml`]);
  assert.deepEqual(posted, [{ type: 'filesChanged', paths: [`${R}/apps/cm.yaml`] }]);
  client.dispose();
});

test('before the first index, the client answers "still indexing" without posting a request', async () => {
  const { engine } = memoryEngine({ [R]: fluxRepo() });
  const transport = localTransport(engine);
  const posted: ToEngine[] = [];
  const client = new EngineClient({ ...transport, post: (m) => (posted.push(m), transport.post(m)) });
  assert.equal(client.ready, false);
  assert.equal(await client.query('definition', { file: `${R}/apps/cm.yaml`, position: { line: 0, character: 0 } }, 'indexing'), 'indexing');
  assert.deepEqual(posted, []);
  client.dispose();
});
