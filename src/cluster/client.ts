// Types only: the modules (and net, tls and the rest they load) are loaded by the first request,
// so commands that never reach a cluster do not compile them at start.
import type * as http from 'node:http';
import type * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { FLUX_TYPES, type ResourceType } from '../core/kinds';
import type { KubeJson } from '../core/kubeJson';
import { classifyError, clusterError, errorForStatus, type ClusterError } from './errors';
import { fail, ok, type Result } from '../core/result';
import { spawningAuth, type LoadedKubeConfig } from './kubeconfig';
import { trimEndChars } from '../core/text';

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-request timeout; defaults to the client's. */
  timeoutMs?: number;
}

export interface ListResult {
  items: KubeJson[];
  resourceVersion: string;
  /** Set when the list was asked for in pages (`limit`) and more follow: pass it back as `continue`. */
  continue?: string;
}

export interface ListOptions extends CallOptions {
  /** Page size: the API server sends at most this many items and a `continue` token for the rest. */
  limit?: number;
  continue?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchOptions {
  namespace?: string;
  resourceVersion?: string;
  /** Server-side timeout of this watch request; the caller re-watches from the last resourceVersion. */
  timeoutSeconds?: number;
  signal?: AbortSignal;
  onEvent: (type: WatchEventType, object: KubeJson) => void;
}

/** How a watch request ended: normally (server timeout / closed) or because its resourceVersion is too old. */
export interface WatchEnd {
  expired: boolean;
  resourceVersion?: string;
}

export interface ClientOptions {
  /** Default per-request timeout (ms). */
  timeoutMs?: number;
  /** Sent as User-Agent, so audit logs can tell our requests apart. */
  userAgent?: string;
  /** Limit for a credential plugin run (client-node runs exec plugins without a timeout). */
  authTimeoutMs?: number;
  /** Called with every request (method, path, body); used by tests and benchmarks to count and inspect requests. */
  onRequest?: (method: string, path: string, body?: string) => void;
}

export type ResourceId = Pick<ResourceType, 'group' | 'version' | 'plural'>;

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_AUTH_TIMEOUT_MS = 30_000;

/**
 * The only way this project talks to a cluster: authentication and TLS come from client-node's
 * KubeConfig (certificates, tokens, exec credential plugins, proxies); requests are plain HTTP with
 * a timeout and an AbortSignal on each, and every result is a Result.
 */
export class ClusterClient {
  readonly kc: KubeConfig;
  readonly context: string;
  readonly server: string;
  /** Default namespace of the context. */
  readonly namespace: string;
  private readonly opts: Required<Omit<ClientOptions, 'onRequest'>> & Pick<ClientOptions, 'onRequest'>;
  private readonly discovery = new Map<string, Promise<Result<ResourceType[], ClusterError>>>();

  constructor(loaded: Pick<LoadedKubeConfig, 'kc' | 'context'> & Partial<Pick<LoadedKubeConfig, 'namespace'>>, opts: ClientOptions = {}) {
    this.kc = loaded.kc;
    this.context = loaded.context;
    this.kc.setCurrentContext(loaded.context);
    this.server = trimEndChars(this.kc.getCurrentCluster()?.server ?? '', '/');
    this.namespace = loaded.namespace ?? (this.kc.getContextObject(loaded.context)?.namespace || 'default');
    this.opts = {
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      userAgent: opts.userAgent ?? 'gitops-preview',
      authTimeoutMs: opts.authTimeoutMs ?? DEFAULT_AUTH_TIMEOUT_MS,
      onRequest: opts.onRequest,
    };
  }

  /** The username the context authenticates as is not known client-side; this names the context for messages. */
  describe(): string {
    return `context ${this.context} (${this.server})`;
  }

  /** GET /version: the cheapest "can we talk to it, and are we allowed to" check. */
  async version(opts: CallOptions = {}): Promise<Result<{ gitVersion: string }, ClusterError>> {
    return this.json<{ gitVersion: string }>('GET', '/version', opts);
  }

