/**
 * The modules' WASI (src/engine/wasm/wasi.ts), called as a module would call it: through its
 * import object, on a memory of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Wasi, WasiExit } from '../../../src/engine/wasm/wasi';
import { wasmDir } from '../../../src/engine/wasm/host';

type Call = (...args: (number | bigint)[]) => number;

/** A file for the module's output, and how to read and remove it. */
function outputFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wasi-test-'));
  const file = path.join(dir, 'out');
  const fd = fs.openSync(file, 'a+');
  const output = () => fs.readFileSync(file, 'utf8');
  const done = () => {
    fs.closeSync(fd);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { fd, output, done };
}

function setUp(env: Record<string, string> = {}) {
  const { fd, output, done } = outputFile();
  const wasi = new Wasi({ args: ['prog'], env, outputFd: fd });
  const memory = new WebAssembly.Memory({ initial: 1 });
  wasi.initialize({ exports: { memory } } as unknown as WebAssembly.Instance);
  const fns = wasi.imports().wasi_snapshot_preview1 as Record<string, Call>;
  const view = () => new DataView(memory.buffer);
  return { fns, memory, view, output, done };
}

test('arguments and environment are the given ones, NUL-terminated, with their sizes', () => {
  const { fns, memory, view, done } = setUp({ GOGC: '200' });
  try {
    assert.equal(fns.environ_sizes_get(0, 4), 0);
    assert.equal(view().getUint32(0, true), 1);
    assert.equal(view().getUint32(4, true), 'GOGC=200\0'.length);
    assert.equal(fns.environ_get(16, 64), 0);
    assert.equal(view().getUint32(16, true), 64);
    assert.equal(Buffer.from(memory.buffer, 64, 9).toString(), 'GOGC=200\0');
    assert.equal(fns.args_sizes_get(0, 4), 0);
    assert.deepEqual([view().getUint32(0, true), view().getUint32(4, true)], [1, 5]);
  } finally {
    done();
  }
});

test('stdout and stderr go to the output descriptor; any other descriptor does not exist', () => {
  const { fns, memory, view, output, done } = setUp();
  try {
    Buffer.from(memory.buffer).write('fatal error: out of memory\n', 100);
    // Two iovecs: "fatal error: " and "out of memory\n".
    view().setUint32(0, 100, true);
    view().setUint32(4, 13, true);
    view().setUint32(8, 113, true);
    view().setUint32(12, 14, true);
    assert.equal(fns.fd_write(2, 0, 2, 32), 0);
    assert.equal(view().getUint32(32, true), 27);
    assert.equal(output(), 'fatal error: out of memory\n');
    assert.equal(fns.fd_write(3, 0, 2, 32), 8, 'EBADF');
    assert.equal(fns.fd_prestat_get(3, 0), 8, 'no preopened folder');
    assert.equal(fns.path_open(3, 0, 0, 4, 0, 0n, 0n, 0, 40), 8, 'no file can be opened');
    assert.equal(fns.sock_accept(3, 0, 0), 8);
  } finally {
    done();
  }
});

test('clocks count in nanoseconds; random bytes fill the buffer', () => {
  const { fns, memory, view, done } = setUp();
  try {
    assert.equal(fns.clock_time_get(0, 1n, 0), 0);
    const realtime = view().getBigUint64(0, true);
    assert.ok(Math.abs(Number(realtime / 1_000_000n) - Date.now()) < 5000);
    fns.clock_time_get(1, 1n, 8);
    fns.clock_time_get(1, 1n, 16);
    assert.ok(view().getBigUint64(16, true) >= view().getBigUint64(8, true));
    assert.equal(fns.random_get(100, 64), 0);
    assert.ok(new Uint8Array(memory.buffer, 100, 64).some((b) => b !== 0));
  } finally {
    done();
  }
});

test('poll_oneoff sleeps until the earliest clock subscription and reports it', () => {
  const { fns, view, done } = setUp();
  try {
    const sub = (at: number, userdata: bigint, timeoutNs: bigint) => {
      view().setBigUint64(at, userdata, true);
      view().setUint8(at + 8, 0);
      view().setUint32(at + 16, 1, true);
      view().setBigUint64(at + 24, timeoutNs, true);
      view().setUint16(at + 40, 0, true);
    };
    sub(0, 7n, 30_000_000n);
    sub(48, 9n, 10_000_000_000n);
    const t = performance.now();
    assert.equal(fns.poll_oneoff(0, 200, 2, 400), 0);
    const slept = performance.now() - t;
    assert.ok(slept >= 25 && slept < 5000, `slept ${slept} ms`);
    assert.equal(view().getUint32(400, true), 1, 'only the 30 ms subscription came due');
    assert.equal(view().getBigUint64(200, true), 7n);
    assert.equal(view().getUint16(208, true), 0);
  } finally {
    done();
  }
});

test('proc_exit unwinds the module with its code', () => {
  const { fns, done } = setUp();
  try {
    assert.throws(() => fns.proc_exit(3), (err: unknown) => err instanceof WasiExit && err.code === 3);
  } finally {
    done();
  }
});

test('the kustomize module runs on it: it starts, and collect_if_due collects only when the heap is near its goal', async () => {
  const { fd, output, done } = outputFile();
  try {
    const wasi = new Wasi({ args: ['gitops-preview'], env: { GOGC: '200' }, outputFd: fd });
    const module = await WebAssembly.compile(fs.readFileSync(path.join(wasmDir(), 'kustomize.wasm')));
    const instance = await WebAssembly.instantiate(module, wasi.imports());
    wasi.initialize(instance);
    const collect = instance.exports.collect_if_due as () => number;
    const first = collect();
    assert.ok(first === 0 || first === 1);
    // Right after a collection (or with the heap as it was), the heap is far from its goal.
    assert.equal(collect(), 0);
    assert.equal(output(), '', 'nothing written to stdout or stderr');
  } finally {
    done();
  }
});
