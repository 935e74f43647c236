/**
 * Runs kustomize's and helm's own Go code, compiled to WebAssembly (wasm/, scripts/build-wasm.sh),
 * in-process: a module is compiled once (lazily, shared by its instances) and a WasmModule keeps
 * one long-lived instance of it in a worker thread (pool.ts keeps a few). Calls run one at a time;
 * a call that outlives its time limit or is cancelled stops the worker, and a module that traps (a
 * Go fatal error, memory beyond its maximum) is replaced by a fresh instance on the next call. No
 * process is started.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { withMemoryMaximum } from './binary';
import { encodeRequest, type Answer, type FromWorker, type MemFile, type ToWorker } from './protocol';

export type WasmModuleName = 'kustomize' | 'helm';

export type WasmFailureKind =
  /** The operation returned an error (kustomize's or helm's own message). */
  | 'failed'
  /** The operation panicked; Go recovered it and the instance lives on. */
  | 'panic'
  /** The module died (Go fatal error, out of its memory maximum): a fresh instance serves the next call. */
  | 'crashed'
  | 'timeout'
  | 'cancelled'
  /** dist/wasm/<name>.wasm is not there (scripts/build-wasm.sh was not run) or is not a module. */
  | 'missing-module';

export type WasmResult = { ok: true; output: string } | { ok: false; kind: WasmFailureKind; message: string };

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export const DEFAULT_WASM_TIMEOUT_MS = 60_000;
/** Hard maximum of a module's linear memory when none is given (pools give each instance its share, pool.ts); Go's soft limit is set to 3/4 of it. */
export const DEFAULT_MAX_MEMORY_BYTES = 2 * 1024 ** 3;

/** Where the modules are: next to the bundle (dist/wasm), or dist/wasm of the repository when run from sources. */
export function wasmDir(): string {
  const fromEnv = process.env.GITOPS_PREVIEW_WASM_DIR;
  if (fromEnv) return fromEnv;
  const bundled = path.join(__dirname, 'wasm');
  if (fs.existsSync(bundled)) return bundled;
  return path.resolve(__dirname, '..', '..', '..', 'dist', 'wasm');
}

/** The module's snapshot (./snapshot.ts), written beside it by scripts/build-wasm.sh. */
export function snapshotFile(moduleFile: string): string {
  return moduleFile.replace(/\.wasm$/, '') + '.snapshot';
}

function newWorker(): Worker {
  // The bundle has dist/wasm-worker.js. Under tsx (tests, benchmarks) the sources run directly, and
  // a worker thread does not inherit tsx's loader for a .ts entry, so it registers it first.
  if (!__filename.endsWith('.ts')) return new Worker(path.join(__dirname, 'wasm-worker.js'));
  const entry = JSON.stringify(path.join(__dirname, 'worker.ts'));
  return new Worker(`require('tsx/cjs'); require(${entry});`, { eval: true });
}

interface Live {
  worker: Worker;
  ready: Promise<void>;
  exited?: Promise<void>;
  /** Settles the call in flight when the worker answers, traps or exits. */
  pending?: (msg: FromWorker | { type: 'exit'; code: number }) => void;
}

/** Compiled modules by file and memory maximum: the instances of a pool share one compilation. */
const compiledModules = new Map<string, Promise<WebAssembly.Module>>();
/** The same, once compiled: a prestart hands the module over synchronously. */
const readyModules = new Map<string, WebAssembly.Module>();

interface Compiling {
  resolve: (m: WebAssembly.Module) => void;
  reject: (e: Error) => void;
}

export interface WasmModuleOptions {
  file?: string;
  maxMemoryBytes?: number;
  /** Go's soft memory limit (runtime/debug.SetMemoryLimit); default 3/4 of the maximum. */
  memoryLimitBytes?: number;
  /**
   * Stop the instance after this long without a call, giving its memory back (Go's heap never
   * shrinks the linear memory; a fresh instance is the only way back). Undefined: kept.
   */
  idleMs?: number;
  /** Called after the instance stopped for being idle. */
  onIdleStop?: () => void;
}

