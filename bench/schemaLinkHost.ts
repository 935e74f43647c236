/**
 * Child process of schema.bench.ts: what a fresh process (a CLI `check`) pays once before its first
 * built-in kind is judged, which the parent, having judged many, can no longer see. Prints one JSON line.
 */
import { builtinSchema } from '../src/core/schema/kube';
import { reportAndExit } from './childProcess';

reportAndExit(
  (async () => {
    const t0 = performance.now();
    builtinSchema('apps/v1/Deployment');
    return { linkMs: performance.now() - t0 };
  })(),
);
