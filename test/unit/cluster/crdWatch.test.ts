/** The CRD watcher: one paged list and one watch, bounded by count and bytes, quiet (one log line) when refused. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crdBytes, CrdWatcher } from '../../../src/cluster/crdWatch';
import { servedCrdOf } from '../../../src/core/schema/clusterCrds';
import { crdObject, eventually, fakeCrdClient } from './fakeCrdClient';

const many = (n: number, size = 0) => Array.from({ length: n }, (_, i) => crdObject(`things${i}s`, 'example.com', size));

test('lists in pages, then watches from the list: added, changed and deleted CRDs reach the set', async () => {
  const fake = fakeCrdClient(many(60));
  let changes = 0;
  const watcher = new CrdWatcher(fake.client, { pageSize: 25, debounceMs: 1, onChange: () => changes++ });
  watcher.start();
  try {
    assert.equal(await watcher.whenSynced(5000), true);
    await eventually('the watch is open', () => fake.requests.length === 4);
    assert.deepEqual(fake.requests, [
      'list customresourcedefinitions limit=25 continue=',
      'list customresourcedefinitions limit=25 continue=25',
      'list customresourcedefinitions limit=25 continue=50',
      'watch customresourcedefinitions rv=7',
    ]);
    assert.equal(watcher.crds().length, 60);
    // Only the served schemas are kept, not the object's metadata.
    assert.deepEqual(Object.keys(watcher.crds()[0]), ['name', 'group', 'kind', 'versions']);
    await eventually('the list is announced', () => changes === 1);

    fake.emit('ADDED', crdObject('widgets'));
    const changed = crdObject('things0s');
    changed.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.colour = { type: 'string' };
    fake.emit('MODIFIED', changed);
    fake.emit('DELETED', crdObject('things1s'));
    await eventually('the events are announced', () => changes === 2);
    const names = watcher.crds().map((c) => c.name);
    assert.ok(names.includes('widgets.example.com') && !names.includes('things1s.example.com'));
    assert.ok('colour' in (watcher.crds().find((c) => c.name === 'things0s.example.com')!.versions[0].schema as any).properties.spec.properties);
    assert.equal(fake.requests.length, 4, 'no request per CRD');
  } finally {
    watcher.stop();
  }
});

test('past the count limit the rest is not fetched, and a log line says so', async () => {
  const fake = fakeCrdClient(many(100));
  const log: string[] = [];
  const watcher = new CrdWatcher(fake.client, { pageSize: 25, limits: { count: 30, bytes: 2 ** 30 }, log: (m) => log.push(m) });
  watcher.start();
  try {
    assert.equal(await watcher.whenSynced(5000), true);
    assert.equal(watcher.crds().length, 30);
    assert.equal(fake.requests.filter((r) => r.startsWith('list')).length, 2);
    assert.equal(log.length, 1);
    assert.match(log[0], /context prod serves more CRDs than are kept \(at most 30 CRDs, 1024 MB of schemas\): 30 kept/);
    // A new CRD beyond the limit is dropped too, without another line for the same state.
    fake.emit('ADDED', crdObject('widgets'));
    assert.ok(!watcher.crds().some((c) => c.name === 'widgets.example.com'));
  } finally {
    watcher.stop();
  }
});

test('past the byte limit CRDs are dropped; a changed CRD that no longer fits is not kept stale', async () => {
  const crds = many(5, 10_000);
  const one = crdBytes(servedCrdOf(crds[0])!);
  const fake = fakeCrdClient(crds);
  const log: string[] = [];
  const watcher = new CrdWatcher(fake.client, { limits: { count: 1000, bytes: Math.floor(one * 2.5) }, log: (m) => log.push(m) });
  watcher.start();
  try {
    assert.equal(await watcher.whenSynced(5000), true);
    assert.deepEqual(watcher.crds().map((c) => c.name), ['things0s.example.com', 'things1s.example.com']);
    assert.equal(log.length, 1);
    fake.emit('MODIFIED', crdObject('things1s', 'example.com', 30_000));
    assert.deepEqual(watcher.crds().map((c) => c.name), ['things0s.example.com']);
  } finally {
    watcher.stop();
  }
});

test('a user who may not list CRDs gets none: one log line however often it is retried, and no error thrown', async () => {
  const fake = fakeCrdClient(many(3), { forbidden: true });
  const log: string[] = [];
  const watcher = new CrdWatcher(fake.client, { refusedRetryMs: 5, log: (m) => log.push(m) });
  watcher.start();
  try {
    await eventually('retried', () => fake.requests.length >= 4);
    assert.equal(watcher.synced, false);
    assert.deepEqual(watcher.crds(), []);
    assert.deepEqual(log, ['[cluster] CRDs of context prod not read (Forbidden: user u cannot list resource "customresourcedefinitions"); custom resources are judged without them']);
  } finally {
    watcher.stop();
  }
});