/**
 * Workers stopped (terminated, trapped, timed out) that have not exited yet, of every module and
 * instance: a worker is compiled for or started only once they all have. Starting one while another
 * was still being torn down was seen to crash V8 (SIGSEGV of the whole process) while the modules
 * ran on node:wasi, whose fast API calls crash the process that way (see wasi.ts); whether those
 * crashes had that cause too is not known, so the order is kept: it costs a start a few ms.
 */
const exiting = new Set<Promise<void>>();

function retire(exited: Promise<void> | undefined): void {
  if (!exited || exiting.has(exited)) return;
  exiting.add(exited);
  void exited.then(() => exiting.delete(exited));
}

async function allRetired(): Promise<void> {
  while (exiting.size) await Promise.all(exiting);
}

export class WasmModule {
  private live?: Live;
  private readonly file: string;
  /** Hard maximum of the instance's linear memory (its share of the pool's, pool.ts). */
  readonly maxMemoryBytes: number;
  private readonly memoryLimitBytes: number;
  private readonly idleMs?: number;
  private readonly onIdleStop?: () => void;
  private idleTimer?: NodeJS.Timeout;
  /** Calls queued or running. */
  private busy = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Instances started so far (a trap or a timeout makes the next call start another). */
  instances = 0;
  /** Of those, the ones laid from the module's snapshot (./snapshot.ts) instead of set up. */
  instancesFromSnapshot = 0;
  /** Why the last instance could not be laid from the snapshot beside the module (then it was set up). */
  snapshotProblem: string | undefined;
  /** Linear memory of the instance after its last call, in bytes. */
  memoryBytes = 0;

  constructor(
    readonly name: WasmModuleName,
    fileOrOptions: string | WasmModuleOptions = {},
    maxMemoryBytes?: number,
  ) {
    const o = typeof fileOrOptions === 'string' ? { file: fileOrOptions, maxMemoryBytes } : fileOrOptions;
    this.file = o.file ?? path.join(wasmDir(), `${name}.wasm`);
    this.maxMemoryBytes = o.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
    this.memoryLimitBytes = Math.min(('memoryLimitBytes' in o ? o.memoryLimitBytes : undefined) ?? Infinity, this.maxMemoryBytes * 0.75);
    this.idleMs = o.idleMs;
    this.onIdleStop = 'onIdleStop' in o ? o.onIdleStop : undefined;
  }

  /** Whether an instance is running (it holds memory and whatever state it kept). */
  get alive(): boolean {
    return this.live !== undefined;
  }

  /** Runs `op` over `files` with `args`; calls are queued and run one at a time. */
  call(op: string, args: unknown, files: readonly MemFile[], opts: CallOptions = {}): Promise<WasmResult> {
    this.busy++;
    clearTimeout(this.idleTimer);
    const run = this.queue.then(() => this.run(op, args, files, opts));
    this.queue = run.catch(() => undefined);
    void this.queue.then(() => {
      if (--this.busy === 0) this.stopWhenIdle();
    });
    return run;
  }

  private stopWhenIdle(): void {
    if (this.idleMs === undefined || !this.live) return;
    this.idleTimer = setTimeout(() => {
      if (this.busy === 0) void this.dispose().then(() => this.onIdleStop?.());
    }, this.idleMs);
    this.idleTimer.unref();
  }

