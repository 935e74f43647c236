/**
 * The CRDs to judge custom resources by, for the context the editor is connected to: at once the
 * last known ones (this session's for that context, else the cache file's), then the watch's. When
 * the connection ends they stay (they are what the cluster served); another context brings its own.
 */
import type { ClusterCrds } from '../core/schema/clusterCrds';
import type { ClusterClient } from './client';
import { readCachedCrds, writeCachedCrds } from './crdCache';
import { CrdWatcher, type CrdWatcherOptions } from './crdWatch';

export interface CrdStoreOptions {
  /** Where the per-context files are (crdCache.ts); undefined: this session only. */
  cacheDir: string | undefined;
  log: (message: string) => void;
  /** The set to use changed (another context, or the watch's news). */
  onChange: (crds: ClusterCrds | undefined) => void;
  /** Quiet time after a change before the context's file is written. */
  saveDelayMs?: number;
  watcher?: Omit<CrdWatcherOptions, 'onChange' | 'log'>;
}

/** The context the editor uses: `client` is left out where no request may be made (an untrusted workspace). */
export interface CrdTarget {
  context: string;
  server: string;
  client?: ClusterClient;
}

export class ClusterCrdStore {
  /** Per `context\nserver`, for this session: switching back shows them before the watch has listed again. */
  private readonly known = new Map<string, ClusterCrds>();
  private active: { target: CrdTarget; watcher?: CrdWatcher } | undefined;
  private currentValue: ClusterCrds | undefined;
  private save: { timer: NodeJS.Timeout; crds: ClusterCrds } | undefined;

  constructor(private readonly opts: CrdStoreOptions) {}

  get current(): ClusterCrds | undefined {
    return this.currentValue;
  }

  /**
   * Follows the connection: a new target switches to its context's CRDs and (with a client) starts
   * its watch; undefined (the connection ended) stops the watch and keeps the set.
   */
  use(target: CrdTarget | undefined): void {
    const was = this.active?.target;
    if (target && was && was.client === target.client && was.context === target.context && was.server === target.server) return;
    this.active?.watcher?.stop();
    if (!target) {
      this.active = undefined;
      return;
    }
    const key = `${target.context}\n${target.server}`;
    let last = this.known.get(key);
    if (!last && this.opts.cacheDir) {
      last = readCachedCrds(this.opts.cacheDir, target.context, target.server, this.opts.log);
      if (last) {
        this.known.set(key, last);
        this.opts.log(`[cluster] ${last.crds.length} CRD(s) of context ${target.context} as saved in an earlier session`);
      }
    }
    const active: { target: CrdTarget; watcher?: CrdWatcher } = { target };
    this.active = active;
    this.set(last);
    if (!target.client) return;
    const watcher = new CrdWatcher(target.client, {
      ...this.opts.watcher,
      log: this.opts.log,
      onChange: () => {
        if (this.active !== active || !watcher.synced) return;
        const crds: ClusterCrds = { context: target.context, server: target.server, crds: watcher.crds() };
        this.known.set(key, crds);
        this.set(crds);
        this.saveLater(crds);
      },
    });
    active.watcher = watcher;
    watcher.start();
  }

  /** Another context whose CRDs cannot be known (its connection could not even be set up): none, rather than the last context's. */
  forget(): void {
    this.use(undefined);
    this.set(undefined);
  }

  private set(crds: ClusterCrds | undefined): void {
    if (crds === this.currentValue) return;
    this.currentValue = crds;
    this.opts.onChange(crds);
  }

  private saveLater(crds: ClusterCrds): void {
    if (!this.opts.cacheDir) return;
    // A pending save of another context is written now rather than lost.
    if (this.save && (this.save.crds.context !== crds.context || this.save.crds.server !== crds.server)) this.flush();
    if (this.save) clearTimeout(this.save.timer);
    const timer = setTimeout(() => this.flush(), this.opts.saveDelayMs ?? 2000);
    timer.unref();
    this.save = { crds, timer };
  }

  /** Writes a pending save now. */
  flush(): void {
    const save = this.save;
    if (!save || !this.opts.cacheDir) return;
    clearTimeout(save.timer);
    this.save = undefined;
    writeCachedCrds(this.opts.cacheDir, save.crds, this.opts.log);
  }

  dispose(): void {
    this.active?.watcher?.stop();
    this.active = undefined;
    this.flush();
  }
}
