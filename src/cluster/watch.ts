import { liveStatusOf, type LiveObjectStatus } from '../core/status/conditions';
import { FLUX_TYPES, type ResourceType } from '../core/kinds';
import type { KubeJson } from '../core/kubeJson';
import type { ClusterClient } from './client';
import type { ClusterError } from './errors';

export interface WatcherOptions {
  kinds?: readonly ResourceType[];
  /** Watch one namespace only; all namespaces by default. */
  namespace?: string;
  /** Called (coalesced) after any status change, connection change or error. */
  onChange?: () => void;
  debounceMs?: number;
  /** First retry delay after an error; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  watchTimeoutSeconds?: number;
}

type KindState = {
  type: ResourceType;
  items: Map<string, LiveObjectStatus>;
  synced: boolean;
  /** The cluster does not serve this kind (CRD not installed). */
  missing: boolean;
  error?: ClusterError;
};

const key = (ns: string, name: string) => `${ns}/${name}`;

/**
 * Live status of every Flux object in the cluster with one list + watch per kind (never one request
 * per object): the list fills the cache, the watch from its resourceVersion keeps it current, and a
 * stale resourceVersion or a dropped connection leads to a re-list after a backoff.
 */
export class FluxStatusWatcher {
  private readonly kinds = new Map<string, KindState>();
  private readonly abort = new AbortController();
  private started = false;
  private pending: NodeJS.Timeout | undefined;
  private readonly opts: Required<Omit<WatcherOptions, 'namespace' | 'onChange' | 'kinds'>> & Pick<WatcherOptions, 'namespace' | 'onChange'>;

  constructor(private readonly client: ClusterClient, opts: WatcherOptions = {}) {
    for (const t of opts.kinds ?? FLUX_TYPES) this.kinds.set(t.kind, { type: t, items: new Map(), synced: false, missing: false });
    this.opts = {
      namespace: opts.namespace,
      onChange: opts.onChange,
      debounceMs: opts.debounceMs ?? 100,
      retryMs: opts.retryMs ?? 1000,
      maxRetryMs: opts.maxRetryMs ?? 30_000,
      watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
    };
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const state of this.kinds.values()) void this.loop(state);
  }

  stop(): void {
    this.abort.abort();
    if (this.pending) clearTimeout(this.pending);
  }

  get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  /** Every kind has been listed at least once (so "not in the cache" means "not in the cluster"). */
  get synced(): boolean {
    return [...this.kinds.values()].every((k) => k.synced || k.missing);
  }

  /** Whether this kind's cache is trustworthy right now. */
  kindSynced(kind: string): boolean {
    const k = this.kinds.get(kind);
    return !!k && (k.synced || k.missing);
  }

  /** The first current error (e.g. unreachable, forbidden), if any kind is failing. */
  get error(): ClusterError | undefined {
    for (const k of this.kinds.values()) if (k.error) return k.error;
    return undefined;
  }

  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined {
    return this.kinds.get(kind)?.items.get(key(namespace, name));
  }

  all(): LiveObjectStatus[] {
    return [...this.kinds.values()].flatMap((k) => [...k.items.values()]);
  }

  size(): number {
    let n = 0;
    for (const k of this.kinds.values()) n += k.items.size;
    return n;
  }

  /** Resolves once every kind is synced or one failed (then with its error); for the CLI and tests. */
  async whenSynced(timeoutMs: number): Promise<ClusterError | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (!this.synced && !this.error && Date.now() < deadline && !this.stopped) await new Promise((r) => setTimeout(r, 20));
    return this.synced ? undefined : this.error;
  }

  private changed(): void {
    if (!this.opts.onChange || this.pending || this.stopped) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (!this.stopped) this.opts.onChange?.();
    }, this.opts.debounceMs);
  }

  private async loop(state: KindState): Promise<void> {
    const { group, version, plural } = state.type;
    const signal = this.abort.signal;
    let delay = this.opts.retryMs;
    while (!signal.aborted) {
      const list = await this.client.listObjects(group, version, plural, this.opts.namespace, { signal });
      if (signal.aborted) return;
      if (!list.ok) {
        const missing = list.error.kind === 'not-found';
        if (state.missing !== missing || state.error?.message !== (missing ? undefined : list.error.message)) {
          state.missing = missing;
          state.error = missing ? undefined : list.error;
          if (missing) state.items.clear();
          this.changed();
        }
        // A kind the cluster does not serve is looked for again rarely; errors back off.
        await sleep(missing ? this.opts.maxRetryMs : delay, signal);
        delay = Math.min(delay * 2, this.opts.maxRetryMs);
        continue;
      }
      delay = this.opts.retryMs;
      state.items.clear();
      for (const item of list.value.items) this.put(state, item);
      state.synced = true;
      state.missing = false;
      state.error = undefined;
      this.changed();
      let rv = list.value.resourceVersion;
      for (;;) {
        const res = await this.client.watch(group, version, plural, {
          namespace: this.opts.namespace,
          resourceVersion: rv,
          timeoutSeconds: this.opts.watchTimeoutSeconds,
          signal,
          onEvent: (type, obj) => {
            if (type === 'BOOKMARK') return;
            if (type === 'DELETED') state.items.delete(key(obj.metadata?.namespace ?? '', obj.metadata?.name ?? ''));
            else this.put(state, obj);
            this.changed();
          },
        });
        if (signal.aborted) return;
        if (!res.ok) {
          state.error = res.error;
          this.changed();
          await sleep(delay, signal);
          break;
        }
        if (res.value.expired || !res.value.resourceVersion) break;
        rv = res.value.resourceVersion;
      }
    }
  }

  private put(state: KindState, obj: KubeJson): void {
    const status = liveStatusOf({ ...obj, kind: obj.kind || state.type.kind });
    state.items.set(key(status.namespace, status.name), status);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
