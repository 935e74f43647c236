import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import { DEFAULT_BUDGETS } from '../../../src/core/budgets';
import { GitError, gitLimits } from '../../../src/node/git/limits';
import { defaultBase, resolveCommit } from '../../../src/node/git/refs';
import { GitObjectStore } from '../../../src/node/git/store';
import { commitHost } from '../../../src/node/git/treeHost';
import { commitAll, git, repoWith, writeFiles } from './gitRepo';

const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function repo(files: Record<string, string>): string {
  const dir = repoWith(files);
  made.push(dir);
  return dir;
}

function open(dir: string, limits = gitLimits(DEFAULT_BUDGETS)): GitObjectStore {
  return GitObjectStore.open(dir, limits);
}

/** The text of `rel` at `rev`, read by the reader. */
function show(store: GitObjectStore, root: string, rev: string, rel: string): string | undefined {
  const read = commitHost(store, resolveCommit(store, rev), root).readFile(`${root}/${rel}`, 1 << 24);
  return typeof read === 'string' ? read : undefined;
}

describe('Git reader: loose objects and refs', () => {
  test('HEAD, a branch, a lightweight and an annotated tag, a full and an abbreviated name resolve to the commit git names', () => {
    const dir = repo({ 'a.yaml': 'kind: A\n', 'sub/b.yaml': 'kind: B\n' });
    const first = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'tag', 'light');
    git(dir, 'tag', '-a', 'annotated', '-m', 'a tag');
    writeFiles(dir, { 'a.yaml': 'kind: A2\n' });
    const second = commitAll(dir, 'second');
    const store = open(dir);
    assert.equal(resolveCommit(store, 'HEAD'), second);
    assert.equal(resolveCommit(store, 'main'), second);
    assert.equal(resolveCommit(store, 'refs/heads/main'), second);
    assert.equal(resolveCommit(store, 'light'), first);
    assert.equal(resolveCommit(store, 'annotated'), first);
    assert.equal(resolveCommit(store, first), first);
    assert.equal(resolveCommit(store, first.slice(0, 7)), first);
    assert.throws(() => resolveCommit(store, 'no-such-branch'), /'no-such-branch' names no commit/);
    assert.equal(show(store, dir, 'light', 'a.yaml'), 'kind: A\n');
    assert.equal(show(store, dir, 'HEAD', 'a.yaml'), 'kind: A2\n');
    assert.equal(show(store, dir, 'HEAD', 'sub/b.yaml'), 'kind: B\n');
    assert.equal(show(store, dir, 'HEAD', 'missing.yaml'), undefined);
    const listed = commitHost(store, second, dir).readDir(dir);
    assert.deepEqual(Array.isArray(listed) && listed.map((e) => [e.name, e.isDirectory]).sort(), [['a.yaml', false], ['sub', true]]);
  });

  test('a text known already (the working tree\'s) stands for the blob when their ids match, and only then', () => {
    const dir = repo({ 'same.yaml': 'kind: Same\n', 'changed.yaml': 'kind: Old\n', 'accent.yaml': 'name: café\n' });
    const store = open(dir);
    let inflated = 0;
    const readTyped = store.readTyped.bind(store);
    store.readTyped = ((sha: string, type: string) => (type === 'blob' && inflated++, readTyped(sha, type as never))) as typeof store.readTyped;
    const working: Record<string, string> = { 'same.yaml': 'kind: Same\n', 'changed.yaml': 'kind: New\n', 'accent.yaml': 'name: café\n' };
    const host = commitHost(store, resolveCommit(store, 'HEAD'), dir, '', (p) => working[path.relative(dir, p)]);
    const base = inflated;
    assert.equal(host.readFile(`${dir}/same.yaml`, 1 << 20), 'kind: Same\n');
    assert.equal(host.readFile(`${dir}/accent.yaml`, 1 << 20), 'name: café\n');
    assert.equal(inflated, base, 'a blob equal to the known text was inflated');
    assert.equal(host.readFile(`${dir}/changed.yaml`, 1 << 20), 'kind: Old\n');
    assert.equal(inflated, base + 1);
    // Over the size limit the known text is not taken either: the limit is reported as for the blob.
    assert.deepEqual(typeof host.readFile(`${dir}/same.yaml`, 4), 'object');
  });

  test('the default base is the merge-base with the upstream, not the upstream itself', () => {
    const dir = repo({ 'a.yaml': 'v: 1\n' });
    const fork = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', '-b', 'feature');
    writeFiles(dir, { 'a.yaml': 'v: feature\n' });
    commitAll(dir, 'on feature');
    git(dir, 'checkout', '-q', 'main');
    writeFiles(dir, { 'b.yaml': 'v: main\n' });
    commitAll(dir, 'on main');
    git(dir, 'checkout', '-q', 'feature');
    assert.deepEqual(defaultBase(open(dir)), { sha: fork, name: 'merge-base of HEAD and main' });
    // An upstream recorded in .git/config wins over main.
    git(dir, 'branch', '-q', 'upstream', fork);
    git(dir, 'checkout', '-q', 'upstream');
    writeFiles(dir, { 'c.yaml': 'v: up\n' });
    commitAll(dir, 'on upstream');
    git(dir, 'checkout', '-q', 'feature');
    git(dir, 'branch', '-q', '--set-upstream-to=upstream');
    assert.equal(defaultBase(open(dir)).name, 'merge-base of HEAD and upstream');
  });

  test('a linked worktree (a .git file with gitdir:) reads its own HEAD and the shared objects', () => {
    const dir = repo({ 'a.yaml': 'v: main\n' });
    const wt = `${dir}-wt`;
    made.push(wt);
    git(dir, 'worktree', 'add', '-q', '-b', 'other', wt);
    writeFiles(wt, { 'a.yaml': 'v: other\n' });
    const other = commitAll(wt, 'on other');
    assert.ok(fs.statSync(path.join(wt, '.git')).isFile());
    const store = open(wt);
    assert.equal(resolveCommit(store, 'HEAD'), other);
    assert.equal(show(store, wt, 'HEAD', 'a.yaml'), 'v: other\n');
    assert.equal(show(store, wt, 'main', 'a.yaml'), 'v: main\n');
    assert.equal(defaultBase(store).sha, git(dir, 'rev-parse', 'main'));
  });
});

