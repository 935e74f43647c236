/**
 * The CustomResourceDefinitions a cluster serves, read with one paged list and kept current with a
 * watch (never one request per CRD), reduced to their served schemas (core/schema/clusterCrds.ts).
 * Read-only. A user who may not list CRDs gets none: one log line, no error for the connection.
 * What is kept is bounded: a cluster may hold hundreds of CRDs, some of a megabyte each.
 */
import { servedCrdOf, type ServedCrd } from '../core/schema/clusterCrds';
import type { KubeJson } from '../core/kubeJson';
import type { ClusterClient } from './client';
import { sleep } from './watch';

export interface CrdLimits {
  /** CRDs kept at most. */
  readonly count: number;
  /** Bytes of their JSON (served schemas only) kept at most. */
  readonly bytes: number;
}

export const CRD_LIMITS: CrdLimits = { count: 1000, bytes: 32 * 2 ** 20 };

/** The size a CRD counts for against CrdLimits.bytes (and about what it takes on disk). */
export function crdBytes(crd: ServedCrd): number {
  return JSON.stringify(crd).length;
}

export interface CrdWatcherOptions {
  /** Called (coalesced) when the set changes, and once the first list is in. */
  onChange?: () => void;
  log?: (message: string) => void;
  limits?: CrdLimits;
  /** CRDs per list request: a page of big CRDs is megabytes. */
  pageSize?: number;
  debounceMs?: number;
  /** First retry delay after an error; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
  /** Retry delay when the list is refused (forbidden) or not served: that rarely changes. */
  refusedRetryMs?: number;
  watchTimeoutSeconds?: number;
}

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

export class CrdWatcher {
  private readonly kept = new Map<string, { crd: ServedCrd; bytes: number }>();
  private bytes = 0;
  private listed = false;
  private readonly abort = new AbortController();
  private pending: NodeJS.Timeout | undefined;
  private lastLogged: string | undefined;
  private readonly opts: Required<Omit<CrdWatcherOptions, 'onChange' | 'log'>> & Pick<CrdWatcherOptions, 'onChange' | 'log'>;

  constructor(
    private readonly client: ClusterClient,
    opts: CrdWatcherOptions = {},
  ) {
    this.opts = {
      onChange: opts.onChange,
      log: opts.log,
      limits: opts.limits ?? CRD_LIMITS,
      pageSize: opts.pageSize ?? 25,
      debounceMs: opts.debounceMs ?? 250,
      retryMs: opts.retryMs ?? 1000,
      maxRetryMs: opts.maxRetryMs ?? 30_000,
      refusedRetryMs: opts.refusedRetryMs ?? 300_000,
      watchTimeoutSeconds: opts.watchTimeoutSeconds ?? 300,
    };
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.abort.abort();
    if (this.pending) clearTimeout(this.pending);
  }

  /** The first list is in: `crds()` is what the cluster serves (within the limits). */
  get synced(): boolean {
    return this.listed;
  }

  crds(): ServedCrd[] {
    return [...this.kept.values()].map((k) => k.crd);
  }

  /** Resolves once the first list is in (true) or the time is up (false); for tests. */
  async whenSynced(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.listed && Date.now() < deadline && !this.abort.signal.aborted) await sleep(20, this.abort.signal);
    return this.listed;
  }

  private changed(): void {
    if (!this.opts.onChange || this.pending || this.abort.signal.aborted) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (!this.abort.signal.aborted) this.opts.onChange?.();
    }, this.opts.debounceMs);
  }

  /** One line per distinct problem, not one per retry. */
  private logOnce(message: string): void {
    if (this.lastLogged === message) return;
    this.lastLogged = message;
    this.opts.log?.(message);
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    const where = `context ${this.client.context}`;
    let delay = this.opts.retryMs;
    while (!signal.aborted) {
      const listed = await this.list(signal);
      if (signal.aborted) return;
      if ('error' in listed) {
        const { kind, message } = listed.error;
        // Not allowed, or not served: the answer will not change soon; anything else may be a blip.
        const refused = kind === 'forbidden' || kind === 'unauthorized' || kind === 'not-found';
        this.logOnce(`[cluster] CRDs of ${where} not read (${message}); custom resources are judged without them${refused ? '' : ', retrying'}`);
        await sleep(refused ? this.opts.refusedRetryMs : delay, signal);
        delay = Math.min(delay * 2, this.opts.maxRetryMs);
        continue;
      }
      delay = this.opts.retryMs;
      this.lastLogged = undefined;
      this.kept.clear();
      this.bytes = 0;
      let capped = listed.capped;
      for (const item of listed.items) if (!this.put(item)) capped = true;
      this.listed = true;
      if (capped) this.logCapped(where);
      this.changed();
      let rv = listed.resourceVersion;
      for (;;) {
        let dropped = false;
        const res = await this.client.watch(CRDS.group, CRDS.version, CRDS.plural, {
          resourceVersion: rv,
          timeoutSeconds: this.opts.watchTimeoutSeconds,
          signal,
          onEvent: (type, obj) => {
            if (type === 'BOOKMARK') return;
            if (type === 'DELETED') this.remove(String(obj.metadata?.name ?? ''));
            else if (!this.put(obj)) dropped = true;
            this.changed();
          },
        });
        if (dropped) this.logCapped(where);
        if (signal.aborted) return;
        if (!res.ok) {
          await sleep(delay, signal);
          break;
        }
        if (res.value.expired || !res.value.resourceVersion) break;
        rv = res.value.resourceVersion;
      }
    }
  }

  private logCapped(where: string): void {
    const { count, bytes } = this.opts.limits;
    this.logOnce(`[cluster] ${where} serves more CRDs than are kept (at most ${count} CRDs, ${Math.round(bytes / 2 ** 20)} MB of schemas): ${this.kept.size} kept; custom resources of the others are judged without them`);
  }

  /** Every page of the list, until the limits are reached (the rest is not fetched). */
  private async list(signal: AbortSignal): Promise<{ items: KubeJson[]; resourceVersion: string; capped: boolean } | { error: { kind: string; message: string } }> {
    const items: KubeJson[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    do {
      const page = await this.client.listObjects(CRDS.group, CRDS.version, CRDS.plural, undefined, { signal, limit: this.opts.pageSize, continue: next });
      if (!page.ok) return { error: page.error };
      resourceVersion ||= page.value.resourceVersion;
      items.push(...page.value.items);
      next = page.value.continue;
      if (next && items.length >= this.opts.limits.count) return { items, resourceVersion, capped: true };
    } while (next && !signal.aborted);
    return { items, resourceVersion, capped: false };
  }

  /** Keeps (or replaces) a CRD; false when the limits leave no room for it. */
  private put(obj: KubeJson): boolean {
    const name = String(obj.metadata?.name ?? '');
    const crd = servedCrdOf(obj);
    if (!crd) {
      this.remove(name);
      return true;
    }
    const bytes = crdBytes(crd);
    const before = this.kept.get(name);
    const count = this.kept.size + (before ? 0 : 1);
    if (count > this.opts.limits.count || this.bytes - (before?.bytes ?? 0) + bytes > this.opts.limits.bytes) {
      // An older copy that no longer fits is not the schema the cluster serves.
      this.remove(name);
      return false;
    }
    this.kept.set(name, { crd, bytes });
    this.bytes += bytes - (before?.bytes ?? 0);
    return true;
  }

  private remove(name: string): void {
    const before = this.kept.get(name);
    if (!before) return;
    this.kept.delete(name);
    this.bytes -= before.bytes;
  }
}
