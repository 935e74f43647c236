import { isSuspended, liveStatusOf } from '../core/status/conditions';
import { fluxType } from '../core/kinds';
import { reconcilePatch, requestToken, resumePatch, suspendPatch, actionAllowed, type WriteAction } from '../core/status/requests';
import { directSourceOf, isStaticSource, type ObjectKey } from '../core/status/sourceChain';
import { evaluateWait } from '../core/status/wait';
import type { KubeJson } from '../core/kubeJson';
import type { ClusterClient } from '../cluster/client';
import { clusterError, type ClusterError } from '../cluster/errors';
import { fail, ok, type Result } from '../core/result';

export type { ObjectKey };

export interface ActionOptions {
  /** Reconcile the source chain first, as `flux reconcile --with-source`. */
  withSource?: boolean;
  /** Overall limit for waiting (all steps together). */
  timeoutMs: number;
  /** How often the object is read while waiting. */
  pollMs?: number;
  signal?: AbortSignal;
  /** Clock for request tokens (tests pass a fixed one). */
  now?: () => number;
  onProgress?: (message: string) => void;
  /** Field manager recorded for our patches. */
  fieldManager?: string;
}

export type Outcome = 'ready' | 'failed' | 'suspended' | 'timeout' | 'cancelled';

export interface ActionResult {
  outcome: Outcome;
  /** Final condition message (or why it stopped). */
  message: string;
  /** "Kustomization flux-system/apps" */
  object: string;
  /** The request token written, if any. */
  token?: string;
  revision?: string;
}

/** CLI exit code of a result: 0 Ready (or suspended/resumed as asked), 1 not ready; cluster errors are 2. */
export function exitCodeOf(action: WriteAction, r: Result<ActionResult, ClusterError>): number {
  if (!r.ok) return 2;
  if (action === 'suspend') return r.value.outcome === 'suspended' ? 0 : 1;
  return r.value.outcome === 'ready' ? 0 : 1;
}

export function describeKey(k: ObjectKey): string {
  return `${k.kind} ${k.namespace}/${k.name}`;
}

const DEFAULT_FIELD_MANAGER = 'gitops-preview';

