/** The build cache kept on disk per workspace folder (src/engine/persistentBuildCache.ts). */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { maskSecrets } from '../../../src/core/flux/mask';
import { buildCacheDir, buildCacheVersion, CACHE_FILE, holdsSecretValue, PersistentBuildCache, type PersistentBuildCacheOptions } from '../../../src/engine/persistentBuildCache';
import type { CachedBuild } from '../../../src/engine/buildCache';
import { nodeEngine, openRefined } from '../../../src/engine/node';
import { asCachedRefinement } from '../../../src/engine/cachedRefinement';
import { DEFAULT_MAX_TOTAL_BYTES, maxTotalBytesFromEnv } from '../../../src/engine/buildCacheCap';
import { BASE, writeRepo } from '../hardening/adversarial';
import { checkCli } from '../hardening/cli';

const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-build-cache-test-'));
  made.push(dir);
  return dir;
}

function options(dir: string, more: Partial<PersistentBuildCacheOptions> = {}): PersistentBuildCacheOptions {
  return { dir, version: '1.0.0+abc', workspaceRoots: ['/nonexistent/workspace'], saveDelayMs: 60_000, ...more };
}

const build = (n: number, pad = 0): CachedBuild => ({
  reads: { [`apps/app-${n}/kustomization.yaml`]: 'a'.repeat(64) },
  value: { objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n}` }, data: { k: 'x'.repeat(pad) } }], warnings: [] },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('entries saved by one instance are read back by the next', () => {
  const dir = tmp();
  const a = PersistentBuildCache.open(options(dir));
  a.set('ks/apps', build(1));
  a.set('ks/infra', build(2));
  a.dispose();
  const b = PersistentBuildCache.open(options(dir));
  assert.equal(b.size, 2);
  assert.deepEqual(b.get('ks/apps'), build(1));
  assert.deepEqual(b.get('ks/infra'), build(2));
  assert.equal(b.get('ks/other'), undefined);
});

test('a file of another version (extension or WebAssembly modules) is not reused', () => {
  const dir = tmp();
  const a = PersistentBuildCache.open(options(dir));
  a.set('ks/apps', build(1));
  a.dispose();
  const b = PersistentBuildCache.open(options(dir, { version: '1.0.1+abc' }));
  assert.equal(b.size, 0);
  assert.equal(b.get('ks/apps'), undefined);
});

test('the version names the extension version and the modules key', () => {
  const wasm = tmp();
  fs.writeFileSync(path.join(wasm, 'KEY'), 'deadbeef\n');
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
  assert.equal(buildCacheVersion(wasm), `${pkg.version}+deadbeef`);
  fs.writeFileSync(path.join(wasm, 'KEY'), 'cafe\n');
  assert.notEqual(buildCacheVersion(wasm), `${pkg.version}+deadbeef`);
});

test('holds at most maxBytes, dropping the least recently used first, in memory and on disk', () => {
  const dir = tmp();
  const one = Buffer.byteLength(JSON.stringify(build(1, 1000))) + 20;
  const cache = PersistentBuildCache.open(options(dir, { maxBytes: one * 3 }));
  cache.set('a', build(1, 1000));
  cache.set('b', build(2, 1000));
  cache.set('c', build(3, 1000));
  assert.ok(cache.get('a')); // a is now the most recently used
  cache.set('d', build(4, 1000));
  assert.ok(cache.sizeBytes <= one * 3, `${cache.sizeBytes} > ${one * 3}`);
  assert.equal(cache.get('b'), undefined);
  assert.ok(cache.get('a') && cache.get('c') && cache.get('d'));
  // An entry larger than the whole cache is not kept.
  cache.set('huge', build(5, one * 4));
  assert.equal(cache.get('huge'), undefined);
  cache.dispose();
  const reopened = PersistentBuildCache.open(options(dir, { maxBytes: one * 3 }));
  assert.deepEqual([...['a', 'b', 'c', 'd']].filter((k) => reopened.get(k)), ['a', 'c', 'd']);
  // A smaller cap on reopen keeps the most recently used.
  const smaller = PersistentBuildCache.open(options(dir, { maxBytes: one }));
  assert.equal(smaller.size, 1);
  assert.ok(smaller.get('d'));
});

test('saves are debounced: nothing is written until the quiet period passes, then once', async () => {
  const dir = tmp();
  const cache = PersistentBuildCache.open(options(dir, { saveDelayMs: 80 }));
  const file = path.join(dir, CACHE_FILE);
  cache.set('a', build(1));
  cache.set('b', build(2));
  assert.equal(fs.existsSync(file), false);
  await sleep(20);
  cache.set('c', build(3));
  assert.equal(fs.existsSync(file), false);
  await sleep(300);
  assert.equal(fs.existsSync(file), true);
  const first = fs.statSync(file).mtimeMs;
  await sleep(150);
  assert.equal(fs.statSync(file).mtimeMs, first, 'rewritten without a change');
  assert.equal(PersistentBuildCache.open(options(dir)).size, 3);
});

test('writes atomically: a new file is renamed over the old one, no temp file stays behind', () => {
  const dir = tmp();
  const file = path.join(dir, CACHE_FILE);
  const cache = PersistentBuildCache.open(options(dir));
  cache.set('a', build(1));
  cache.flush();
  const before = fs.statSync(file).ino;
  cache.set('b', build(2));
  cache.flush();
  assert.notEqual(fs.statSync(file).ino, before, 'the file was rewritten in place');
  assert.deepEqual(fs.readdirSync(dir), [CACHE_FILE]);
});

test('a directory that cannot be written is logged, not thrown', () => {
  const parent = tmp();
  fs.writeFileSync(path.join(parent, 'file'), '');
  const logs: string[] = [];
  const cache = PersistentBuildCache.open(options(path.join(parent, 'file', 'cache'), { log: (m) => logs.push(m) }));
  cache.set('a', build(1));
  assert.doesNotThrow(() => cache.dispose());
  assert.match(logs.join('\n'), /could not save/);
  assert.deepEqual(cache.get('a'), build(1));
});

test('a truncated file keeps the complete entries; the cut one is a miss', () => {
  const dir = tmp();
  const cache = PersistentBuildCache.open(options(dir));
  for (let i = 0; i < 5; i++) cache.set(`k${i}`, build(i, 200));
  cache.dispose();
  const file = path.join(dir, CACHE_FILE);
  const text = fs.readFileSync(file, 'utf8');
  fs.writeFileSync(file, text.slice(0, text.length - 150));
  const reopened = PersistentBuildCache.open(options(dir));
  for (let i = 0; i < 4; i++) assert.deepEqual(reopened.get(`k${i}`), build(i, 200));
  assert.equal(reopened.get('k4'), undefined);
});

test('a corrupt file starts empty and never throws', () => {
  const dir = tmp();
  const file = path.join(dir, CACHE_FILE);
  const garbage = [
    Buffer.from([0xff, 0xfe, 0x00, 0x9c, 0x0a, 0x22, 0x09, 0x7b]),
    Buffer.from(''),
    Buffer.from('{"format":"gitops-preview-builds","version":"1.0.0+abc"}\n"k"\t{"reads":[1],"value":1}\n"j"\tnot json\n\t\n"x"\n'),
    Buffer.from('{"format":"gitops-preview-builds","version":"1.0.0+abc"}\n"k"\t{"reads":{"a":1},"value":1}\n42\t{"reads":{},"value":1}\n'),
  ];
  for (const bytes of garbage) {
    fs.writeFileSync(file, bytes);
    const cache = PersistentBuildCache.open(options(dir));
    assert.equal(cache.get('k'), undefined);
    assert.equal(cache.get('j'), undefined);
    assert.equal(cache.get('x'), undefined);
    // Still usable afterwards.
    cache.set('k', build(1));
    assert.deepEqual(cache.get('k'), build(1));
  }
  // A value that JSON cannot encode stays in memory only.
  const cache = PersistentBuildCache.open(options(dir));
  assert.doesNotThrow(() => cache.set('big', { reads: {}, value: { n: 1n } }));
  assert.doesNotThrow(() => cache.dispose());
});

test('never writes inside a workspace folder, also through a symlink', () => {
  const root = tmp();
  const logs: string[] = [];
  const inside = PersistentBuildCache.open(options(path.join(root, '.cache', 'builds'), { workspaceRoots: [root], log: (m) => logs.push(m) }));
  inside.set('a', build(1));
  inside.dispose();
  assert.equal(fs.existsSync(path.join(root, '.cache')), false);
  assert.match(logs.join('\n'), /inside the workspace folder/);

  const outside = tmp();
  fs.symlinkSync(root, path.join(outside, 'link'));
  const viaLink = PersistentBuildCache.open(options(path.join(outside, 'link', 'builds'), { workspaceRoots: [root] }));
  viaLink.set('a', build(1));
  viaLink.dispose();
  assert.deepEqual(fs.readdirSync(root), []);
  // The cache itself still answers from memory.
  assert.deepEqual(viaLink.get('a'), build(1));
});

test('no Secret value is ever written: masked renders are stored, unmasked ones stay in memory', () => {
  const dir = tmp();
  const raw = 'hunter2-do-not-store';
  const b64 = Buffer.from(raw).toString('base64');
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, data: { password: b64 }, stringData: { token: raw } };
  const cache = PersistentBuildCache.open(options(dir));
  cache.set('masked', { reads: { 'db.yaml': 'a'.repeat(64) }, value: { objects: [maskSecrets(secret)], warnings: [] } });
  cache.set('unmasked', { reads: { 'db.yaml': 'a'.repeat(64) }, value: { objects: [secret], warnings: [] } });
  cache.set('text', { reads: {}, value: `apiVersion: v1\nkind: Secret\nstringData:\n  token: ${raw}\n` });
  cache.dispose();
  const text = fs.readFileSync(path.join(dir, CACHE_FILE), 'utf8');
  assert.ok(!text.includes(raw) && !text.includes(b64), 'a Secret value reached the disk');
  assert.ok(text.includes('"password":"***"'), 'the masked render was not stored');
  // Unmasked ones are still served from memory in this session, and not after a reopen.
  assert.ok(cache.get('unmasked'));
  const reopened = PersistentBuildCache.open(options(dir));
  assert.ok(reopened.get('masked'));
  assert.equal(reopened.get('unmasked'), undefined);
  assert.equal(reopened.get('text'), undefined);
});

test('holdsSecretValue finds unmasked Secret data at any depth', () => {
  assert.equal(holdsSecretValue({ a: [{ b: { kind: 'Secret', data: { k: 'dmFsdWU=' } } }] }), true);
  assert.equal(holdsSecretValue({ kind: 'Secret', data: { k: '***' }, stringData: { j: '***' } }), false);
  assert.equal(holdsSecretValue({ kind: 'ConfigMap', data: { k: 'v' } }), false);
  assert.equal(holdsSecretValue('kind: ConfigMap\ndata:\n  k: Secret\n'), false);
});

test('each workspace folder has its own directory under the storage directory', () => {
  assert.notEqual(buildCacheDir('/s', '/w/a'), buildCacheDir('/s', '/w/b'));
  assert.equal(buildCacheDir('/s', '/w/a'), buildCacheDir('/s', '/w/a'));
  assert.ok(buildCacheDir('/s', '/w/a').startsWith(path.join('/s', 'builds') + path.sep));
});

test('the engine opens one persistent cache per folder under the storage directory and saves it on dispose', () => {
  const storage = tmp();
  const a = tmp().split(path.sep).join('/');
  const b = tmp().split(path.sep).join('/');
  const engine = nodeEngine({ debounceMs: 0 });
  engine.open([a, b], { storageDir: storage });
  const cache = engine.buildCache(a);
  assert.ok(cache instanceof PersistentBuildCache);
  assert.notEqual(engine.buildCache(b), cache);
  cache.set('ks/apps', build(1));
  engine.dispose();
  const file = path.join(buildCacheDir(storage, a), CACHE_FILE);
  assert.ok(fs.existsSync(file));
  assert.deepEqual(fs.readdirSync(a), [], 'wrote inside the workspace folder');
  // Reopened: warm.
  const again = nodeEngine({ debounceMs: 0 });
  again.open([a], { storageDir: storage });
  assert.deepEqual(again.buildCache(a)?.get('ks/apps'), build(1));
  again.dispose();
  // Without a storage directory nothing is persisted.
  const none = nodeEngine({ debounceMs: 0 });
  none.open([a]);
  assert.equal(none.buildCache(a), undefined);
});

test('an entry of the wrong shape is dropped and built again: no command fails on it', { timeout: 120_000 }, async () => {
  const storage = tmp();
  const fixture = writeRepo(BASE);
  const root = fixture.dir;
  const before = process.env.GITOPS_PREVIEW_CACHE;
  process.env.GITOPS_PREVIEW_CACHE = storage;
  try {
    const warm = nodeEngine({ debounceMs: 0 });
    await openRefined(warm, [root], { storageDir: storage });
    warm.dispose();
    const file = path.join(buildCacheDir(storage, root), CACHE_FILE);
    const saved = fs.readFileSync(file, 'utf8');
    assert.match(saved, /"objects":\[\{/);
    const baseline = await checkCli(root);
    assert.equal(baseline.code, 0, baseline.stderr);
    // Each keeps the digests of the files read (so the entry would be used) and breaks the value.
    type Value = { build: Record<string, unknown> & { objects: unknown[] }; reads: Record<string, unknown> };
    const broken: [string, (v: Value) => void][] = [
      ['an object that is null', (v) => v.build.objects.unshift(null)],
      ['objects that are not a list', (v) => (v.build.objects = { length: 1 } as unknown as unknown[])],
      ['an object without metadata', (v) => v.build.objects.unshift({ apiVersion: 'v1', kind: 'ConfigMap' })],
      ['a name that is not a string', (v) => v.build.objects.unshift({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 } })],
      ['a build that is a string', (v) => ((v as { build: unknown }).build = 'ok')],
      ['reads that are not read kinds', (v) => (v.reads[Object.keys(v.reads)[0]] = 42)],
    ];
    let lastBroken = '';
    for (const [what, breakEntry] of broken) {
      const text = saved
        .split('\n')
        .map((line, i) => {
          if (i === 0 || !line) return line;
          const tab = line.indexOf('\t');
          const entry = JSON.parse(line.slice(tab + 1)) as { value: Value };
          breakEntry(entry.value);
          return `${line.slice(0, tab)}\t${JSON.stringify(entry)}`;
        })
        .join('\n');
      fs.writeFileSync(file, text);
      lastBroken = text;
      const run = await checkCli(root);
      assert.equal(run.code, 0, `${what}: ${run.stderr}`);
      assert.deepEqual(run.diagnostics, baseline.diagnostics, what);
    }
    // The engine drops it with a log line, builds again and saves the new build over it. (The
    // command before may have saved its own build over the broken one: it is written again.)
    fs.writeFileSync(file, lastBroken);
    const logs: string[] = [];
    const again = nodeEngine({ debounceMs: 0 });
    again.onEvent((e) => e.type === 'log' && logs.push(e.message));
    await openRefined(again, [root], { storageDir: storage });
    again.dispose();
    assert.match(logs.join('\n'), /\[build cache\] dropped an entry .*reads are not a map of read kinds/);
    const rebuilt = fs.readFileSync(file, 'utf8').split('\n').slice(1).filter(Boolean);
    assert.ok(rebuilt.length > 0);
    for (const line of rebuilt) assert.equal(typeof asCachedRefinement(JSON.parse(line.slice(line.indexOf('\t') + 1)).value), 'object', line);
  } finally {
    if (before === undefined) delete process.env.GITOPS_PREVIEW_CACHE;
    else process.env.GITOPS_PREVIEW_CACHE = before;
    fixture.cleanup();
  }
});

test('all folders together hold at most maxTotalBytes: the least recently opened or saved go first', () => {
  const storage = tmp();
  const one = Buffer.byteLength(JSON.stringify(build(1, 10_000))) + 100;
  const opts = (root: string) => options(buildCacheDir(storage, root), { maxTotalBytes: Math.floor(one * 3.5) });
  const save = (root: string, n: number, ageS: number) => {
    const c = PersistentBuildCache.open(opts(root));
    c.set('ks/apps', build(n, 10_000));
    c.dispose();
    const t = new Date(Date.now() - ageS * 1000);
    fs.utimesSync(path.join(buildCacheDir(storage, root), CACHE_FILE), t, t);
  };
  save('/ci/job-1', 1, 300);
  save('/ci/job-2', 2, 200);
  save('/ci/job-3', 3, 100);
  // A temp file its writer left behind long ago counts for nothing and goes.
  const abandoned = path.join(buildCacheDir(storage, '/ci/job-3'), `${CACHE_FILE}.999.dead.tmp`);
  fs.writeFileSync(abandoned, 'x'.repeat(one));
  fs.utimesSync(abandoned, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
  // Opening job-1 uses it: job-2 is now the least recently used.
  assert.deepEqual(PersistentBuildCache.open(opts('/ci/job-1')).get('ks/apps'), build(1, 10_000));
  const logs: string[] = [];
  const c = PersistentBuildCache.open({ ...opts('/ci/job-4'), log: (m) => logs.push(m) });
  c.set('ks/apps', build(4, 10_000));
  c.dispose();
  const kept = ['/ci/job-1', '/ci/job-2', '/ci/job-3', '/ci/job-4'].filter((r) => fs.existsSync(buildCacheDir(storage, r)));
  assert.deepEqual(kept, ['/ci/job-1', '/ci/job-3', '/ci/job-4']);
  assert.equal(fs.existsSync(abandoned), false);
  assert.match(logs.join('\n'), /least recently used; all caches together were over/);
  const total = kept.reduce((sum, r) => sum + fs.statSync(path.join(buildCacheDir(storage, r), CACHE_FILE)).size, 0);
  assert.ok(total <= one * 3.5, `${total} > ${one * 3.5}`);
});

test('the total cap is the user\'s to set (GITOPS_PREVIEW_CACHE_MAX_MB; 0: nothing persisted), never the repository\'s', () => {
  assert.equal(maxTotalBytesFromEnv({}), DEFAULT_MAX_TOTAL_BYTES);
  assert.equal(DEFAULT_MAX_TOTAL_BYTES, 512 * 2 ** 20);
  assert.equal(maxTotalBytesFromEnv({ GITOPS_PREVIEW_CACHE_MAX_MB: '100' }), 100 * 2 ** 20);
  const logs: string[] = [];
  assert.equal(maxTotalBytesFromEnv({ GITOPS_PREVIEW_CACHE_MAX_MB: 'lots' }, (m) => logs.push(m)), DEFAULT_MAX_TOTAL_BYTES);
  assert.match(logs[0], /GITOPS_PREVIEW_CACHE_MAX_MB="lots" is not a size in MB/);
  const storage = tmp();
  const root = tmp().split(path.sep).join('/');
  const before = process.env.GITOPS_PREVIEW_CACHE_MAX_MB;
  process.env.GITOPS_PREVIEW_CACHE_MAX_MB = '0';
  try {
    const engine = nodeEngine({ debounceMs: 0 });
    engine.open([root], { storageDir: storage });
    assert.equal(engine.buildCache(root), undefined);
    engine.dispose();
    assert.deepEqual(fs.readdirSync(storage), []);
  } finally {
    if (before === undefined) delete process.env.GITOPS_PREVIEW_CACHE_MAX_MB;
    else process.env.GITOPS_PREVIEW_CACHE_MAX_MB = before;
  }
});
