/**
 * The WASI preview1 functions the modules of wasm/ import, written here in plain JavaScript
 * instead of taken from node:wasi, for two reasons:
 * - Node's WASI functions are V8 fast API calls, and one that allocates (uvwasi tells V8 about its
 *   external memory) can start a garbage collection inside the call, which a fast call must never
 *   do: the collector then misses the JavaScript frames below the module and the worker later reads
 *   a moved object, and the whole process dies with SIGSEGV (nodejs/node#46777, still open; here
 *   the unit test of builds redone in part crashed in 5 of 5 runs on a loaded machine). A plain
 *   function called from WebAssembly is an ordinary call, where a collection is safe.
 * - The sandbox is what is written here and nothing else: no preopened folder, no file, no socket,
 *   one program name, the given environment, stdout and stderr into one file descriptor (the
 *   worker's private log). Every other call answers EBADF, as for a descriptor that does not exist.
 */
import { randomFillSync } from 'node:crypto';
import * as fs from 'node:fs';

const ESUCCESS = 0;
const EBADF = 8;
const EINVAL = 28;
const ENOTSUP = 58;

const CLOCK_REALTIME = 0;
/** WASI's monotonic clock id. */
export const MONOTONIC = 1;
const FILETYPE_CHARACTER_DEVICE = 2;
const EVENTTYPE_CLOCK = 0;
const SUBSCRIPTION_CLOCK_ABSTIME = 1;

/** Thrown by proc_exit: the module ended itself (Go's os.Exit, or a fatal error after writing its reason). */
export class WasiExit extends Error {
  constructor(readonly code: number) {
    super(`the module exited with code ${code}`);
  }
}

export interface WasiOptions {
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** Where stdout and stderr go. */
  outputFd: number;
}

type Fn = (...args: never[]) => number;

