/**
 * A few instances of one WebAssembly module, each its own worker thread (WasmModule), so builds
 * that do not depend on each other run at the same time. A caller leases one instance for a
 * sequence of calls that belong together (the kustomize module keeps a file set between calls);
 * at most `size` leases run at once, the rest wait in order. Instances beyond the first stop
 * after `idleMs` without a call, so they hold no memory when the pool is quiet; the first stops
 * after `firstIdleMs` (if given), and once none runs the compiled module is let go too. A crash,
 * a time limit or a cancellation touches only the instance it happened in (WasmModule's own
 * recovery).
 */
import * as os from 'node:os';
import type { MemFile } from './protocol';
import { WasmModule, type CallOptions, type WasmModuleName, type WasmModuleOptions, type WasmResult } from './host';

export interface WasmPoolOptions extends Omit<WasmModuleOptions, 'idleMs'> {
  /** Instances at most (leases running at once). */
  size: number;
  /** Idle time after which an instance beyond the first stops. */
  idleMs: number;
  /** Idle time after which the first instance stops; undefined: it is kept. */
  firstIdleMs?: number;
}

/** How much a lease would like an instance (higher first); e.g. one that already holds its files. */
export type Preference = (instance: WasmModule) => number;

interface Waiter {
  prefer?: Preference;
  take: (instance: WasmModule) => void;
}

/** Idle time after which instances beyond the first stop: they serve bursts of builds (an open, a branch switch). */
export const DEFAULT_IDLE_MS = 10_000;
/**
 * Idle time after which the last instance stops too, giving back its memory and the compiled
 * module's (on the generated 10k-file repository ~120 MB); the next build starts a fresh one.
 */
export const DEFAULT_FIRST_IDLE_MS = 60_000;

export class WasmPool {
  readonly size: number;
  private readonly instances: WasmModule[];
  private readonly free: WasmModule[];
  private readonly waiting: Waiter[] = [];
  /** Leases running now, and the most that ever ran at once (for tests and benchmarks). */
  running = 0;
  peakRunning = 0;
  /** Leases that waited for an instance (builds prepared while the instances were busy). */
  waited = 0;

  constructor(
    readonly name: WasmModuleName,
    opts: WasmPoolOptions,
  ) {
    this.size = Math.max(1, Math.floor(opts.size));
    this.instances = Array.from(
      { length: this.size },
      (_, i) =>
        new WasmModule(name, {
          file: opts.file,
          maxMemoryBytes: opts.maxMemoryBytes,
          memoryLimitBytes: opts.memoryLimitBytes,
          idleMs: i === 0 ? opts.firstIdleMs : opts.idleMs,
          onIdleStop: () => {
            if (this.alive === 0 && this.running === 0) this.instances[0].forgetCompiled();
          },
        }),
    );
    this.free = [...this.instances];
  }

  /** Instances started so far, over all slots. */
  get started(): number {
    return this.instances.reduce((n, m) => n + m.instances, 0);
  }

  /** Instances running now. */
  get alive(): number {
    return this.instances.filter((m) => m.alive).length;
  }

  /** The most linear memory its instances may hold together, in bytes. */
  get memoryMaximumBytes(): number {
    return this.instances.reduce((n, m) => n + m.maxMemoryBytes, 0);
  }

  /** Linear memory of the running instances, in bytes. */
  get memoryBytes(): number {
    return this.instances.reduce((n, m) => n + (m.alive ? m.memoryBytes : 0), 0);
  }

  /**
   * Runs `use` with an instance of its own until it settles. A running instance is taken before
   * one that must start (starting costs the module's set-up), and among those, the one `prefer`
   * ranks highest.
   */
  async lease<T>(use: (instance: WasmModule) => Promise<T>, prefer?: Preference): Promise<T> {
    const instance = await this.acquire(prefer);
    this.running++;
    this.peakRunning = Math.max(this.peakRunning, this.running);
    try {
      return await use(instance);
    } finally {
      this.running--;
      this.release(instance);
    }
  }

