/**
 * The engine's worker thread (bundled as dist/engineWorkerBundle.js, loaded by dist/engineWorker.js): indexing, model builds, checks and
 * renders run here, never on the editor's extension host thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { nodeEngine } from './node';
import { gitBaseReader } from './gitBase';
import type { FromEngine, ToEngine } from './protocol';
import { serve } from './serve';
import { sealSharedPrototypes } from '../node/sealPrototypes';

sealSharedPrototypes();
if (!parentPort) throw new Error('engineWorker must run as a worker thread');
const port = parentPort;
const engine = nodeEngine({ debounceMs: (workerData as { debounceMs?: number } | undefined)?.debounceMs, bases: gitBaseReader() });
serve(engine, (m: FromEngine) => port.postMessage(m), (handler: (m: ToEngine) => void) => port.on('message', handler));
// The worker's own start (its bundle loaded, the engine made), as the editor's log shows it.
const created = (workerData as { created?: number } | undefined)?.created;
if (created) port.postMessage({ type: 'log', message: `[engine] worker started ${Date.now() - created} ms after it was asked for` } satisfies FromEngine);