export class Wasi {
  private memory?: WebAssembly.Memory;
  private readonly args: Uint8Array[];
  private readonly env: Uint8Array[];
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(4));
  /** Added to the host's monotonic clock: an instance laid from a snapshot sees it go on from where it was taken. */
  private monotonicOffset = 0n;

  constructor(private readonly options: WasiOptions) {
    const enc = new TextEncoder();
    this.args = options.args.map((a) => enc.encode(`${a}\0`));
    this.env = Object.entries(options.env).map(([k, v]) => enc.encode(`${k}=${v}\0`));
  }

  /** The import object; every function the module imports from wasi_snapshot_preview1 is in it. */
  imports(): WebAssembly.Imports {
    const fns: Record<string, Fn> = {
      args_sizes_get: (argc: number, size: number) => this.sizes(this.args, argc, size),
      args_get: (ptrs: number, buf: number) => this.strings(this.args, ptrs, buf),
      environ_sizes_get: (count: number, size: number) => this.sizes(this.env, count, size),
      environ_get: (ptrs: number, buf: number) => this.strings(this.env, ptrs, buf),
      clock_time_get: (id: number, _precision: bigint, out: number) => {
        this.view().setBigUint64(out, this.now(id), true);
        return ESUCCESS;
      },
      random_get: (buf: number, len: number) => {
        randomFillSync(this.bytes(buf, len));
        return ESUCCESS;
      },
      fd_write: (fd: number, iovs: number, count: number, written: number) => this.write(fd, iovs, count, written),
      fd_read: (fd: number, _iovs: number, _count: number, read: number) => {
        if (fd !== 0) return EBADF;
        // Standard input is empty.
        this.view().setUint32(read, 0, true);
        return ESUCCESS;
      },
      fd_fdstat_get: (fd: number, out: number) => {
        if (!isStdio(fd)) return EBADF;
        this.bytes(out, 24).fill(0);
        this.view().setUint8(out, FILETYPE_CHARACTER_DEVICE);
        return ESUCCESS;
      },
      fd_filestat_get: (fd: number, out: number) => {
        if (!isStdio(fd)) return EBADF;
        this.bytes(out, 64).fill(0);
        this.view().setUint8(out + 16, FILETYPE_CHARACTER_DEVICE);
        return ESUCCESS;
      },
      fd_fdstat_set_flags: (fd: number) => (isStdio(fd) ? ENOTSUP : EBADF),
      poll_oneoff: (subs: number, events: number, count: number, stored: number) => this.poll(subs, events, count, stored),
      proc_exit: (code: number) => {
        throw new WasiExit(code);
      },
      sched_yield: () => ESUCCESS,
    };
    // No preopened folder, no open file beyond the three standard ones: every other call (fd_close,
    // fd_prestat_get, path_open, sockets...) is about a descriptor that does not exist.
    const imports = new Proxy(fns, {
      get: (target, name) => (typeof name === 'string' && name in target ? target[name] : () => EBADF),
    });
    return { wasi_snapshot_preview1: imports };
  }

  /** Runs the module's initialisation (a reactor's `_initialize`), after which its exports may be called. */
  initialize(instance: WebAssembly.Instance): void {
    const exports = instance.exports as { memory: WebAssembly.Memory; _initialize?: () => void };
    this.memory = exports.memory;
    exports._initialize?.();
  }

  /**
   * For an instance whose memory and globals were laid from a snapshot (./snapshot.ts) instead of
   * initialised: its monotonic clock goes on from `monotonicNs`, the clock's reading when the
   * snapshot was taken, so the runtime's timers and start time stay in the past whatever the
   * host's clock reads (another process, another machine).
   */
  resume(memory: WebAssembly.Memory, monotonicNs: bigint): void {
    this.memory = memory;
    this.monotonicOffset = 0n;
    this.monotonicOffset = monotonicNs + 1_000_000n - this.now(MONOTONIC);
  }

  /** The clock with id `id` as the module sees it. */
  now(id: number): bigint {
    return id === CLOCK_REALTIME ? hostNow(id) : hostNow(id) + this.monotonicOffset;
  }

  private view(): DataView {
    return new DataView(this.memory!.buffer);
  }

  private bytes(at: number, len: number): Uint8Array {
    return new Uint8Array(this.memory!.buffer, at, len);
  }

  private sizes(items: Uint8Array[], count: number, size: number): number {
    const v = this.view();
    v.setUint32(count, items.length, true);
    v.setUint32(
      size,
      items.reduce((n, b) => n + b.byteLength, 0),
      true,
    );
    return ESUCCESS;
  }

  private strings(items: Uint8Array[], ptrs: number, buf: number): number {
    const v = this.view();
    let at = buf;
    items.forEach((b, i) => {
      v.setUint32(ptrs + 4 * i, at, true);
      this.bytes(at, b.byteLength).set(b);
      at += b.byteLength;
    });
    return ESUCCESS;
  }

  private write(fd: number, iovs: number, count: number, written: number): number {
    if (fd !== 1 && fd !== 2) return EBADF;
    const v = this.view();
    let total = 0;
    for (let i = 0; i < count; i++) {
      const at = v.getUint32(iovs + 8 * i, true);
      const len = v.getUint32(iovs + 8 * i + 4, true);
      if (len === 0) continue;
      fs.writeSync(this.options.outputFd, this.bytes(at, len));
      total += len;
    }
    this.view().setUint32(written, total, true);
    return ESUCCESS;
  }

  /**
   * Only clock subscriptions can come true here (there are no files or sockets to wait for): the
   * thread sleeps until the earliest of them and reports every one due by then.
   */
  private poll(subs: number, events: number, count: number, stored: number): number {
    if (count === 0) return EINVAL;
    const v = this.view();
    const clocks: { userdata: bigint; at: bigint }[] = [];
    const descriptors: { userdata: bigint; type: number }[] = [];
    for (let i = 0; i < count; i++) {
      const s = subs + 48 * i;
      const userdata = v.getBigUint64(s, true);
      const type = v.getUint8(s + 8);
      if (type !== EVENTTYPE_CLOCK) {
        descriptors.push({ userdata, type });
        continue;
      }
      const id = v.getUint32(s + 16, true);
      const timeout = v.getBigUint64(s + 24, true);
      const absolute = (v.getUint16(s + 40, true) & SUBSCRIPTION_CLOCK_ABSTIME) !== 0;
      // Deadlines on the monotonic clock, whichever clock the subscription names.
      clocks.push({ userdata, at: this.now(MONOTONIC) + (absolute ? timeout - this.now(id) : timeout) });
    }
    let n = 0;
    const write = (userdata: bigint, error: number, type: number) => {
      const e = events + 32 * n++;
      this.bytes(e, 32).fill(0);
      v.setBigUint64(e, userdata, true);
      v.setUint16(e + 8, error, true);
      v.setUint8(e + 10, type);
    };
    if (clocks.length) {
      const earliest = clocks.reduce((a, c) => (c.at < a ? c.at : a), clocks[0].at);
      const waitMs = Number(earliest - this.now(MONOTONIC)) / 1e6;
      if (waitMs > 0) Atomics.wait(this.sleeper, 0, 0, waitMs);
      const t = this.now(MONOTONIC);
      for (const c of clocks) if (c.at <= t) write(c.userdata, ESUCCESS, EVENTTYPE_CLOCK);
    }
    // Subscriptions to descriptors: none exist here.
    for (const d of descriptors) write(d.userdata, EBADF, d.type);
    v.setUint32(stored, n, true);
    return ESUCCESS;
  }
}

function isStdio(fd: number): boolean {
  return fd >= 0 && fd <= 2;
}

/** Nanoseconds of a WASI clock: the realtime clock, or a monotonic one for every other id. */
function hostNow(id: number): bigint {
  if (id === CLOCK_REALTIME) return BigInt(Date.now()) * 1_000_000n;
  return process.hrtime.bigint();
}