  /**
   * Starts the instance now, if none runs, and has it run `warmOp` first (setting itself up): for a
   * caller about to keep this thread busy (an open parses the workspace synchronously) while the
   * instance could already be starting. Unlike a call this needs nothing more of this thread: when
   * the module is not compiled yet, the worker compiles it (and hands the compilation back for the
   * other instances). A module that is missing is left to the first call to report.
   */
  prestart(warmOp?: string): void {
    if (this.live || exiting.size || !fs.existsSync(this.file)) return;
    const id = this.compiledId;
    const compiled = readyModules.get(id);
    if (compiled && compiledModules.has(id)) {
      this.live = this.start(compiled, warmOp);
    } else {
      let settle!: Compiling;
      const promise = new Promise<WebAssembly.Module>((resolve, reject) => (settle = { resolve, reject }));
      promise.catch(() => undefined);
      compiledModules.set(id, promise);
      promise.then((m) => readyModules.set(id, m), () => undefined);
      const compiling: Compiling = {
        resolve: settle.resolve,
        reject: (err) => {
          if (compiledModules.get(id) === promise) compiledModules.delete(id);
          settle.reject(err);
        },
      };
      this.live = this.start({ file: this.file }, warmOp, compiling);
    }
    this.live.worker.unref();
    this.stopWhenIdle();
  }

  /** Compiles the module (once); resolves to the compile time in ms, or a failure. */
  async compile(): Promise<WasmResult> {
    const t0 = performance.now();
    try {
      await this.module();
    } catch (err) {
      return { ok: false, kind: 'missing-module', message: (err as Error).message };
    }
    return { ok: true, output: String(performance.now() - t0) };
  }

  /** Stops the instance; a later call starts a fresh one. */
  async dispose(): Promise<void> {
    clearTimeout(this.idleTimer);
    const live = this.live;
    this.live = undefined;
    this.memoryBytes = 0;
    if (!live) return;
    retire(live.exited);
    await live.worker.terminate();
  }

  /**
   * Lets go of the compiled module (its machine code is tens of MB); the next call compiles it
   * again. For when no instance of it runs.
   */
  forgetCompiled(): void {
    compiledModules.delete(this.compiledId);
    readyModules.delete(this.compiledId);
  }

  private get compiledId(): string {
    return `${this.file}|${this.maxMemoryBytes}`;
  }

  private module(): Promise<WebAssembly.Module> {
    const id = this.compiledId;
    let compiled = compiledModules.get(id);
    if (compiled) return compiled;
    compiled = fs.promises.readFile(this.file).then(
      (bytes) => WebAssembly.compile(withMemoryMaximum(bytes, this.maxMemoryBytes)),
      (err: NodeJS.ErrnoException) => {
        throw new Error(
          err.code === 'ENOENT'
            ? `the ${this.name} WebAssembly module is missing (${this.file}); build it with \`bash scripts/build-wasm.sh\` (make build does)`
            : `cannot read ${this.file}: ${err.message}`,
        );
      },
    );
    compiledModules.set(id, compiled);
    compiled.then(
      (m) => readyModules.set(id, m),
      () => compiledModules.delete(id),
    );
    return compiled;
  }

  /** `compiling`: the compilation the worker is asked to make, settled by its `compiled` message or failed with its start. */
  private start(module: WebAssembly.Module | { file: string }, warmOp?: string, compiling?: Compiling): Live {
    const worker = newWorker();
    this.instances++;
    const live: Live = { worker, ready: Promise.resolve() };
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const compileFailed = (message: string) => compiling?.reject(new Error(`the ${this.name} WebAssembly module could not be compiled: ${message}`));
    worker.on('message', (msg: FromWorker) => {
      if (msg.type === 'compiled') compiling?.resolve(msg.module);
      else {
        if (msg.type === 'trap') compileFailed(msg.message);
        live.pending?.(msg);
      }
    });
    worker.on('error', (err) => {
      compileFailed(err.message);
      live.pending?.({ type: 'trap', message: err.message });
    });
    worker.on('exit', (code) => {
      compileFailed(`the worker exited (${code})`);
      if (this.live === live) this.live = undefined;
      live.pending?.({ type: 'exit', code });
    });
    live.ready = new Promise<void>((resolve, reject) => {
      live.pending = (msg) => {
        live.pending = undefined;
        if (msg.type === 'ready') {
          if (msg.fromSnapshot) this.instancesFromSnapshot++;
          if (msg.snapshotProblem && msg.snapshotProblem !== this.snapshotProblem) {
            console.warn(`gitops-preview: ${this.name}'s snapshot could not be used (${msg.snapshotProblem}); its instances set themselves up instead, which is slower. \`bash scripts/build-wasm.sh\` writes it again.`);
          }
          this.snapshotProblem = msg.snapshotProblem;
          resolve();
        }
        else reject(new Error(msg.type === 'trap' ? msg.message : `the worker exited (${msg.type === 'exit' ? msg.code : ''})`));
      };
    });
    // A prestarted instance may fail to start before any call waits for it; the next call reads the failure.
    live.ready.catch(() => undefined);
    const init: ToWorker = {
      type: 'init',
      module,
      maxMemoryBytes: this.maxMemoryBytes,
      memoryLimitBytes: this.memoryLimitBytes,
      warmOp,
      snapshot: snapshotFile(this.file),
    };
    worker.postMessage(init);
    live.exited = exited;
    return live;
  }

