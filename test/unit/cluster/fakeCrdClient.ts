/**
 * A ClusterClient stand-in that serves CRDs: paged lists (`continue` is the next index) and one
 * open watch whose events the test sends; every request is recorded.
 */
import type { ClusterClient, ListOptions, WatchOptions } from '../../../src/cluster/client';
import { clusterError } from '../../../src/cluster/errors';
import type { KubeJson } from '../../../src/core/kubeJson';
import { fail, ok } from '../../../src/core/result';

export function crdObject(plural: string, group = 'example.com', size = 0): KubeJson {
  const kind = plural[0].toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, managedFields: [{ manager: 'kubectl' }] },
    spec: {
      group,
      names: { kind, plural },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', description: 'x'.repeat(size), properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
    },
  };
}

export interface FakeCrdClient {
  client: ClusterClient;
  requests: string[];
  /** Sends a watch event on the open watch. */
  emit(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: KubeJson): void;
}

export function fakeCrdClient(crds: KubeJson[], opts: { context?: string; server?: string; forbidden?: boolean } = {}): FakeCrdClient {
  const requests: string[] = [];
  let onEvent: WatchOptions['onEvent'] | undefined;
  const client = {
    context: opts.context ?? 'prod',
    server: opts.server ?? 'https://prod.example.com',
    async listObjects(_group: string, _version: string, plural: string, _ns: string | undefined, o: ListOptions = {}) {
      requests.push(`list ${plural} limit=${o.limit ?? ''} continue=${o.continue ?? ''}`);
      if (opts.forbidden) return fail(clusterError('forbidden', `Forbidden: user u cannot list resource "${plural}"`, { status: 403 }));
      const start = Number(o.continue ?? 0);
      const end = o.limit ? start + o.limit : crds.length;
      return ok({ items: crds.slice(start, end), resourceVersion: '7', ...(end < crds.length ? { continue: String(end) } : {}) });
    },
    watch(_group: string, _version: string, plural: string, w: WatchOptions) {
      requests.push(`watch ${plural} rv=${w.resourceVersion}`);
      onEvent = w.onEvent;
      return new Promise((resolve) => {
        const end = () => resolve(ok({ expired: false, resourceVersion: w.resourceVersion }));
        if (w.signal?.aborted) end();
        w.signal?.addEventListener('abort', end, { once: true });
      });
    },
  };
  return { client: client as unknown as ClusterClient, requests, emit: (type, obj) => onEvent?.(type, obj) };
}

export async function eventually(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
