/**
 * The last known CRDs per context: on disk (plain JSON, bounded, a corrupt file ignored with a log
 * line) and in the session (switching back shows them before the watch has listed again).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { crdCacheFile, MAX_CONTEXT_FILES, readCachedCrds, writeCachedCrds } from '../../../src/cluster/crdCache';
import { ClusterCrdStore } from '../../../src/cluster/crdStore';
import { servedCrdOf, type ClusterCrds } from '../../../src/core/schema/clusterCrds';
import { crdObject, eventually, fakeCrdClient } from './fakeCrdClient';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-crd-cache-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(tmp, `dir-${n++}`);

const set = (context: string, server: string, ...plurals: string[]): ClusterCrds => ({ context, server, crds: plurals.map((p) => servedCrdOf(crdObject(p))!) });

test('saved per context and server, read back as saved', () => {
  const dir = freshDir();
  const log: string[] = [];
  const prod = set('prod', 'https://prod.example.com', 'widgets', 'gadgets');
  writeCachedCrds(dir, prod, (m) => log.push(m));
  writeCachedCrds(dir, set('staging', 'https://staging.example.com', 'widgets'), (m) => log.push(m));
  assert.deepEqual(readCachedCrds(dir, 'prod', 'https://prod.example.com', (m) => log.push(m)), prod);
  assert.deepEqual(readCachedCrds(dir, 'staging', 'https://staging.example.com', (m) => log.push(m))?.crds.map((c) => c.name), ['widgets.example.com']);
  // The same context name on another server is another cluster; a context never saved has nothing.
  assert.equal(readCachedCrds(dir, 'prod', 'https://other.example.com', (m) => log.push(m)), undefined);
  assert.equal(readCachedCrds(dir, 'dev', 'https://prod.example.com', (m) => log.push(m)), undefined);
  assert.deepEqual(log, []);
  const text = fs.readFileSync(crdCacheFile(dir, 'prod', 'https://prod.example.com'), 'utf8');
  assert.equal(JSON.parse(text).crds.length, 2, 'plain JSON');
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
});

test('a corrupt, wrong-shaped, misplaced or oversized file is ignored with one log line; past the count limit the rest is dropped', () => {
  const dir = freshDir();
  const file = crdCacheFile(dir, 'prod', 'https://prod.example.com');
  const read = (limits?: { count: number; bytes: number }) => {
    const log: string[] = [];
    const crds = readCachedCrds(dir, 'prod', 'https://prod.example.com', (m) => log.push(m), limits);
    return { crds, log };
  };
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(file, '{"context": "prod", "crds": [');
  let r = read();
  assert.equal(r.crds, undefined);
  assert.equal(r.log.length, 1);
  assert.match(r.log[0], /ignored the saved CRDs of context prod .*: not JSON/);

  fs.writeFileSync(file, JSON.stringify({ context: 'prod', server: 'https://prod.example.com', crds: 'all of them' }));
  r = read();
  assert.equal(r.crds, undefined);
  assert.match(r.log[0], /not a set of CRDs/);

  fs.writeFileSync(file, JSON.stringify(set('staging', 'https://prod.example.com', 'widgets')));
  r = read();
  assert.equal(r.crds, undefined);
  assert.match(r.log[0], /saved for another context or server/);

  writeCachedCrds(dir, { context: 'prod', server: 'https://prod.example.com', crds: [servedCrdOf(crdObject('giants', 'example.com', 100_000))!] }, () => undefined);
  r = read({ count: 1000, bytes: 10 });
  assert.equal(r.crds, undefined);
  assert.match(r.log[0], /bytes, over the limit/);
  writeCachedCrds(dir, set('prod', 'https://prod.example.com', 'widgets', 'gadgets', 'things'), () => undefined);
  r = read({ count: 2, bytes: 2 ** 20 });
  assert.deepEqual(r.crds?.crds.map((c) => c.name), ['widgets.example.com', 'gadgets.example.com']);
  assert.deepEqual(r.log, []);
});

test(`at most ${MAX_CONTEXT_FILES} contexts are kept, the least recently saved go first`, () => {
  const dir = freshDir();
  for (let i = 0; i < MAX_CONTEXT_FILES + 2; i++) {
    writeCachedCrds(dir, set(`ctx-${i}`, 'https://k.example.com', 'widgets'), () => undefined);
    const t = new Date(Date.now() - (100 - i) * 1000);
    fs.utimesSync(crdCacheFile(dir, `ctx-${i}`, 'https://k.example.com'), t, t);
  }
  assert.equal(fs.readdirSync(dir).length, MAX_CONTEXT_FILES);
  assert.equal(readCachedCrds(dir, 'ctx-0', 'https://k.example.com', () => undefined), undefined);
  assert.ok(readCachedCrds(dir, `ctx-${MAX_CONTEXT_FILES + 1}`, 'https://k.example.com', () => undefined));
});

test('the store: the watch fills a context, switching back shows its set before the new watch lists, the end of a connection keeps it, a context that cannot load has none', async () => {
  const dir = freshDir();
  const posted: (ClusterCrds | undefined)[] = [];
  const store = new ClusterCrdStore({ cacheDir: dir, log: () => undefined, onChange: (c) => posted.push(c), saveDelayMs: 1, watcher: { debounceMs: 1 } });
  // A call, not the property: an assertion on one value must not narrow the next read.
  const current = () => store.current;
  try {
    const prod = fakeCrdClient([crdObject('widgets')]);
    store.use({ context: 'prod', server: prod.client.server, client: prod.client });
    await eventually('prod is listed', () => current()?.crds.length === 1);
    assert.equal(current()?.context, 'prod');

    const staging = fakeCrdClient([crdObject('gadgets'), crdObject('things')], { context: 'staging', server: 'https://staging.example.com' });
    store.use({ context: 'staging', server: staging.client.server, client: staging.client });
    assert.equal(current(), undefined, 'nothing known of staging until it is listed');
    await eventually('staging is listed', () => current()?.crds.length === 2);

    // Back to prod with a new connection: its set at once, before a request of the new watch is answered.
    const again = fakeCrdClient([crdObject('widgets'), crdObject('gizmos')]);
    const before = posted.length;
    store.use({ context: 'prod', server: again.client.server, client: again.client });
    assert.equal(posted.length, before + 1);
    assert.deepEqual(current()?.crds.map((c) => c.name), ['widgets.example.com']);
    await eventually('the new watch lists', () => current()?.crds.length === 2);

    // The connection ends: the set stays.
    const last = current();
    store.use(undefined);
    assert.equal(current(), last);
    await eventually('prod is saved', () => readCachedCrds(dir, 'prod', again.client.server, () => undefined)?.crds.length === 2);
    // Another context that could not even be loaded: none, rather than prod's.
    store.forget();
    assert.equal(current(), undefined);
    assert.equal(posted.at(-1), undefined);
  } finally {
    store.dispose();
  }

  // A later session: the saved set, with no request (as in an untrusted workspace, which gives no client).
  const later: (ClusterCrds | undefined)[] = [];
  const log: string[] = [];
  const next = new ClusterCrdStore({ cacheDir: dir, log: (m) => log.push(m), onChange: (c) => later.push(c) });
  next.use({ context: 'prod', server: 'https://prod.example.com' });
  assert.deepEqual(later.map((c) => c?.crds.map((x) => x.name)), [['widgets.example.com', 'gizmos.example.com']]);
  assert.match(log[0], /2 CRD\(s\) of context prod as saved in an earlier session/);
  next.dispose();
});