describe('Git reader: packs', () => {
  test('after git gc --aggressive (deltas, packed-refs) every version reads as git shows it', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `key${i}: value ${i}`);
    const dir = repo({ 'big.yaml': lines.join('\n') });
    const versions: string[] = [];
    for (let v = 0; v < 12; v++) {
      lines[v * 7] = `key${v * 7}: changed in ${v}`;
      writeFiles(dir, { 'big.yaml': lines.join('\n') });
      versions.push(commitAll(dir, `v${v}`));
      git(dir, 'tag', `t${v}`);
    }
    git(dir, 'gc', '-q', '--aggressive', '--prune=now');
    assert.equal(fs.readdirSync(path.join(dir, '.git/objects')).filter((n) => n.length === 2).length, 0, 'every object packed');
    assert.ok(fs.existsSync(path.join(dir, '.git/packed-refs')));
    assert.match(git(dir, 'verify-pack', '-v', ...fs.readdirSync(path.join(dir, '.git/objects/pack')).filter((n) => n.endsWith('.idx')).map((n) => `.git/objects/pack/${n}`)), /chain length = [1-9]/);
    const store = open(dir);
    for (const [v, sha] of versions.entries()) {
      assert.equal(resolveCommit(store, `t${v}`), sha);
      assert.equal(show(store, dir, sha, 'big.yaml'), git(dir, 'show', `${sha}:big.yaml`));
    }
  });

  test('a truncated pack is an error naming the pack entry, not a crash', () => {
    const dir = repo({ 'a.yaml': 'x: '.repeat(5000) + '\n', 'b.yaml': 'kind: B\n' });
    git(dir, 'gc', '-q', '--prune=now');
    const packDir = path.join(dir, '.git/objects/pack');
    const pack = path.join(packDir, fs.readdirSync(packDir).find((n) => n.endsWith('.pack'))!);
    fs.truncateSync(pack, Math.floor(fs.statSync(pack).size / 2));
    const store = open(dir);
    assert.throws(() => {
      const host = commitHost(store, resolveCommit(store, 'HEAD'), dir);
      for (const name of ['a.yaml', 'b.yaml']) {
        const read = host.readFile(`${dir}/${name}`, 1 << 20);
        if (typeof read === 'object') throw new GitError(read.message);
      }
    }, GitError);
  });
});

