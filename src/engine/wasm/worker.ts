/**
 * Owns one long-lived instance of a WebAssembly module (wasm/cmd/*) in a worker thread, so a
 * build that runs too long can be stopped by terminating the thread and the extension host never
 * blocks on it. The instance sees no files, no environment, no clock beyond WASI's, no network: its
 * WASI is ./wasi.ts, with no preopened folder and an environment holding only the collector's setting.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parentPort } from 'node:worker_threads';
import { withMemoryMaximum } from './binary';
import { callInstance, encodeRequest, type FromWorker, type RequestExports, type ToWorker } from './protocol';
import { INSTANCE_WASI, restoreSnapshot } from './snapshot';
import { Wasi, WasiExit } from './wasi';
import { sealSharedPrototypes } from '../../node/sealPrototypes';

interface Exports extends RequestExports {
  memory: WebAssembly.Memory;
  set_memory_limit(bytes: bigint): void;
  collect_if_due(): number;
}

sealSharedPrototypes();
let exports: Exports | undefined;
let log: ModuleLog | undefined;

/**
 * The module's stdout and stderr: a file of its own, not the host's streams. Go writes a fatal
 * error there (with a dump of every goroutine) before it traps with a bare "unreachable", and
 * kustomize logs its warnings there; the trap message takes the reason from it, and nothing
 * reaches the terminal of the CLI or the extension host's log. Emptied after every call.
 */
class ModuleLog {
  readonly fd: number;
  constructor() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-wasm-'));
    const file = path.join(dir, 'stderr');
    // Appending, so the module's writes land at the end whatever was emptied before.
    this.fd = fs.openSync(file, 'a+');
    // Removed at once (the descriptor keeps it): a worker that is terminated leaves nothing behind.
    try {
      fs.unlinkSync(file);
      fs.rmdirSync(dir);
    } catch {
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    }
  }
  clear(): void {
    fs.ftruncateSync(this.fd, 0);
  }
  /** Go's reason for a fatal error ("fatal error: out of memory"), else the last line written. */
  reason(): string | undefined {
    const size = fs.fstatSync(this.fd).size;
    const len = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(len);
    fs.readSync(this.fd, buf, 0, len, 0);
    const text = buf.toString('utf8');
    const fatal = /^(?:fatal error|panic|runtime): .*$/m.exec(text)?.[0];
    return fatal ?? text.trim().split('\n').filter(Boolean).pop();
  }
  dispose(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}

function post(msg: FromWorker): void {
  parentPort!.postMessage(msg);
}

async function init(msg: Extract<ToWorker, { type: 'init' }>): Promise<{ fromSnapshot: boolean; snapshotProblem?: string }> {
  let module: WebAssembly.Module;
  if (msg.module instanceof WebAssembly.Module) module = msg.module;
  else {
    // Compiled here when the host could not wait for it (an open reads and parses the workspace
    // meanwhile, on its own thread); the host's other instances get this compilation.
    module = await WebAssembly.compile(withMemoryMaximum(await fs.promises.readFile(msg.module.file), msg.maxMemoryBytes));
    post({ type: 'compiled', module });
  }
  log = new ModuleLog();
  let wasi = new Wasi({ ...INSTANCE_WASI, outputFd: log.fd });
  let instance = await WebAssembly.instantiate(module, wasi.imports());
  // Laid from the module's snapshot, set up already (warmOp included); else set up here. A damaged
  // snapshot may have been laid in part: a fresh instance is set up instead, and the host told why.
  let restored = false;
  let snapshotProblem: string | undefined;
  try {
    restored = msg.snapshot !== undefined && restoreSnapshot(msg.snapshot, module, instance, wasi);
  } catch (err) {
    snapshotProblem = (err as Error).message;
    wasi = new Wasi({ ...INSTANCE_WASI, outputFd: log.fd });
    instance = await WebAssembly.instantiate(module, wasi.imports());
  }
  if (!restored) wasi.initialize(instance);
  exports = instance.exports as unknown as Exports;
  // Go's collector works harder as the heap nears this soft limit (below the hard maximum) instead
  // of growing the linear memory, which never shrinks.
  exports.set_memory_limit(BigInt(Math.floor(msg.memoryLimitBytes)));
  if (msg.warmOp && !restored) {
    call(encodeRequest(msg.warmOp, {}, []));
    log.clear();
  }
  return { fromSnapshot: restored, snapshotProblem };
}

function call(request: Uint8Array): { text: string; memoryBytes: number } {
  const e = exports!;
  return { text: callInstance(e, request), memoryBytes: e.memory.buffer.byteLength };
}

/** How long the instance must have had no call before it collects (the editor's debounce is 150 ms). */
const COLLECT_WHEN_IDLE_MS = 50;
let collectTimer: NodeJS.Timeout | undefined;

function collectIfDue(): void {
  try {
    exports?.collect_if_due();
  } catch (err) {
    trapped(err);
  }
}

/** The instance is dead: says why, and the thread ends itself (the host starts a fresh one on the next call). */
function trapped(err: unknown): never {
  exports = undefined;
  // WASI's proc_exit (Go's os.Exit, a fatal error) unwinds with a WasiExit.
  const reason = log?.reason();
  const trap = err instanceof WasiExit ? 'the module exited' : err instanceof Error ? err.message : String(err);
  post({ type: 'trap', message: reason ? `${reason} (${trap})` : trap });
  log?.dispose();
  process.exit(1);
}

parentPort!.on('message', (msg: ToWorker) => {
  if (msg.type === 'init') {
    init(msg).then(
      (started) => post({ type: 'ready', ...started }),
      (err: unknown) => post({ type: 'trap', message: `could not start the module: ${(err as Error).message}` }),
    );
    return;
  }
  clearTimeout(collectTimer);
  try {
    const answer = call(msg.request);
    log?.clear();
    post({ type: 'answer', ...answer });
    // Once the instance is idle, the collection the next call would have run (Go's collector has one
    // thread here, so inside a call it adds its whole time to it). Not between the calls of a burst
    // (an open's builds follow each other closely): a forced collection is a whole one, so there it
    // would only add time. An edit's build comes after the editor's debounce, well after this.
    collectTimer = setTimeout(collectIfDue, COLLECT_WHEN_IDLE_MS);
  } catch (err) {
    trapped(err);
  }
});
