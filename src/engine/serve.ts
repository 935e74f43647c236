/** The engine's side of the message protocol: inputs, requests with cancellation, events. */
import type { Engine } from './engine';
import type { EngineMethod, FromEngine, ToEngine } from './protocol';

export function serve(engine: Engine, post: (m: FromEngine) => void, listen: (handler: (m: ToEngine) => void) => void): void {
  const running = new Map<number, AbortController>();
  engine.onEvent((e) => post(e));
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
