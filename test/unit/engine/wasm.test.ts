/**
 * The WebAssembly host (src/engine/wasm) with the real kustomize module from dist/wasm
 * (scripts/build-wasm.sh, run by make build): the sandbox, and recovery from panics, crashes,
 * time limits and the memory maximum.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_MAX_MEMORY_BYTES, WasmModule, wasmDir } from '../../../src/engine/wasm/host';
import { withMemoryMaximum } from '../../../src/engine/wasm/binary';
import type { MemFile } from '../../../src/engine/wasm/protocol';
import { parse as parseYaml } from 'yaml';

const kustomizeFile = path.join(wasmDir(), 'kustomize.wasm');
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;
const app: MemFile[] = [
  { path: 'app/kustomization.yaml', data: 'resources: [cm.yaml]\nnamePrefix: dev-\n' },
  { path: 'app/cm.yaml', data: cm('settings') },
];

test('builds a folder of the in-memory file set; the instance is reused', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    for (let i = 0; i < 2; i++) {
      const r = await m.call('kustomize', { dir: 'app' }, app);
      assert.ok(r.ok, r.ok ? '' : r.message);
      // kustomize's own output form (kyaml orders the top-level fields).
      assert.equal(r.output, 'apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: dev-settings\n');
    }
    assert.equal(m.instances, 1);
  } finally {
    await m.dispose();
  }
});

test('the sandbox has only the files sent: absolute paths and .. past the root find nothing', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    for (const ref of ['/etc/passwd', '../../../../etc/passwd', '../../../../etc']) {
      const r = await m.call('kustomize', { dir: 'app' }, [{ path: 'app/kustomization.yaml', data: `resources: ['${ref}']\n` }]);
      assert.ok(!r.ok && r.kind === 'failed', `${ref}: ${JSON.stringify(r)}`);
      assert.match(r.message, /'\/etc(\/passwd)?' doesn't exist/, ref);
    }
    const gen = await m.call('kustomize', { dir: 'app' }, [{ path: 'app/kustomization.yaml', data: 'configMapGenerator: [{name: x, files: [/etc/hostname]}]\n' }]);
    assert.ok(!gen.ok && /hostname/.test(gen.message), JSON.stringify(gen));
    // Helm chart inflation and exec plugins are refused as kustomize-controller refuses them.
    const helm = await m.call('kustomize', { dir: 'app' }, [{ path: 'app/kustomization.yaml', data: 'helmCharts: [{name: x, repo: https://example.com}]\n' }]);
    assert.ok(!helm.ok && /helm/i.test(helm.message), JSON.stringify(helm));
  } finally {
    await m.dispose();
  }
});

test('file and folder names outside kyaml\'s in-memory alphabet (spaces, colons, unicode) build as on disk', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const files: MemFile[] = [
      { path: 'app/kustomization.yaml', data: "resources: ['my cm.yaml', 'sub dir', 'a:b.yaml', 'a:3ab.yaml']\nconfigMapGenerator: [{name: gen, files: ['key=données été.txt']}]\n" },
      { path: 'app/my cm.yaml', data: cm('spaced') },
      { path: 'app/sub dir/kustomization.yaml', data: 'resources: [cm.yaml]\n' },
      { path: 'app/sub dir/cm.yaml', data: cm('in-spaced-dir') },
      // ':' is the encoding's escape: a literal colon, and a name that looks like an escape, stay distinct.
      { path: 'app/a:b.yaml', data: cm('colon') },
      { path: 'app/a:3ab.yaml', data: cm('escape-like') },
      { path: 'app/données été.txt', data: 'v' },
    ];
    const r = await m.call('kustomize', { dir: 'app' }, files);
    assert.ok(r.ok, r.ok ? '' : r.message);
    const names = [...r.output.matchAll(/^  name: (\S+)$/gm)].map((x) => x[1]);
    // The generator's hash as the kustomize binary computes it over the same files on disk.
    assert.deepEqual(names.sort(), ['colon', 'escape-like', 'gen-8kck46bg6d', 'in-spaced-dir', 'spaced'].sort());
    const missing = await m.call('kustomize', { dir: 'app' }, [{ path: 'app/kustomization.yaml', data: "resources: ['no such.yaml']\n" }]);
    assert.ok(!missing.ok && /no such\.yaml/.test(missing.message), JSON.stringify(missing));
  } finally {
    await m.dispose();
  }
});

test('a panic comes back as a typed failure and the instance lives on', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const p = await m.call('panic', {}, []);
    assert.deepEqual(p, { ok: false, kind: 'panic', message: 'kustomize (WebAssembly) panicked: panic requested by the host' });
    assert.ok((await m.call('kustomize', { dir: 'app' }, app)).ok);
    assert.equal(m.instances, 1);
  } finally {
    await m.dispose();
  }
});

test('a module that dies is replaced by a fresh instance on the next call', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const dead = await m.call('exit', {}, []);
    assert.ok(!dead.ok && dead.kind === 'crashed', JSON.stringify(dead));
    assert.match(dead.message, /crashed and will be restarted/);
    const again = await m.call('kustomize', { dir: 'app' }, app);
    assert.ok(again.ok, again.ok ? '' : again.message);
    assert.equal(m.instances, 2);
  } finally {
    await m.dispose();
  }
});

test('a call past its time limit is stopped; cancellation too; the next call works', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const slow = await m.call('kustomize', { dir: 'app' }, app, { timeoutMs: 1 });
    assert.deepEqual(slow, { ok: false, kind: 'timeout', message: 'kustomize (WebAssembly) did not finish within 0 s and was stopped' });
    const abort = new AbortController();
    const pending = m.call('kustomize', { dir: 'app' }, app, { signal: abort.signal });
    abort.abort();
    const cancelled = await pending;
    assert.ok(!cancelled.ok && cancelled.kind === 'cancelled');
    assert.ok((await m.call('kustomize', { dir: 'app' }, app)).ok);
  } finally {
    await m.dispose();
  }
});

test('a missing module says how to build it', async () => {
  const m = new WasmModule('kustomize', '/nonexistent/kustomize.wasm');
  const r = await m.call('kustomize', { dir: 'app' }, app);
  assert.ok(!r.ok && r.kind === 'missing-module');
  assert.match(r.message, /scripts\/build-wasm\.sh/);
});

test('a prestarted instance compiles the module and sets itself up on its own thread, then serves the calls', async () => {
  // A memory maximum of its own: no other test's compilation is shared, so the worker compiles it.
  const max = 1536 * 2 ** 20 + 65536;
  const m = new WasmModule('kustomize', kustomizeFile, max);
  const other = new WasmModule('kustomize', kustomizeFile, max);
  try {
    m.prestart('warm');
    assert.equal(m.instances, 1, 'started at once, before this thread yields');
    m.prestart('warm');
    assert.equal(m.instances, 1, 'a second prestart starts nothing');
    const r = await m.call('kustomize', { dir: 'app' }, app);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.match(r.output, /name: dev-settings/);
    assert.equal(m.instances, 1, 'the call ran on the prestarted instance');
    // Another instance of the same module and maximum takes the compilation the worker handed back.
    const compiled = await other.compile();
    assert.ok(compiled.ok && Number(compiled.output) < 50, JSON.stringify(compiled));
    const r2 = await other.call('kustomize', { dir: 'app' }, app);
    assert.ok(r2.ok, r2.ok ? '' : r2.message);
  } finally {
    await m.dispose();
    await other.dispose();
  }
});

test('a prestart of a missing module starts nothing; of a file that is no module, the first call says so', async () => {
  const missing = new WasmModule('kustomize', '/nonexistent/kustomize.wasm');
  missing.prestart('warm');
  assert.equal(missing.instances, 0);
  const r = await missing.call('kustomize', { dir: 'app' }, app);
  assert.ok(!r.ok && r.kind === 'missing-module' && /scripts\/build-wasm\.sh/.test(r.message), JSON.stringify(r));

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gp-wasm-'));
  const file = path.join(dir, 'kustomize.wasm');
  fs.writeFileSync(file, 'not a module');
  const broken = new WasmModule('kustomize', file);
  try {
    broken.prestart('warm');
    assert.equal(broken.instances, 1);
    const b = await broken.call('kustomize', { dir: 'app' }, app);
    assert.ok(!b.ok && b.kind === 'missing-module', JSON.stringify(b));
    assert.match(b.message, /could not be compiled/);
  } finally {
    await broken.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('withMemoryMaximum sets the maximum of the memory section and keeps the rest', () => {
  // (module (memory 2)) and the same with a maximum of 16 pages.
  const plain = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 2]);
  const capped = withMemoryMaximum(plain, 16 * 65536);
  assert.deepEqual([...capped], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 4, 1, 1, 2, 16]);
  // The same maximum again: the image itself, not a copy; another one: changed.
  assert.equal(withMemoryMaximum(capped, 16 * 65536), capped);
  assert.deepEqual([...withMemoryMaximum(capped, 32 * 65536)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 4, 1, 1, 2, 32]);
  // The built modules carry the host's default maximum, so the host compiles the file's bytes as read.
  const built = fs.readFileSync(kustomizeFile);
  assert.equal(withMemoryMaximum(built, DEFAULT_MAX_MEMORY_BYTES), built);
});

test('a recorded build answers each resource as JSON, with kustomize\'s YAML only where substitution could apply', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const files: MemFile[] = [
      {
        path: 'app/kustomization.yaml',
        data: 'resources: [a.yaml, b.yaml]\ncommonLabels: {team: x}\nbuildMetadata: [originAnnotations]\n',
      },
      { path: 'app/a.yaml', data: cm('plain') },
      { path: 'app/b.yaml', data: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\ndata:\n  url: https://${DOMAIN}/x\n' },
    ];
    const recorded = await m.call('kustomize', { dir: 'app', reads: true }, files);
    assert.ok(recorded.ok, recorded.ok ? '' : recorded.message);
    const answer = JSON.parse(recorded.output) as { ok: boolean; objects: { json: Record<string, any>; yaml?: string }[] };
    assert.ok(answer.ok);
    const byName = new Map(answer.objects.map((o) => [o.json.metadata.name, o]));
    assert.equal(byName.get('plain')?.yaml, undefined);
    assert.equal(byName.get('plain')?.json.metadata.labels.team, 'x');
    assert.match(byName.get('plain')?.json.metadata.annotations['config.kubernetes.io/origin'], /path: a\.yaml/);
    // The YAML given is exactly the document `kustomize build` prints for it.
    const plain = await m.call('kustomize', { dir: 'app' }, files);
    assert.ok(plain.ok);
    const printed = plain.output.split(/^---\n/m).find((d) => d.includes('name: vars'));
    assert.equal(byName.get('vars')?.yaml, printed);
    assert.equal(byName.get('vars')?.json.data.url, 'https://${DOMAIN}/x');
  } finally {
    await m.dispose();
  }
});

test('transformer annotations are recorded only when the kustomization asks for them, as kustomize prints them', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  const transformations = 'alpha.config.kubernetes.io/transformations';
  try {
    for (const metadata of ['[originAnnotations]', '[originAnnotations, transformerAnnotations]']) {
      const files: MemFile[] = [
        { path: 'app/kustomization.yaml', data: `resources: [cm.yaml]\nnamePrefix: p-\nbuildMetadata: ${metadata}\n` },
        { path: 'app/cm.yaml', data: cm('settings') },
      ];
      const r = await m.call('kustomize', { dir: 'app', reads: true }, files);
      assert.ok(r.ok, r.ok ? '' : r.message);
      const [obj] = (JSON.parse(r.output) as { objects: { json: Record<string, any> }[] }).objects;
      const annotations = obj.json.metadata.annotations as Record<string, string>;
      assert.match(annotations['config.kubernetes.io/origin'], /path: cm\.yaml/, metadata);
      if (metadata.includes('transformerAnnotations')) assert.match(annotations[transformations], /PrefixSuffixTransformer|PrefixTransformer/, metadata);
      else assert.equal(annotations[transformations], undefined, metadata);
    }
  } finally {
    await m.dispose();
  }
});

test('recorded JSON holds the values kustomize prints, folded and literal blocks included', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const doc = [
      'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: blocks', 'data:',
      // A folded block with more-indented lines: kustomize's own JSON of it (through YAML text) has
      // an extra line break after the first line, and Flux applies that value.
      '  folded: >-', '    [', '      {"a": 1}', '    ]',
      '  literal: |', '    line one', '      indented', '    trailing  ',
      '  plain: 0123', '  quoted: "true"', '  anchored: &x value', '  alias: *x',
    ].join('\n') + '\n';
    const files: MemFile[] = [{ path: 'app/kustomization.yaml', data: 'resources: [cm.yaml]\n' }, { path: 'app/cm.yaml', data: doc }];
    const recorded = await m.call('kustomize', { dir: 'app', reads: true }, files);
    const printed = await m.call('kustomize', { dir: 'app' }, files);
    assert.ok(recorded.ok && printed.ok);
    const [obj] = (JSON.parse(recorded.output) as { objects: { json: Record<string, any> }[] }).objects;
    assert.deepEqual(obj.json, parseYaml(printed.output));
    assert.equal(obj.json.data.folded, '[\n\n  {"a": 1}\n]');
  } finally {
    await m.dispose();
  }
});

test('documents parsed once and kept by the instance are never changed by the builds that used them', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const shared = { path: 'base/cm.yaml', data: cm('shared') };
    const files: MemFile[] = [
      shared,
      { path: 'base/kustomization.yaml', data: 'resources: [cm.yaml]\n' },
      { path: 'a/kustomization.yaml', data: 'resources: [../base]\nnamePrefix: a-\ncommonLabels: {from: a}\n' },
      { path: 'b/kustomization.yaml', data: 'resources: [../base]\n' },
    ];
    const build = async (dir: string, set: MemFile[]) => {
      const r = await m.call('kustomize', { dir }, set);
      assert.ok(r.ok, r.ok ? '' : r.message);
      return r.output;
    };
    for (let i = 0; i < 2; i++) {
      assert.match(await build('a', files), /name: a-shared/);
      const b = await build('b', files);
      assert.match(b, /name: shared\n/);
      assert.doesNotMatch(b, /from: a|a-shared/);
    }
    // The same path with new content is parsed again.
    const edited = files.map((f) => (f === shared ? { path: f.path, data: cm('renamed') } : f));
    assert.match(await build('b', edited), /name: renamed\n/);
  } finally {
    await m.dispose();
  }
});

test('a kept file set: sent whole once, then an edit comes with its build in one request', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  try {
    const call = async (args: Record<string, unknown>, files: MemFile[]) => {
      const r = await m.call('kustomize', { dir: 'app', reads: true, ...args }, files);
      assert.ok(r.ok, r.ok ? '' : r.message);
      return JSON.parse(r.output) as { ok: boolean; needBase?: boolean; objects?: { json: { metadata: { name: string } } }[] };
    };
    const names = (b: { objects?: { json: { metadata: { name: string } } }[] }) => (b.objects ?? []).map((o) => o.json.metadata.name);
    assert.equal((await call({ base: 'v1' }, [])).needBase, true, 'a set the instance does not hold');
    assert.equal((await call({ base: 'v1', full: true }, app)).ok, true);
    assert.deepEqual(names(await call({ base: 'v1' }, [])), ['dev-settings']);
    // The edit (a changed file, a removed one) and a file laid over for this build only.
    const edited: MemFile[] = [{ path: 'app/kustomization.yaml', data: 'resources: [cm.yaml, more.yaml]\nnamePrefix: dev-\n' }, { path: 'app/more.yaml', data: cm('more') }];
    const overlay: MemFile = { path: 'app/cm.yaml', data: cm('overlaid') };
    const built = await call({ base: 'v2', update: { from: 'v1', remove: [], count: edited.length } }, [...edited, overlay]);
    assert.deepEqual(names(built), ['dev-overlaid', 'dev-more']);
    // The edit stays, the overlay does not.
    assert.deepEqual(names(await call({ base: 'v2' }, [])), ['dev-settings', 'dev-more']);
    assert.equal((await call({ base: 'v1' }, [])).needBase, true, 'the set is now v2');
    // An update from a set the instance does not hold changes nothing and asks for the set.
    const stale = await call({ base: 'v3', update: { from: 'v1', remove: [], count: 1 } }, [{ path: 'app/more.yaml', data: cm('lost') }]);
    assert.equal(stale.needBase, true);
    assert.deepEqual(names(await call({ base: 'v2' }, [])), ['dev-settings', 'dev-more']);
    const removed = await call({ base: 'v3', update: { from: 'v2', remove: ['app/more.yaml'], count: 1 } }, [{ path: 'app/kustomization.yaml', data: 'resources: [cm.yaml]\nnamePrefix: dev-\n' }]);
    assert.deepEqual(names(removed), ['dev-settings']);
  } finally {
    await m.dispose();
  }
});
