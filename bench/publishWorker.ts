/**
 * Worker for the publication benchmark (engine.bench.ts): the engine's real `serve()` posting one
 * diagnostics publication of `files` files (one diagnostic each), in parts as the engine does, or
 * — `whole` — as one message, as it did before.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Engine } from '../src/engine/engine';
import type { EngineEvent, FileDiagnostics, FromEngine } from '../src/engine/protocol';
import { serve } from '../src/engine/serve';

const { files, whole } = workerData as { files: number; whole: boolean };
const port = parentPort!;
const publication: FileDiagnostics[] = Array.from({ length: files }, (_, i) => {
  const file = `/home/user/fleet/apps/g${String(i % 20).padStart(2, '0')}/app-${i}/ks.yaml`;
  return {
    file,
    diagnostics: [
      { file, range: { start: { line: 8, character: 12 }, end: { line: 8, character: 24 } }, rule: 'depends-on-not-found', severity: 'error', message: `dependency 'flux-system/app-${i}x' not found`, related: [] },
    ],
  };
});
let emit: (e: EngineEvent) => void = () => undefined;
const engine = { onEvent: (l: (e: EngineEvent) => void) => (emit = l) } as unknown as Engine;
const post = (m: FromEngine) => port.postMessage(m);
serve(engine, post, () => undefined);
port.on('message', () => {
  if (whole) post({ type: 'diagnostics', files: publication });
  else emit({ type: 'diagnostics', files: publication });
});