  /**
   * Starts up to `count` instances that are not running, in the background, each with `use` (a
   * first call that sets it up), so that builds coming later find them ready. A lease arriving
   * meanwhile waits for them as for any busy instance.
   */
  warm(count: number, use: (instance: WasmModule) => Promise<unknown>): void {
    const idle = this.free.filter((m) => !m.alive).reverse().slice(0, Math.max(0, count));
    for (const instance of idle) {
      this.free.splice(this.free.indexOf(instance), 1);
      void use(instance)
        .catch(() => undefined)
        .finally(() => this.release(instance));
    }
  }

  /** Starts the first instance now, if none runs (WasmModule.prestart). */
  prestart(warmOp?: string): void {
    if (this.free.includes(this.instances[0])) this.instances[0].prestart(warmOp);
  }

  /** One call on whichever instance is free first. */
  call(op: string, args: unknown, files: readonly MemFile[], opts: CallOptions = {}): Promise<WasmResult> {
    return this.lease((m) => m.call(op, args, files, opts));
  }

  /** Compiles the module (once for all instances); as WasmModule.compile. */
  compile(): Promise<WasmResult> {
    return this.instances[0].compile();
  }

  /** Stops every instance; later leases start fresh ones. */
  async dispose(): Promise<void> {
    await Promise.all(this.instances.map((m) => m.dispose()));
  }

  private acquire(prefer?: Preference): Promise<WasmModule> {
    if (this.free.length) return Promise.resolve(this.pick(this.free, prefer));
    return new Promise((take) => {
      this.waiting.push({ prefer, take });
      this.waited++;
    });
  }

  private release(instance: WasmModule): void {
    const next = this.waiting.shift();
    if (next) next.take(instance);
    else this.free.push(instance);
  }

  private pick(candidates: WasmModule[], prefer?: Preference): WasmModule {
    let best = 0;
    const rank = (m: WasmModule) => (m.alive ? 1e6 : 0) + (prefer?.(m) ?? 0) - this.instances.indexOf(m) * 1e-3;
    for (let i = 1; i < candidates.length; i++) if (rank(candidates[i]) > rank(candidates[best])) best = i;
    return candidates.splice(best, 1)[0];
  }
}

/**
 * Instances of the kustomize module, so builds of one refinement round run side by side: one per
 * core, at most KUSTOMIZE_MAX_INSTANCES. Once a cold build's outputs came to the engine as data
 * (no YAML parse of them on its thread), the engine's thread waits on the instance most of a cold
 * open (10.2 s of 13.4 s, profiled on joryirving-home-ops), so on two cores a second instance pays:
 * a cold `check` of joryirving-home-ops 6.65 → 5.61 s and of bjw-s-labs-home-ops 3.18 → 2.74 s
 * (medians of three, for ≈ 50–90 MB more RSS while both run; the second stops when idle). It was
 * measured slower before (7.1–8.4 s against 6.6–7.2 s on bjw-s-labs-home-ops), when the engine's
 * thread parsed every output. GITOPS_PREVIEW_KUSTOMIZE_INSTANCES overrides it (benchmarks).
 */
export function kustomizePoolSize(cores: number = os.availableParallelism()): number {
  const fromEnv = Number(process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES);
  if (Number.isInteger(fromEnv) && fromEnv >= 1) return Math.min(fromEnv, 8);
  return Math.max(1, Math.min(KUSTOMIZE_MAX_INSTANCES, cores));
}

export const KUSTOMIZE_MAX_INSTANCES = 2;

/**
 * Instances of the helm module. Renders wait on nothing else (the Kustomization builds are done
 * before, and parsing a render's objects is small beside it), so unlike kustomize a second
 * instance pays on two cores: bjw-s-labs-home-ops' 45 renders from fresh instances took 5.2–6.7 s
 * with two against 7.7–8.9 s with one, for ≈ 190 MB more while both run (the second stops when
 * idle). GITOPS_PREVIEW_HELM_INSTANCES overrides it (benchmarks).
 */
export function helmPoolSize(cores: number = os.availableParallelism()): number {
  const fromEnv = Number(process.env.GITOPS_PREVIEW_HELM_INSTANCES);
  if (Number.isInteger(fromEnv) && fromEnv >= 1) return Math.min(fromEnv, 8);
  return Math.max(1, Math.min(HELM_MAX_INSTANCES, cores));
}