  async getObject(type: ResourceId, namespace: string | undefined, name: string, opts: CallOptions = {}): Promise<Result<KubeJson, ClusterError>> {
    return this.json<KubeJson>('GET', resourcePath(type, namespace, name), opts);
  }

  async listObjects(group: string, version: string, plural: string, namespace?: string, opts: ListOptions = {}): Promise<Result<ListResult, ClusterError>> {
    const q = new URLSearchParams();
    if (opts.limit) q.set('limit', String(opts.limit));
    if (opts.continue) q.set('continue', opts.continue);
    const res = await this.json<{ items?: KubeJson[]; metadata?: { resourceVersion?: string; continue?: string } }>(
      'GET',
      resourcePath({ group, version, plural }, namespace) + (q.size ? `?${q}` : ''),
      opts,
    );
    if (!res.ok) return res;
    const more = res.value.metadata?.continue;
    return ok({ items: res.value.items ?? [], resourceVersion: res.value.metadata?.resourceVersion ?? '', ...(more ? { continue: more } : {}) });
  }

  /** JSON merge patch (RFC 7386) of the object. */
  async mergePatch(type: ResourceId, namespace: string | undefined, name: string, patch: unknown, opts: CallOptions & { fieldManager?: string } = {}): Promise<Result<KubeJson, ClusterError>> {
    const query = opts.fieldManager ? `?fieldManager=${encodeURIComponent(opts.fieldManager)}` : '';
    return this.json<KubeJson>('PATCH', resourcePath(type, namespace, name) + query, opts, {
      body: JSON.stringify(patch),
      contentType: 'application/merge-patch+json',
    });
  }

  /** Merge patch of the status subresource. Only tests use this (they play the controller). */
  async patchStatus(type: ResourceId, namespace: string | undefined, name: string, patch: unknown, opts: CallOptions = {}): Promise<Result<KubeJson, ClusterError>> {
    return this.json<KubeJson>('PATCH', resourcePath(type, namespace, name) + '/status', opts, {
      body: JSON.stringify(patch),
      contentType: 'application/merge-patch+json',
    });
  }

  /** Server-side apply (optionally dry-run) of a whole object, as kustomize-controller does. */
  async serverSideApply(
    obj: KubeJson,
    apply: { dryRun?: boolean; fieldManager: string; force?: boolean } & CallOptions,
  ): Promise<Result<KubeJson, ClusterError>> {
    const apiVersion = obj.apiVersion;
    const kind = obj.kind;
    const name = obj.metadata?.name;
    if (!apiVersion || !kind || !name) return fail(clusterError('invalid', 'Invalid: object needs apiVersion, kind and metadata.name'));
    const type = await this.resourceFor(apiVersion, kind, apply);
    if (!type.ok) return type;
    const namespace = type.value.namespaced ? obj.metadata?.namespace || this.namespace : undefined;
    const q = new URLSearchParams({ fieldManager: apply.fieldManager });
    if (apply.force) q.set('force', 'true');
    if (apply.dryRun) q.set('dryRun', 'All');
    return this.json<KubeJson>('PATCH', `${resourcePath(type.value, namespace, name)}?${q}`, apply, {
      body: JSON.stringify(obj),
      contentType: 'application/apply-patch+yaml',
    });
  }

  /**
   * Resource type (plural, scope) of apiVersion+kind: fixed for Flux kinds, from API discovery
   * (cached per group/version) for everything else.
   */
  async resourceFor(apiVersion: string, kind: string, opts: CallOptions = {}): Promise<Result<ResourceType, ClusterError>> {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    const flux = FLUX_TYPES.find((t) => t.group === group && t.version === version && t.kind === kind);
    if (flux) return ok(flux);
    let pending = this.discovery.get(apiVersion);
    if (!pending) {
      pending = this.discover(group, version, opts);
      this.discovery.set(apiVersion, pending);
      // discover() never rejects (it returns a Result); a failed lookup is forgotten so the next call retries.
      void pending.then((r) => {
        if (!r.ok) this.discovery.delete(apiVersion);
      });
    }
    const types = await pending;
    if (!types.ok) return types;
    const t = types.value.find((x) => x.kind === kind);
    return t ? ok(t) : fail(clusterError('not-found', `Not found: the cluster has no kind ${kind} in ${apiVersion} (CRD not installed?)`));
  }

