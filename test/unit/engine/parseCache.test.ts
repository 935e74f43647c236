/** Parses kept on disk per workspace folder (src/engine/parseCache.ts). */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ParseCache, PARSE_CACHE_FILE, type ParseCacheOptions } from '../../../src/engine/parseCache';
import { buildCacheDir } from '../../../src/engine/persistentBuildCache';
import { nodeEngine, openRefined } from '../../../src/engine/node';
import { isParsed, parseSourceFile, type SourceFile } from '../../../src/core/yaml/document';
import { checkCli, treeCli } from '../hardening/cli';
import { substitutionsInDoc } from '../../../src/core/substitution/scan';
import { CORPORA } from '../helpers';

const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-parse-cache-test-'));
  made.push(dir);
  return dir;
}

function options(dir: string, more: Partial<ParseCacheOptions> = {}): ParseCacheOptions {
  return { dir, version: '1.0.0+abc', workspaceRoots: ['/nonexistent/workspace'], saveDelayMs: 60_000, ...more };
}

/** Everything a file's parse gives its readers, trees as the text they cover. */
function shape(file: SourceFile): unknown {
  return {
    problems: file.problems,
    docs: file.docs.map((d) => ({ index: d.index, range: d.range, start: d.start, end: d.end, value: d.value, problems: d.problems, node: [d.node.range, String(d.node.contents?.range)] })),
  };
}

const TEXTS: Record<string, string> = {
  'plain.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\ndata:\n  a: "1"\n  b: [x, y]\n',
  'multi.yaml': '# leading comment\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: two # trailing\n...\n',
  'subst.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: subst\n  namespace: ${NS:=default}\ndata:\n  when: ${WHEN}\n',
  'aliases.yaml': 'base: &b {replicas: 2, empty: ~, nan: .nan, inf: -.inf, neg: -0}\nother: *b\nmerged:\n  <<: *b\n  replicas: 3\n',
  'broken.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  name: twice\ndata: [unclosed\n',
};

test('a file restored from a kept parse reads exactly as a parsed one, trees included', () => {
  const dir = tmp();
  const a = ParseCache.open(options(dir));
  const parsed = Object.entries(TEXTS).map(([name, text]) => a.sourceFile(`/repo/${name}`, text));
  const expected = parsed.map(shape);
  assert.equal(a.added, Object.keys(TEXTS).length);
  a.dispose();
  const b = ParseCache.open(options(dir));
  assert.equal(b.size, Object.keys(TEXTS).length);
  // The same texts at other paths: a parse is a function of the text alone.
  const restored = Object.entries(TEXTS).map(([name, text]) => b.sourceFile(`/elsewhere/${name}`, text));
  assert.equal(b.hits, Object.keys(TEXTS).length);
  for (const file of restored) assert.ok(isParsed(file), `${file.path} was not restored`);
  assert.deepEqual(restored.map(shape), expected);
  // Shared objects stay shared (an alias gives the same object twice, as the parse does).
  const aliases = restored[3].docs[0].value as { base: object; other: object };
  assert.equal(aliases.other, aliases.base);
  // And the plain parse agrees with both.
  assert.deepEqual(Object.entries(TEXTS).map(([name, text]) => shape(parseSourceFile(`/plain/${name}`, text))), expected);
});

test('a digest the host knows stands for hashing the text: the same entry is found', () => {
  const dir = tmp();
  const a = ParseCache.open(options(dir));
  const text = TEXTS['plain.yaml'];
  assert.ok(a.sourceFile('/repo/plain.yaml', text).docs.length > 0);
  a.dispose();
  const b = ParseCache.open(options(dir));
  const digest = createHash('sha256').update(text).digest('hex');
  assert.ok(isParsed(b.sourceFile('/repo/plain.yaml', text, digest)));
  assert.equal(b.hits, 1);
});

