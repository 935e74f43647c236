/**
 * The overall limit of a CLI command: its work runs in a worker thread with a heap ceiling, and
 * this thread stops it at a deadline. Budgets (core/budgets.ts) make each known way of spending
 * time or memory stop with a finding; this catches whatever they miss (a synchronous loop, a
 * data shape no budget anticipates), because only another thread can stop a thread that never
 * yields, and only a worker's own heap limit turns "out of memory" into an error instead of a
 * process abort. Either way the command ends with exit 2 and says why, never with a partial
 * answer that reads as clean.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { describeMs } from '../core/budgets';
import { EXIT_USAGE, type CliIO } from './io';
import { sealSharedPrototypes } from '../node/sealPrototypes';
import { readAhead, readAheadRoot } from './readAhead';

export interface Watchdog {
  /** Wall-clock time of the whole command. */
  readonly timeMs: number;
  /** JavaScript heap of the command's worker (WebAssembly memory has its own budget, wasm/pool.ts). */
  readonly memoryMb: number;
}

/** Far above the budgets it backs (300 s of builds) and real repositories' heaps (tens to hundreds of MB). */
export const DEFAULT_WATCHDOG: Watchdog = { timeMs: 600_000, memoryMb: 3072 };

type FromCli = { type: 'stdout' | 'stderr'; text: string } | { type: 'done'; code: number };

interface CliWorkerData {
  readonly gitopsPreviewCli: { argv: string[]; cwd: string };
}

/**
 * Runs `runCli(argv)` in a worker under `limits`, relaying its output to `io`; resolves to its
 * exit code, or to 2 after saying why the watchdog stopped it. `entry` is the module that calls
 * serveWatched when loaded: the CLI bundle, or main.ts from sources.
 */
export function runWatched(argv: string[], io: CliIO, limits: Watchdog, entry: string): Promise<number> {
  const name = argv[0] ?? '';
  const data: CliWorkerData = { gitopsPreviewCli: { argv, cwd: io.cwd } };
  const options = { workerData: data, env: io.env, resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb }, stdout: false, stderr: false };
  // From sources (tests) the worker registers tsx first, as the WebAssembly workers do (wasm/host.ts).
  const worker = entry.endsWith('.ts') ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(entry)});`, { ...options, eval: true }) : new Worker(entry, options);
  // While the worker starts, this thread reads the workspace ahead for it.
  const root = readAheadRoot(argv, io.cwd);
  if (root) worker.postMessage(readAhead(root));
  return new Promise((resolve) => {
    let code: number | undefined;
    let stopped: string | undefined;
    const stop = (why: string) => {
      if (stopped || code !== undefined) return;
      stopped = why;
      void worker.terminate();
    };
    // A command that has answered but whose worker lingers (a handle left open) ends with its answer.
    const deadline = setTimeout(() => {
      if (code !== undefined) void worker.terminate();
      else stop(`stopped after ${describeMs(limits.timeMs)}, the overall time limit of a command (--time-limit SECONDS raises it); the repository may hold inputs built to be slow`);
    }, limits.timeMs);
    worker.on('message', (msg: FromCli) => {
      if (msg.type === 'done') code = msg.code;
      else io[msg.type](msg.text);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') stop(`stopped: its work needed more than the ${limits.memoryMb} MB memory ceiling of a command (--max-memory-mb raises it); the repository may hold inputs built to exhaust memory`);
      else stop(`stopped by an internal error: ${err.stack ?? err.message}`);
    });
    worker.on('exit', (exitCode) => {
      clearTimeout(deadline);
      if (code !== undefined && !stopped) return resolve(code);
      io.stderr(`gitops-preview ${name}: ${stopped ?? `stopped unexpectedly (worker exit ${exitCode})`}\n`);
      resolve(EXIT_USAGE);
    });
  });
}

/** In the worker runWatched starts: runs the command, sends its output and exit code, then ends. */
export function serveWatched(run: (argv: string[], io: CliIO) => Promise<number>): boolean {
  const job = (workerData as Partial<CliWorkerData> | undefined)?.gitopsPreviewCli;
  if (isMainThread || !job || !parentPort) return false;
  sealSharedPrototypes();
  const port = parentPort;
  const io: CliIO = { stdout: (text) => port.postMessage({ type: 'stdout', text }), stderr: (text) => port.postMessage({ type: 'stderr', text }), cwd: job.cwd, env: process.env };
  // The worker ends as soon as it has answered, its exit handlers saving the caches: left to end by
  // itself, it waited ≈ 20 ms with nothing to do (node lets V8's background collection finish first).
  void run(job.argv, io).then(
    (code) => {
      port.postMessage({ type: 'done', code });
      process.exit(code);
    },
    (err: Error) => {
      port.postMessage({ type: 'stderr', text: `gitops-preview: ${err.stack ?? err}\n` });
      port.postMessage({ type: 'done', code: EXIT_USAGE });
      process.exit(EXIT_USAGE);
    },
  );
  return true;
}