  private async discover(group: string, version: string, opts: CallOptions): Promise<Result<ResourceType[], ClusterError>> {
    const res = await this.json<{ resources?: Array<{ name: string; kind: string; namespaced: boolean }> }>(
      'GET',
      group ? `/apis/${group}/${version}` : `/api/${version}`,
      opts,
    );
    if (!res.ok) return res;
    return ok(
      (res.value.resources ?? [])
        .filter((r) => !r.name.includes('/'))
        .map((r) => ({ group, version, plural: r.name, kind: r.kind, namespaced: r.namespaced })),
    );
  }

  /**
   * One watch request (list+watch style: pass the list's resourceVersion). Resolves when the server
   * closes the stream; `expired` means the resourceVersion is too old and the caller must re-list.
   */
  async watch(group: string, version: string, plural: string, w: WatchOptions): Promise<Result<WatchEnd, ClusterError>> {
    const q = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true', timeoutSeconds: String(w.timeoutSeconds ?? 300) });
    if (w.resourceVersion) q.set('resourceVersion', w.resourceVersion);
    let lastRv = w.resourceVersion;
    let expired = false;
    let buffered = '';
    const onLine = (line: string): void => {
      if (!line.trim()) return;
      let ev: { type?: string; object?: KubeJson & { code?: number } };
      try {
        ev = JSON.parse(line);
      } catch {
        return;
      }
      const obj = ev.object;
      if (!obj) return;
      if (ev.type === 'ERROR') {
        if (obj.code === 410) expired = true;
        return;
      }
      const rv = obj.metadata?.resourceVersion;
      if (rv) lastRv = rv;
      if (ev.type === 'ADDED' || ev.type === 'MODIFIED' || ev.type === 'DELETED' || ev.type === 'BOOKMARK') w.onEvent(ev.type, obj);
    };
    const res = await this.send('GET', `${resourcePath({ group, version, plural }, w.namespace)}?${q}`, {
      signal: w.signal,
      // Connect/first-byte timeout only; the stream itself lasts up to timeoutSeconds.
      timeoutMs: this.opts.timeoutMs,
      idleTimeoutMs: ((w.timeoutSeconds ?? 300) + 60) * 1000,
      onChunk: (chunk) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          onLine(line);
        }
      },
    });
    if (buffered) onLine(buffered);
    if (!res.ok) {
      if (res.error.status === 410) return ok({ expired: true, resourceVersion: lastRv });
      return res;
    }
    return ok({ expired, resourceVersion: lastRv });
  }

  private async json<T>(method: string, path: string, opts: CallOptions, body?: { body: string; contentType: string }): Promise<Result<T, ClusterError>> {
    const res = await this.send(method, path, { ...opts, ...body });
    if (!res.ok) return res;
    try {
      return ok(JSON.parse(res.value) as T);
    } catch {
      return fail(clusterError('unknown', `The API server answered ${method} ${path} with something that is not JSON`));
    }
  }

  /** Authentication options from the kubeconfig (runs an exec plugin when the user has one, with a time limit). */
  private async auth(signal?: AbortSignal): Promise<Result<https.RequestOptions, ClusterError>> {
    const options: https.RequestOptions = {};
    const plugin = spawningAuth(this.kc.getCurrentUser());
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        this.kc.applyToHTTPSOptions(options),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(Object.assign(new Error('credential plugin timed out'), { code: 'ETIMEDOUT' })), this.opts.authTimeoutMs);
          onAbort = () => reject(Object.assign(new Error('cancelled'), { name: 'AbortError' }));
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.name === 'AbortError') return fail(clusterError('cancelled', 'Cancelled'));
      const msg = (err.message || String(e)).trim().split('\n')[0] || 'no output';
      if (plugin) {
        return fail(clusterError(err.code === 'ETIMEDOUT' ? 'timeout' : 'unauthorized', `Credential plugin failed (${plugin}): ${msg}`));
      }
      return fail(clusterError('bad-kubeconfig', `Cannot use the credentials of context ${this.context}: ${msg}`));
    } finally {
      if (timer) clearTimeout(timer);
      // Long runs share one signal across hundreds of requests: leave no listener behind.
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
    return ok(options);
  }

  /** One HTTP exchange; the body as text for 2xx, a classified error otherwise. */
  private async send(
    method: string,
    path: string,
    o: CallOptions & { body?: string; contentType?: string; idleTimeoutMs?: number; onChunk?: (chunk: string) => void },
  ): Promise<Result<string, ClusterError>> {
    if (o.signal?.aborted) return fail(clusterError('cancelled', 'Cancelled'));
    if (!this.server) return fail(clusterError('bad-kubeconfig', `Context ${this.context} has no cluster server`));
    const auth = await this.auth(o.signal);
    if (!auth.ok) return auth;
    this.opts.onRequest?.(method, path, o.body);
    let url: URL;
    try {
      url = new URL(this.server + path);
    } catch {
      return fail(clusterError('bad-kubeconfig', `Invalid server URL ${this.server}`));
    }
    const timeoutMs = o.timeoutMs ?? this.opts.timeoutMs;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': this.opts.userAgent,
      ...((auth.value.headers ?? {}) as Record<string, string>),
    };
    if (o.body !== undefined) {
      headers['Content-Type'] = o.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(o.body));
    }
    const requestOptions: https.RequestOptions = { ...auth.value, method, headers };
    delete (requestOptions as { timeout?: number }).timeout;
    // `require`, not `import()`: the CLI's bundle runs from a vm.Script (V8's code cache), where import() is not available.
    const mod: { request: typeof https.request } = url.protocol === 'http:' ? (require('node:http') as typeof http) : (require('node:https') as typeof https);
    const where = `${method} ${url.pathname}`;

    return new Promise<Result<string, ClusterError>>((resolve) => {
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (r: Result<string, ClusterError>): void => {
        if (settled) return;
        settled = true;
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const arm = (ms: number, what: string): void => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          finish(fail(clusterError('timeout', `Timed out after ${ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`} ${what} ${this.server} (${where})`)));
          req.destroy();
        }, ms);
      };
      const onAbort = (): void => {
        finish(fail(clusterError('cancelled', 'Cancelled')));
        req.destroy();
      };
      let req: http.ClientRequest;
      try {
        req = mod.request(url, requestOptions, (res) => {
          const status = res.statusCode ?? 0;
          const streaming = o.onChunk && status >= 200 && status < 300;
          if (streaming && o.idleTimeoutMs) arm(o.idleTimeoutMs, 'waiting for events from');
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            if (streaming) {
              if (o.idleTimeoutMs) arm(o.idleTimeoutMs, 'waiting for events from');
              o.onChunk!(c.toString('utf8'));
            } else chunks.push(c);
          });
          res.on('error', (e) => finish(fail(classifyError(e, this.server))));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (status >= 200 && status < 300) finish(ok(text));
            else finish(fail(errorForStatus(status, text, where)));
          });
          res.on('close', () => {
            if (!settled && streaming) finish(ok(''));
          });
        });
      } catch (e) {
        finish(fail(classifyError(e, this.server)));
        return;
      }
      arm(timeoutMs, 'waiting for');
      o.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (e) => finish(fail(classifyError(e, this.server))));
      if (o.body !== undefined) req.write(o.body);
      req.end();
    });
  }
}

/** REST path of a collection or an object. */
export function resourcePath(type: ResourceId, namespace?: string, name?: string): string {
  const base = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${type.plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

export type { ClusterError };
