/**
 * The editor's side of the engine: posts inputs and requests to the worker and hands back its
 * answers. Never waits for the engine: until the first index is done, `ready` is false and
 * features answer "still indexing"; file events under ignored folders are dropped here, before
 * they are posted. No `vscode` import, so benchmarks drive it from a plain Node process.
 */
import { Worker } from 'node:worker_threads';
import { PathFilter } from './pathFilter';
import type { ClusterCrds, EngineInput, EngineMethod, EngineSettings, EngineStatus, FileDiagnostics, FromEngine, LiveSnapshot, ParamsOf, ResultOf, ToEngine, TreeItemData, UpdateTimings } from './protocol';

export interface EngineTransport {
  post(message: ToEngine): void;
  onMessage(handler: (message: FromEngine) => void): void;
  close(): void;
}

export function workerTransport(script: string, options: { debounceMs?: number } = {}): EngineTransport {
  const worker = new Worker(script, { workerData: { debounceMs: options.debounceMs, created: Date.now() } });
  worker.unref();
  let closing = false;
  return {
    post: (m) => worker.postMessage(m),
    onMessage: (h) => {
      worker.on('message', h);
      worker.on('error', (err) => h({ type: 'log', message: `[engine] worker failed: ${err.stack ?? err}` }));
      // A worker that ends by itself (out of memory, a native crash) leaves every view waiting: say so.
      worker.on('exit', (code) => closing || h({ type: 'log', message: `[engine] worker exited with code ${code}` }));
    },
    close: () => {
      closing = true;
      void worker.terminate();
    },
  };
}

type Listener<T> = (value: T) => void;

export class EngineClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly filter = new PathFilter();
  private statusValue: EngineStatus = { indexing: true, files: 0, folders: [], version: 0, ignoredFolders: [] };
  private opened = false;
  private treeRootsValue: TreeItemData[] | undefined;
  private readonly listeners = {
    status: [] as Listener<EngineStatus>[],
    diagnostics: [] as Listener<FileDiagnostics[]>[],
    changed: [] as Listener<number>[],
    log: [] as Listener<string>[],
    timings: [] as Listener<UpdateTimings>[],
  };

  constructor(private readonly transport: EngineTransport) {
    transport.onMessage((m) => this.receive(m));
  }

  /** True once the first index finished; before that, features answer "still indexing". */
  get ready(): boolean {
    return this.opened && !this.statusValue.indexing;
  }

  /** The Flux view's top level as the last change sent it (undefined: ask with `treeChildren`). */
  get treeRoots(): TreeItemData[] | undefined {
    return this.treeRootsValue;
  }

  get status(): EngineStatus {
    return this.statusValue;
  }

  onStatus(l: Listener<EngineStatus>): () => void {
    return add(this.listeners.status, l);
  }

  onDiagnostics(l: Listener<FileDiagnostics[]>): () => void {
    return add(this.listeners.diagnostics, l);
  }

  onChanged(l: Listener<number>): () => void {
    return add(this.listeners.changed, l);
  }

  onLog(l: Listener<string>): () => void {
    return add(this.listeners.log, l);
  }

  /** Where each update's time went, sent with its diagnostics. */
  onTimings(l: Listener<UpdateTimings>): () => void {
    return add(this.listeners.timings, l);
  }

  open(roots: string[], settings?: EngineSettings): void {
    this.opened = true;
    this.statusValue = { ...this.statusValue, indexing: true };
    this.send({ type: 'open', roots, settings });
  }

  /** Posts only the paths the engine would not drop anyway. */
  filesChanged(paths: string[]): void {
    const kept = paths.filter((p) => !this.filter.ignores(p));
    if (kept.length) this.send({ type: 'filesChanged', paths: kept });
  }

  buffer(file: string, text: string | undefined): void {
    if (!this.filter.ignores(file)) this.send({ type: 'buffer', file, text });
  }

  reload(): void {
    this.send({ type: 'reload' });
  }

  live(snapshot: LiveSnapshot | undefined): void {
    this.send({ type: 'live', snapshot });
  }

  clusterCrds(crds: ClusterCrds | undefined): void {
    this.send({ type: 'clusterCrds', crds });
  }

  request<M extends EngineMethod>(method: M, params: ParamsOf<M>, signal?: AbortSignal): Promise<ResultOf<M>> {
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.transport.post({ type: 'request', id, method, params });
      signal?.addEventListener('abort', () => this.transport.post({ type: 'cancel', id }), { once: true });
    });
  }

  /** `request`, or `indexing` at once while the first index runs. */
  query<M extends EngineMethod, T>(method: M, params: ParamsOf<M>, indexing: T, signal?: AbortSignal): Promise<ResultOf<M> | T> {
    return this.ready ? this.request(method, params, signal) : Promise.resolve(indexing);
  }

  dispose(): void {
    for (const w of this.waiting.values()) w.reject(new Error('engine stopped'));
    this.waiting.clear();
    this.transport.close();
  }

  private send(m: EngineInput): void {
    this.transport.post(m);
  }

  private receive(m: FromEngine): void {
    switch (m.type) {
      case 'response': {
        const w = this.waiting.get(m.id);
        if (!w) return;
        this.waiting.delete(m.id);
        if (m.error !== undefined) w.reject(new Error(m.error));
        else w.resolve(m.result);
        return;
      }
      case 'status':
        this.statusValue = m.status;
        // A new index: the last top level belongs to the folders before it.
        if (m.status.indexing) this.treeRootsValue = undefined;
        this.filter.setIgnoredFolders(m.status.ignoredFolders);
        for (const l of this.listeners.status) l(m.status);
        return;
      case 'diagnostics':
        for (const l of this.listeners.diagnostics) l(m.files);
        return;
      case 'changed':
        this.treeRootsValue = m.treeRoots;
        for (const l of this.listeners.changed) l(m.version);
        return;
      case 'log':
        for (const l of this.listeners.log) l(m.message);
        return;
      case 'timings':
        for (const l of this.listeners.timings) l(m.timings);
        return;
    }
  }
}

function add<T>(list: Listener<T>[], l: Listener<T>): () => void {
  list.push(l);
  return () => {
    const i = list.indexOf(l);
    if (i !== -1) list.splice(i, 1);
  };
}