describe('Git reader: hostile packs', () => {
  test('a delta loop (two REF_DELTA entries naming each other) is an error', () => {
    const dir = repo({});
    const a = 'aa'.repeat(20);
    const b = 'bb'.repeat(20);
    writePack(dir, [
      { sha: a, type: 7, base: b, data: delta(3, [Buffer.from('abc')]) },
      { sha: b, type: 7, base: a, data: delta(3, [Buffer.from('abc')]) },
    ]);
    assert.throws(() => open(dir).read(a), /delta chain loops/);
  });

  test('a delta chain deeper than the limit is an error, the same chain within it reads', () => {
    const dir = repo({});
    const entries: PackEntrySpec[] = [{ sha: '01'.repeat(20), type: 3, data: Buffer.from('v0') }];
    for (let i = 1; i <= 5; i++) entries.push({ sha: `0${i + 1}`.repeat(20), type: 6, baseIndex: i - 1, data: delta(2, [Buffer.from(`v${i}`)]) });
    writePack(dir, entries);
    const last = entries[5].sha;
    assert.equal(open(dir).read(last).data.toString(), 'v5');
    assert.throws(() => open(dir, { ...gitLimits(DEFAULT_BUDGETS), deltaDepth: 3 }).read(last), /delta chain is longer than 3/);
  });

  test('a huge declared size is refused before anything is allocated; a zlib bomb stops at the object limit', () => {
    const dir = repo({});
    const huge = '0c'.repeat(20);
    writePack(dir, [{ sha: huge, type: 3, data: Buffer.from('tiny'), declaredSize: 2 ** 40 }]);
    assert.throws(() => open(dir).read(huge), /over the \d+-byte object limit/);
    const bombDir = repo({});
    const bomb = '0d'.repeat(20);
    writePack(bombDir, [{ sha: bomb, type: 3, data: Buffer.alloc(1 << 20), declaredSize: 100 }]);
    assert.throws(() => open(bombDir).read(bomb), GitError);
    const looseBomb = repo({ 'zeros.txt': '0'.repeat(1 << 20) });
    const limited = open(looseBomb, { ...gitLimits(DEFAULT_BUDGETS), objectBytes: 1000 });
    assert.throws(() => limited.read(git(looseBomb, 'rev-parse', 'HEAD:zeros.txt')), /over the 1000-byte object limit/);
  });

  test('the whole-command read budget stops the reader with the flag that raises it', () => {
    const dir = repo({ 'a.yaml': 'v: 1\n'.repeat(10_000) });
    const store = open(dir, { ...gitLimits({ readBytes: 1000 / 16 }) });
    assert.throws(() => store.read(git(dir, 'rev-parse', 'HEAD:a.yaml')), /--max-read-mb/);
  });
});

interface PackEntrySpec {
  sha: string;
  type: number;
  data: Buffer;
  /** REF_DELTA base name. */
  base?: string;
  /** OFS_DELTA base: an earlier entry. */
  baseIndex?: number;
  declaredSize?: number;
}

/** A delta from a base of `baseSize` bytes made of the inserts only. */
function delta(baseSize: number, inserts: Buffer[]): Buffer {
  const size = inserts.reduce((n, b) => n + b.length, 0);
  return Buffer.concat([varint(baseSize), varint(size), ...inserts.flatMap((b) => [Buffer.from([b.length]), b])]);
}

function varint(n: number): Buffer {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}

/** Writes a pack and its v2 index into the repository's objects/pack (checksums left zero: the reader does not check them). */
function writePack(dir: string, entries: PackEntrySpec[]): void {
  const parts: Buffer[] = [Buffer.from('PACK'), u32(2), u32(entries.length)];
  let offset = 12;
  const offsets: number[] = [];
  for (const e of entries) {
    offsets.push(offset);
    let size = e.declaredSize ?? e.data.length;
    const head: number[] = [];
    let byte = (e.type << 4) | (size & 0x0f);
    size = Math.floor(size / 16);
    while (size > 0) {
      head.push(byte | 0x80);
      byte = size & 0x7f;
      size = Math.floor(size / 128);
    }
    head.push(byte);
    const extra: Buffer[] = [];
    if (e.type === 7) extra.push(Buffer.from(e.base!, 'hex'));
    if (e.type === 6) extra.push(ofsVarint(offset - offsets[e.baseIndex!]));
    const body = Buffer.concat([Buffer.from(head), ...extra, zlib.deflateSync(e.data)]);
    parts.push(body);
    offset += body.length;
  }
  parts.push(Buffer.alloc(20));
  const order = entries.map((e, i) => ({ sha: Buffer.from(e.sha, 'hex'), offset: offsets[i] })).sort((x, y) => Buffer.compare(x.sha, y.sha));
  const fanout = Array.from({ length: 256 }, (_, i) => u32(order.filter((o) => o.sha[0] <= i).length));
  const idx = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63]), u32(2), ...fanout, ...order.map((o) => o.sha), ...order.map(() => u32(0)), ...order.map((o) => u32(o.offset)), Buffer.alloc(40)]);
  const packDir = path.join(dir, '.git/objects/pack');
  fs.mkdirSync(packDir, { recursive: true });
  fs.writeFileSync(path.join(packDir, 'pack-test.pack'), Buffer.concat(parts));
  fs.writeFileSync(path.join(packDir, 'pack-test.idx'), idx);
}

function ofsVarint(n: number): Buffer {
  const bytes = [n & 0x7f];
  n = Math.floor(n / 128);
  while (n > 0) {
    n -= 1;
    bytes.unshift(0x80 | (n & 0x7f));
    n = Math.floor(n / 128);
  }
  return Buffer.from(bytes);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