test('the substitution scan of a restored file reads the kept scalar ranges: no tree is parsed for it', () => {
  const dir = tmp();
  const text = `${TEXTS['subst.yaml']}---\nkind: List\nitems:\n  - \${A}-\${B:-x}\n  - plain\n  - "\${C"\n`;
  const fresh = parseSourceFile('/repo/subst.yaml', text);
  const expected = fresh.docs.map((d) => substitutionsInDoc(d));
  assert.equal(expected.flatMap((e) => e.refs).length, 4);
  assert.equal(expected.flatMap((e) => e.errors).length, 1);
  const a = ParseCache.open(options(dir));
  assert.equal(a.sourceFile('/repo/subst.yaml', text).docs.length, 2);
  a.dispose();
  const restored = ParseCache.open(options(dir)).sourceFile('/repo/subst.yaml', text) as SourceFile & { trees(): unknown };
  assert.ok(isParsed(restored), 'restored from the kept parse');
  let treesParsed = 0;
  const trees = restored.trees.bind(restored);
  restored.trees = () => {
    treesParsed++;
    return trees();
  };
  assert.deepEqual(restored.docs.map((d) => substitutionsInDoc(d)), expected);
  assert.equal(treesParsed, 0);
});

test('a file holding a Secret\'s values is never written, nor are tiny texts; a reference to a Secret is', () => {
  const dir = tmp();
  const a = ParseCache.open(options(dir));
  const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: hunter2-in-clear\n';
  const listed = 'apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: "Secret"\n    metadata: {name: x}\n    data: {k: aHVudGVyMg==}\n';
  for (const text of [secret, listed, 'a: 1\n']) a.sourceFile('/repo/s.yaml', text).docs;
  assert.equal(a.added, 0);
  // A Gateway's certificateRefs name a Secret and hold none of its values.
  const gateway = 'apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\nspec:\n  listeners:\n    - tls:\n        certificateRefs:\n          - kind: Secret\n            name: cert\n';
  a.sourceFile('/repo/gateway.yaml', gateway).docs;
  a.sourceFile('/repo/plain.yaml', TEXTS['plain.yaml']).docs;
  a.flush();
  const written = fs.readFileSync(path.join(dir, PARSE_CACHE_FILE));
  assert.equal(written.includes('hunter2'), false);
  assert.equal(written.includes('aHVudGVyMg'), false);
  assert.equal(ParseCache.open(options(dir)).size, 2);
});

test('a corrupt, truncated or other-version file is a miss, never an error', () => {
  const dir = tmp();
  const a = ParseCache.open(options(dir));
  for (const [name, text] of Object.entries(TEXTS)) a.sourceFile(`/repo/${name}`, text).docs;
  a.flush();
  const file = path.join(dir, PARSE_CACHE_FILE);
  const whole = fs.readFileSync(file);
  assert.equal(ParseCache.open(options(dir, { version: '1.0.1+abc' })).size, 0);
  // Truncated in the middle of a frame: the whole frames before it are kept.
  fs.writeFileSync(file, whole.subarray(0, Math.floor(whole.length * 0.6)));
  const truncated = ParseCache.open(options(dir));
  assert.ok(truncated.size > 0 && truncated.size < Object.keys(TEXTS).length, String(truncated.size));
  // Every entry's bytes flipped: each lookup misses and the file is parsed.
  const flipped = Buffer.from(whole);
  const eol = flipped.indexOf(10);
  for (let i = eol + 12; i < flipped.length; i += 7) flipped[i] ^= 0xff;
  fs.writeFileSync(file, flipped);
  const corrupt = ParseCache.open(options(dir));
  for (const [name, text] of Object.entries(TEXTS)) assert.deepEqual(shape(corrupt.sourceFile(`/repo/${name}`, text)), shape(parseSourceFile(`/repo/${name}`, text)), name);
  fs.writeFileSync(file, 'not a header\n\u0000\u0001garbage');
  assert.equal(ParseCache.open(options(dir)).size, 0);
});