export const HELM_MAX_INSTANCES = 2;

function defaultPoolSize(name: WasmModuleName): number {
  return name === 'kustomize' ? kustomizePoolSize() : helmPoolSize();
}

const pools = new Map<WasmModuleName, WasmPool>();

/** The process-wide instances of a module (so repeated builds reuse them). */
export function wasmModule(name: WasmModuleName): WasmPool {
  let p = pools.get(name);
  if (!p) pools.set(name, (p = newPool(name, defaultPoolSize(name))));
  return p;
}

/** Replaces the process-wide instances of a module by a pool of `size` (the old ones are stopped). */
export async function setWasmPoolSize(name: WasmModuleName, size: number): Promise<WasmPool> {
  const old = pools.get(name);
  const p = newPool(name, size);
  pools.set(name, p);
  await old?.dispose();
  return p;
}

/**
 * Go's soft memory limit for a kustomize instance. With GOGC=200 the heap grows to three times
 * what is live before a collection, and the linear memory never shrinks: on the generated
 * 10k-file repository (its parsed documents kept between builds) an instance grew to 414 MB
 * without a limit, 167 MB at 160 MB and 105 MB at 96 MB, with the open and check as fast within
 * the noise (19.4 / 22.5 s against 19.4 / 21.4 s) and 40–60 MB less RSS; at 64 MB it spent a third
 * more time collecting. bjw-s-labs-home-ops' instance stays under it (83 MB). A build that needs
 * more still gets it (up to the hard maximum), with the collector running more often.
 * GITOPS_PREVIEW_WASM_MEMORY_LIMIT_MB overrides it (benchmarks).
 */
export const KUSTOMIZE_MEMORY_LIMIT_BYTES = 96 * 2 ** 20;

/**
 * WebAssembly memory of every instance of every module together: each instance's maximum is its
 * share of it (a linear memory cannot be capped as a group), so that two kustomize instances and
 * helm's cannot hold 2 GiB each and get the process killed with no output. A build that needs more
 * than its share crashes its instance, which is reported as that build's failure (`build-failed`,
 * "out of memory"). GITOPS_PREVIEW_MAX_WASM_MB (the user's environment) overrides it.
 */
export const WASM_MEMORY_BUDGET_BYTES = 2 * 1024 ** 3;

/** An instance's maximum when `instances` share the budget, in whole 64 KiB WebAssembly pages. */
export function instanceMemoryMaximum(instances: number, total: number = wasmMemoryBudget()): number {
  const page = 64 * 1024;
  return Math.max(1, Math.floor(total / Math.max(1, instances) / page)) * page;
}

function wasmMemoryBudget(): number {
  const mb = Number(process.env.GITOPS_PREVIEW_MAX_WASM_MB);
  return Number.isFinite(mb) && mb > 0 ? mb * 2 ** 20 : WASM_MEMORY_BUDGET_BYTES;
}

/** Instances of every module that may run at once, were `name`'s pool of `size`. */
function instancesWith(name: WasmModuleName, size: number): number {
  const sizeOf = (m: WasmModuleName) => (m === name ? size : (pools.get(m)?.size ?? defaultPoolSize(m)));
  return sizeOf('kustomize') + sizeOf('helm');
}

function newPool(name: WasmModuleName, size: number): WasmPool {
  const limitMb = Number(process.env.GITOPS_PREVIEW_WASM_MEMORY_LIMIT_MB);
  const memoryLimitBytes = Number.isFinite(limitMb) && limitMb > 0 ? limitMb * 2 ** 20 : name === 'kustomize' ? KUSTOMIZE_MEMORY_LIMIT_BYTES : undefined;
  const maxMemoryBytes = instanceMemoryMaximum(instancesWith(name, size));
  return new WasmPool(name, { size, idleMs: DEFAULT_IDLE_MS, firstIdleMs: DEFAULT_FIRST_IDLE_MS, memoryLimitBytes, maxMemoryBytes });
}
