/** The engine's side of the message protocol: inputs, requests with cancellation, events. */
import type { Engine } from './engine';
import type { EngineMethod, FileDiagnostics, FromEngine, ToEngine } from './protocol';

/**
 * Diagnostics per message, and the pause between messages, when a publication is large. The
 * receiver deserialises a message in one go on its thread (the extension host's): one message with
 * 10,000 files of diagnostics (2.9 MB) takes hundreds of ms there, 250 diagnostics a few ms. Node
 * delivers every message already queued in one turn, so the parts are spaced, not only split.
 */
export const DIAGNOSTICS_PER_MESSAGE = 250;
export const DIAGNOSTICS_PAUSE_MS = 5;

export function serve(engine: Engine, post: (m: FromEngine) => void, listen: (handler: (m: ToEngine) => void) => void): void {
  const running = new Map<number, AbortController>();
  const publish = diagnosticsPublisher(post);
  engine.onEvent((e) => (e.type === 'diagnostics' ? publish(e.files) : post(e)));
  listen((msg) => {
    if (msg.type === 'cancel') {
      running.get(msg.id)?.abort();
      return;
    }
    if (msg.type !== 'request') {
      try {
        engine.input(msg);
      } catch (err) {
        post({ type: 'log', message: `[engine] ${msg.type} failed: ${(err as Error).stack ?? err}` });
      }
      return;
    }
    const abort = new AbortController();
    running.set(msg.id, abort);
    engine
      .request(msg.method as EngineMethod, msg.params as never, abort.signal)
      .then(
        (result) => post({ type: 'response', id: msg.id, result }),
        (err: unknown) => post({ type: 'response', id: msg.id, error: (err as Error)?.message ?? String(err) }),
      )
      .finally(() => running.delete(msg.id));
  });
}

/**
 * Posts diagnostics in parts of at most DIAGNOSTICS_PER_MESSAGE (a file's list is never split).
 * Files still waiting when a newer publication arrives take its lists: a stale list is never sent
 * after a newer one.
 */
function diagnosticsPublisher(post: (m: FromEngine) => void): (files: FileDiagnostics[]) => void {
  const waiting = new Map<string, FileDiagnostics>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = () => {
    timer = undefined;
    const files: FileDiagnostics[] = [];
    let count = 0;
    for (const [file, f] of waiting) {
      const cost = Math.max(1, f.diagnostics.length);
      if (files.length && count + cost > DIAGNOSTICS_PER_MESSAGE) break;
      files.push(f);
      count += cost;
      waiting.delete(file);
    }
    post({ type: 'diagnostics', files });
    if (waiting.size) timer = setTimeout(next, DIAGNOSTICS_PAUSE_MS);
  };
  return (files) => {
    for (const f of files) {
      waiting.delete(f.file);
      waiting.set(f.file, f);
    }
    if (!timer && waiting.size) next();
  };
}

/** Engine and client in one thread (tests; the CLI calls the engine directly). */
export function localTransport(engine: Engine): import('./client').EngineTransport {
  let deliver: ((m: FromEngine) => void) | undefined;
  let handler: ((m: ToEngine) => void) | undefined;
  serve(engine, (m) => queueMicrotask(() => deliver?.(m)), (h) => (handler = h));
  return {
    post: (m) => queueMicrotask(() => handler?.(m)),
    onMessage: (h) => (deliver = h),
    close: () => engine.dispose(),
  };
}