test('holds at most maxBytes, least recently used dropped first; refuses to write inside a workspace folder', () => {
  const dir = tmp();
  const big = (n: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${n}\ndata:\n  k: ${'x'.repeat(2000)}\n`;
  const a = ParseCache.open(options(dir, { maxBytes: 9000 }));
  for (let n = 0; n < 8; n++) a.sourceFile(`/repo/${n}.yaml`, big(n)).docs;
  assert.ok(a.size < 8 && a.size >= 3, String(a.size));
  a.flush();
  const b = ParseCache.open(options(dir, { maxBytes: 9000 }));
  b.sourceFile('/repo/7.yaml', big(7));
  assert.equal(b.hits, 1, 'the most recent entry was dropped');
  b.sourceFile('/repo/0.yaml', big(0));
  assert.equal(b.hits, 1, 'the oldest entry was kept');

  // A file parsed after its cache was disposed (a reopen made a new one) adds nothing.
  const late = b.sourceFile('/repo/late.yaml', big(9));
  b.dispose();
  late.docs;
  assert.equal(b.added, 0);

  const workspace = tmp();
  const inside = ParseCache.open(options(path.join(workspace, '.cache'), { workspaceRoots: [workspace] }));
  inside.sourceFile('/repo/plain.yaml', TEXTS['plain.yaml']).docs;
  inside.dispose();
  assert.equal(fs.existsSync(path.join(workspace, '.cache')), false);
});

test('the engine keeps a folder\'s parses: a second open restores them and answers the same', { timeout: 300_000 }, async () => {
  const storage = tmp();
  const root = path.join(CORPORA, 'flux2-kustomize-helm-example');
  const open = async () => {
    const logs: string[] = [];
    const engine = nodeEngine({ debounceMs: 0 });
    engine.onEvent((e) => e.type === 'log' && logs.push(e.message));
    await openRefined(engine, [root], { storageDir: storage });
    const tree = await engine.request('treeJson', { root });
    const check = await engine.request('check', { root });
    engine.dispose();
    return { logs: logs.join('\n'), tree, check };
  };
  const first = await open();
  assert.match(first.logs, /\[parse cache\] 0 file\(s\) restored, [1-9]\d* parsed and kept/);
  assert.ok(fs.existsSync(path.join(buildCacheDir(storage, root), PARSE_CACHE_FILE)));
  const second = await open();
  assert.match(second.logs, /\[parse cache\] [1-9]\d* file\(s\) restored, 0 parsed and kept/);
  assert.deepEqual(second.tree, first.tree);
  assert.deepEqual(second.check, first.check);
});

for (const corpus of ['flux2-multi-tenancy', 'joryirving-home-ops']) {
  test(`check and tree of ${corpus} are the same from kept parses as from a parse`, { timeout: 600_000 }, async () => {
    const storage = tmp();
    const before = process.env.GITOPS_PREVIEW_CACHE;
    process.env.GITOPS_PREVIEW_CACHE = storage;
    try {
      const root = path.join(CORPORA, corpus);
      const cold = { check: await checkCli(root), tree: await treeCli(root) };
      // The CLI saves on exit or after the quiet period; in-process, the quiet period.
      await new Promise((r) => setTimeout(r, 2500));
      const parses = fs.readdirSync(path.join(storage, 'builds')).map((d) => path.join(storage, 'builds', d, PARSE_CACHE_FILE));
      assert.ok(parses.some((f) => fs.existsSync(f) && fs.statSync(f).size > 1000), 'no parses were kept');
      const warm = { check: await checkCli(root), tree: await treeCli(root) };
      assert.equal(warm.check.code, cold.check.code);
      assert.deepEqual(warm.check.diagnostics, cold.check.diagnostics);
      assert.deepEqual(warm.tree.tree, cold.tree.tree);
    } finally {
      if (before === undefined) delete process.env.GITOPS_PREVIEW_CACHE;
      else process.env.GITOPS_PREVIEW_CACHE = before;
    }
  });
}
