/**
 * Snapshots of a module's set-up (src/engine/wasm/snapshot.ts), with the real kustomize module and
 * the snapshot scripts/build-wasm.sh wrote beside it: an instance laid from it builds what a set-up
 * one builds, and a snapshot of another module, or a damaged one, is never laid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { definedGlobals, globalExportName, withGlobalsExported } from '../../../src/engine/wasm/binary';
import { snapshotFile, WasmModule, wasmDir } from '../../../src/engine/wasm/host';
import { callInstance, encodeRequest, type MemFile, type RequestExports } from '../../../src/engine/wasm/protocol';
import { INSTANCE_WASI, moduleSnapshotId, restoreSnapshot, snapshotReady, takeSnapshot } from '../../../src/engine/wasm/snapshot';
import { MONOTONIC, Wasi } from '../../../src/engine/wasm/wasi';

const kustomizeFile = path.join(wasmDir(), 'kustomize.wasm');
// A strategic-merge patch and a namespace: both read kyaml's schema, which the snapshot holds parsed.
const app: MemFile[] = [
  {
    path: 'app/kustomization.yaml',
    data: 'namespace: demo\nresources: [deploy.yaml]\npatches:\n- patch: |\n    apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n    spec: {template: {spec: {containers: [{name: c, image: nginx:2}]}}}\n',
  },
  { path: 'app/deploy.yaml', data: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {template: {spec: {containers: [{name: c, image: nginx:1}, {name: d, image: busybox}]}}}\n' },
];

async function instantiate(module: WebAssembly.Module) {
  const wasi = new Wasi({ ...INSTANCE_WASI, outputFd: 2 });
  const instance = await WebAssembly.instantiate(module, wasi.imports());
  const call = (op: string, args: unknown, files: MemFile[] = []) => {
    const text = callInstance(instance.exports as unknown as RequestExports, encodeRequest(op, args, files));
    return JSON.parse(text) as { ok: boolean; output?: string; error?: string };
  };
  return { wasi, instance, call };
}

test('the built module carries its snapshot id, and its snapshot is beside it', async () => {
  const module = await WebAssembly.compile(fs.readFileSync(kustomizeFile));
  assert.match(moduleSnapshotId(module) ?? '', /^[0-9a-f]{32}$/);
  assert.ok(fs.statSync(snapshotFile(kustomizeFile)).size > 1024 * 1024);
});

test('an instance laid from the snapshot builds what a set-up instance builds, build after build', async () => {
  const module = await WebAssembly.compile(fs.readFileSync(kustomizeFile));
  const fresh = await instantiate(module);
  fresh.wasi.initialize(fresh.instance);
  const laid = await instantiate(module);
  assert.equal(restoreSnapshot(snapshotFile(kustomizeFile), module, laid.instance, laid.wasi), true);
  for (let i = 0; i < 3; i++) {
    const a = fresh.call('kustomize', { dir: 'app' }, app);
    const b = laid.call('kustomize', { dir: 'app' }, app);
    assert.ok(a.ok, a.error);
    assert.deepEqual(b, a);
    assert.match(b.output ?? '', /namespace: demo/);
    assert.match(b.output ?? '', /image: nginx:2[\s\S]*image: busybox/);
  }
  // Errors too come out the same (kustomize's messages, with the source-relative paths).
  const missing: MemFile[] = [{ path: 'app/kustomization.yaml', data: 'resources: [gone.yaml]\n' }];
  assert.deepEqual(laid.call('kustomize', { dir: 'app' }, missing), fresh.call('kustomize', { dir: 'app' }, missing));
});

test('a snapshot is taken and laid again; the clock goes on from the snapshot\'s reading', async () => {
  const image = fs.readFileSync(kustomizeFile);
  const module = await WebAssembly.compile(image);
  const first = await instantiate(module);
  first.wasi.initialize(first.instance);
  assert.ok(first.call('warm', {}).ok);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-test-'));
  try {
    const file = path.join(dir, 'k.snapshot');
    // Taken where the monotonic clock reads far more than it does here (another process, another
    // machine): laid here, the instance's clock must not go back.
    first.wasi.resume((first.instance.exports as unknown as { memory: WebAssembly.Memory }).memory, first.wasi.now(MONOTONIC) + 10n ** 15n);
    const taken = first.wasi.now(MONOTONIC);
    fs.writeFileSync(file, takeSnapshot(image, module, first.instance, first.wasi));
    const laid = await instantiate(module);
    assert.ok(laid.wasi.now(MONOTONIC) < taken);
    assert.equal(restoreSnapshot(file, module, laid.instance, laid.wasi), true);
    const now = laid.wasi.now(MONOTONIC);
    assert.ok(now >= taken && now < taken + 60n * 10n ** 9n, `${now} against ${taken}`);
    const b = laid.call('kustomize', { dir: 'app' }, app);
    assert.deepEqual(b, first.call('kustomize', { dir: 'app' }, app));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a snapshot of another module, a missing one and a damaged one are never laid', async () => {
  const image = new Uint8Array(fs.readFileSync(kustomizeFile));
  const snapshot = snapshotFile(kustomizeFile);
  // The id is the module's last bytes (its custom section is appended): another id, another module.
  const other = image.slice();
  other[other.length - 1] = other[other.length - 1] === 0x30 ? 0x31 : 0x30;
  const otherModule = await WebAssembly.compile(other);
  const o = await instantiate(otherModule);
  const before = (o.instance.exports as unknown as RequestExports).memory.buffer.byteLength;
  assert.equal(restoreSnapshot(snapshot, otherModule, o.instance, o.wasi), false);
  assert.equal((o.instance.exports as unknown as RequestExports).memory.buffer.byteLength, before);
  // Untouched, so it can still be set up.
  o.wasi.initialize(o.instance);
  assert.ok(o.call('kustomize', { dir: 'app' }, app).ok);

  const module = await WebAssembly.compile(image);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-test-'));
  try {
    const m = await instantiate(module);
    assert.equal(restoreSnapshot(path.join(dir, 'none.snapshot'), module, m.instance, m.wasi), false);
    const cut = path.join(dir, 'cut.snapshot');
    fs.writeFileSync(cut, fs.readFileSync(snapshot).subarray(0, 4 * 1024 * 1024));
    assert.throws(() => restoreSnapshot(cut, module, m.instance, m.wasi), /cut\.snapshot is cut short/);
    // A header of this module's id whose pages fall outside its memory, or whose globals are not the module's.
    const real = fs.readFileSync(snapshot);
    const headerLength = real.readUInt32LE(8);
    const header = JSON.parse(real.subarray(12, 12 + headerLength).toString('utf8')) as { runs: [number, number][]; globals: unknown[]; memoryBytes: number };
    const forged = (change: (h: typeof header) => void) => {
      const h = structuredClone(header);
      change(h);
      const bytes = Buffer.from(JSON.stringify(h));
      const size = Buffer.alloc(4);
      size.writeUInt32LE(bytes.length);
      const file = path.join(dir, 'forged.snapshot');
      fs.writeFileSync(file, Buffer.concat([real.subarray(0, 8), size, bytes, real.subarray(12 + headerLength)]));
      return file;
    };
    for (const change of [(h: typeof header) => h.runs.push([h.memoryBytes / 65536, 1]), (h: typeof header) => h.globals.pop(), (h: typeof header) => (h.memoryBytes += 1)]) {
      const f = await instantiate(module);
      assert.throws(() => restoreSnapshot(forged(change), module, f.instance, f.wasi), /forged\.snapshot is damaged \(its header does not fit the module\)/);
    }
    const junk = path.join(dir, 'junk.snapshot');
    fs.writeFileSync(junk, 'apiVersion: v1\n');
    const j = await instantiate(module);
    assert.throws(() => restoreSnapshot(junk, module, j.instance, j.wasi), /junk\.snapshot is not a snapshot/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the host lays its instances from the snapshot, and sets them up without one', async () => {
  const m = new WasmModule('kustomize', kustomizeFile);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-test-'));
  const alone = path.join(dir, 'kustomize.wasm');
  fs.copyFileSync(kustomizeFile, alone);
  const n = new WasmModule('kustomize', alone);
  try {
    const a = await m.call('kustomize', { dir: 'app' }, app);
    const b = await n.call('kustomize', { dir: 'app' }, app);
    assert.ok(a.ok && b.ok);
    assert.equal(a.output, b.output);
    assert.deepEqual([m.instances, m.instancesFromSnapshot], [1, 1]);
    assert.deepEqual([n.instances, n.instancesFromSnapshot], [1, 0]);
  } finally {
    await m.dispose();
    await n.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an instance whose snapshot is damaged is set up instead, and the host says why', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'snapshot-test-'));
  const file = path.join(dir, 'kustomize.wasm');
  fs.copyFileSync(kustomizeFile, file);
  // Cut past its header: the pages are read into the instance before the end is found missing.
  fs.writeFileSync(snapshotFile(file), fs.readFileSync(snapshotFile(kustomizeFile)).subarray(0, 8 * 1024 * 1024));
  const m = new WasmModule('kustomize', file);
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (text: string) => warnings.push(text);
  try {
    const r = await m.call('kustomize', { dir: 'app' }, app);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.match(r.output, /namespace: demo/);
    assert.deepEqual([m.instances, m.instancesFromSnapshot], [1, 0]);
    assert.match(m.snapshotProblem ?? '', /kustomize\.snapshot is cut short/);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /kustomize's snapshot could not be used \(.*cut short\)/);
  } finally {
    console.warn = warn;
    await m.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every global of the module is exported under its index, with its type read from the global section', async () => {
  const image = fs.readFileSync(kustomizeFile);
  const types = definedGlobals(image);
  // Go's: the stack pointer (i32) first, then its context, g and result registers (i64), then PAUSE (i32).
  assert.deepEqual(types, ['i32', 'i64', 'i64', 'i64', 'i64', 'i64', 'i64', 'i32']);
  const moduleExports = (WebAssembly.Module as unknown as { exports(m: WebAssembly.Module): { name: string; kind: string }[] }).exports;
  const exported = moduleExports(await WebAssembly.compile(image));
  for (let i = 0; i < types.length; i++) assert.ok(exported.some((e) => e.name === globalExportName(i) && e.kind === 'global'), globalExportName(i));
  // A module without an export section cannot be made ready.
  assert.throws(() => withGlobalsExported(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), /no export section/);
  assert.throws(() => snapshotReady(new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), /no export section/);
});