/** A monotonic-ish clock for tokens: sub-millisecond digits from hrtime keep two quick requests distinct. */
function tokenNow(now?: () => number): string {
  if (now) return requestToken(now());
  const ns = Number(process.hrtime.bigint() % 1_000_000n);
  return requestToken(Date.now(), ns);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs one write action the way the flux CLI does and waits for its outcome. The only code path
 * (with the extension commands and CLI commands calling it) that writes to a cluster.
 */
export async function runAction(client: ClusterClient, target: ObjectKey, action: WriteAction, opts: ActionOptions): Promise<Result<ActionResult, ClusterError>> {
  const type = fluxType(target.kind);
  if (!type) return fail(clusterError('invalid', `Invalid: ${target.kind} is not a Flux kind this extension can reconcile`));
  if (!actionAllowed(type.kind, action)) return fail(clusterError('invalid', `Invalid: ${action} only applies to HelmReleases`));
  const key: ObjectKey = { kind: type.kind, namespace: target.namespace, name: target.name };
  const deadline = Date.now() + opts.timeoutMs;
  const current = await read(client, key, opts);
  if (!current.ok) return current;
  const fieldManager = opts.fieldManager ?? DEFAULT_FIELD_MANAGER;

  if (action === 'suspend') {
    opts.onProgress?.(`suspending ${describeKey(key)}`);
    const patched = await client.mergePatch(type, key.namespace, key.name, suspendPatch(), { signal: opts.signal, fieldManager });
    if (!patched.ok) return patched;
    return ok({ outcome: 'suspended', message: `${describeKey(key)} suspended`, object: describeKey(key) });
  }

  if (action !== 'resume' && isSuspended(current.value)) {
    return ok({ outcome: 'suspended', message: `${describeKey(key)} is suspended; resume it to reconcile`, object: describeKey(key) });
  }

  if (opts.withSource && action !== 'resume') {
    const src = await reconcileSourceChain(client, current.value, opts, deadline);
    if (!src.ok) return src;
    if (src.value && src.value.outcome !== 'ready') {
      return ok({ ...src.value, object: describeKey(key), message: `source ${src.value.object}: ${src.value.message}` });
    }
  }

  const token = tokenNow(opts.now);
  const patch = action === 'resume' ? resumePatch(token) : reconcilePatch(action, token);
  opts.onProgress?.(`${action === 'resume' ? 'resuming' : 'annotating'} ${describeKey(key)}`);
  const patched = await client.mergePatch(type, key.namespace, key.name, patch, { signal: opts.signal, fieldManager });
  if (!patched.ok) return patched;
  return waitFor(client, key, token, opts, deadline);
}

async function read(client: ClusterClient, key: ObjectKey, opts: Pick<ActionOptions, 'signal'>): Promise<Result<KubeJson, ClusterError>> {
  const type = fluxType(key.kind);
  if (!type) return fail(clusterError('invalid', `Invalid: ${key.kind} is not a Flux kind`));
  const res = await client.getObject(type, key.namespace, key.name, { signal: opts.signal });
  if (!res.ok && res.error.kind === 'not-found') {
    return fail({ ...res.error, message: `Not found: ${describeKey(key)} does not exist in context ${client.context}` });
  }
  return res;
}

/** Reconciles the object's source (and that source's own source for HelmCharts) and waits for each. */
async function reconcileSourceChain(client: ClusterClient, obj: KubeJson, opts: ActionOptions, deadline: number): Promise<Result<ActionResult | undefined, ClusterError>> {
  const src = directSourceOf(obj);
  if ('error' in src) return fail(clusterError('invalid', `Invalid: cannot reconcile with source: ${src.error}`));
  const type = fluxType(src.key.kind);
  if (!type) return fail(clusterError('invalid', `Invalid: source kind ${src.key.kind} is not supported`));
  const source = await read(client, src.key, opts);
  if (!source.ok) return source;
  if (isSuspended(source.value)) {
    return ok({ outcome: 'suspended', message: `${describeKey(src.key)} is suspended`, object: describeKey(src.key) });
  }
  if (src.withItsSource) {
    const inner = await reconcileSourceChain(client, source.value, opts, deadline);
    if (!inner.ok || (inner.value && inner.value.outcome !== 'ready')) return inner;
  }
  if (isStaticSource(source.value)) {
    opts.onProgress?.(`${describeKey(src.key)}: reconciliation not supported by the object, skipped`);
    return ok(undefined);
  }
  const token = tokenNow(opts.now);
  opts.onProgress?.(`annotating ${describeKey(src.key)}`);
  const patched = await client.mergePatch(type, src.key.namespace, src.key.name, reconcilePatch('reconcile', token), {
    signal: opts.signal,
    fieldManager: opts.fieldManager ?? DEFAULT_FIELD_MANAGER,
  });
  if (!patched.ok) return patched;
  return waitFor(client, src.key, token, opts, deadline);
}

/** Polls the object until the request is handled and Ready settles, the deadline passes, or the signal fires. */
export async function waitFor(client: ClusterClient, key: ObjectKey, token: string | undefined, opts: ActionOptions, deadline: number): Promise<Result<ActionResult, ClusterError>> {
  const object = describeKey(key);
  const pollMs = opts.pollMs ?? 1000;
  opts.onProgress?.(`waiting for ${object} reconciliation`);
  let last = 'no answer yet';
  for (;;) {
    if (opts.signal?.aborted) return ok({ outcome: 'cancelled', message: `Cancelled while waiting for ${object} (${last})`, object, token });
    const res = await read(client, key, opts);
    if (!res.ok) {
      if (res.error.kind === 'cancelled') continue;
      // A slow or briefly unreachable server is retried until the deadline; anything else is final.
      if (res.error.kind !== 'timeout' && res.error.kind !== 'unreachable') return res;
      last = res.error.message;
    } else {
      const state = evaluateWait(res.value, token);
      const revision = liveStatusOf(res.value).revision;
      if (state.done) return ok({ outcome: state.outcome, message: state.message, object, token, ...(revision ? { revision } : {}) });
      last = state.reason;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      return ok({ outcome: 'timeout', message: `Timed out after ${Math.round(opts.timeoutMs / 1000)}s waiting for ${object}: ${last}`, object, token });
    }
    await sleep(Math.min(pollMs, left), opts.signal);
  }
}
