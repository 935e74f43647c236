/**
 * The engine's worker thread (bundled as dist/engineWorker.js): indexing, model builds, checks and
 * renders run here, never on the editor's extension host thread.
 */
import * as os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { nodeEngine } from './node';
import type { FromEngine, ToEngine } from './protocol';
import { serve } from './serve';

if (!parentPort) throw new Error('engineWorker must run as a worker thread');
const port = parentPort;
const data = (workerData ?? {}) as { debounceMs?: number; foreground?: boolean };
// The engine is background work. On a busy machine the extension host's thread otherwise waits
// for a CPU behind this one (measured: 200+ ms, see docs/benchmarks.md). On Linux a thread has its
// own nice value (setpriority of "0" is the calling thread), so this lowers only the engine and
// the threads it starts (the WebAssembly instances); elsewhere it would lower the whole process.
if (process.platform === 'linux' && !data.foreground) {
  try {
    os.setPriority(os.constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not permitted (a sandbox): run at the default priority.
  }
}
const engine = nodeEngine({ debounceMs: data.debounceMs });
serve(engine, (m: FromEngine) => port.postMessage(m), (handler: (m: ToEngine) => void) => port.on('message', handler));