  private async run(op: string, args: unknown, files: readonly MemFile[], opts: CallOptions): Promise<WasmResult> {
    const label = `${this.name} (WebAssembly)`;
    if (opts.signal?.aborted) return { ok: false, kind: 'cancelled', message: `${label} was cancelled` };
    if (!this.live) await allRetired();
    // A prestarted worker may still be compiling the module awaited here: it keeps the process alive meanwhile.
    this.live?.worker.ref();
    let module: WebAssembly.Module;
    try {
      module = await this.module();
    } catch (err) {
      return { ok: false, kind: 'missing-module', message: (err as Error).message };
    }
    const request = encodeRequest(op, args, files);
    if (!this.live) await allRetired();
    const live = (this.live ??= this.start(module));
    live.worker.ref();
    const timeoutMs = opts.timeoutMs ?? DEFAULT_WASM_TIMEOUT_MS;
    return new Promise<WasmResult>((resolve) => {
      let settled = false;
      const finish = (result: WasmResult, stop: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        live.pending = undefined;
        if (stop) void live.worker.terminate();
        if (this.live === live && !stop) {
          live.worker.unref();
        } else {
          // A dead or stopped worker stays referenced until it has exited, and the next one waits for that.
          if (this.live === live) this.live = undefined;
          retire(live.exited);
        }
        resolve(result);
      };
      const timer = setTimeout(
        () => finish({ ok: false, kind: 'timeout', message: `${label} did not finish within ${Math.round(timeoutMs / 100) / 10} s and was stopped` }, true),
        timeoutMs,
      );
      const onAbort = () => finish({ ok: false, kind: 'cancelled', message: `${label} was cancelled` }, true);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      live.ready.then(
        () => {
          if (settled) return;
          live.pending = (msg) => {
            if (msg.type === 'answer') {
              this.memoryBytes = msg.memoryBytes;
              finish(decode(msg.text, label), false);
            } else if (msg.type === 'trap') {
              // The worker ends itself after a trap; it is not terminated from here.
              if (this.live === live) this.live = undefined;
              finish({ ok: false, kind: 'crashed', message: `${label} crashed and will be restarted: ${msg.message}` }, false);
            }
            else finish({ ok: false, kind: 'crashed', message: `${label} stopped unexpectedly and will be restarted` }, true);
          };
          live.worker.postMessage({ type: 'call', request }, [request.buffer as ArrayBuffer]);
        },
        (err: Error) => finish({ ok: false, kind: 'crashed', message: `${label} could not start: ${err.message}` }, true),
      );
    });
  }
}

function decode(text: string, label: string): WasmResult {
  let a: Answer;
  try {
    a = JSON.parse(text) as Answer;
  } catch {
    return { ok: false, kind: 'crashed', message: `${label} answered something that is not JSON` };
  }
  if (a.ok) return { ok: true, output: a.output ?? '' };
  if (a.panic) return { ok: false, kind: 'panic', message: `${label} panicked: ${a.error ?? ''}` };
  return { ok: false, kind: 'failed', message: a.error ?? 'failed without a message' };
}
