// A tiny in-memory stand-in for the API server's GET and dry-run apply, for engine unit tests.
import type { KubeJson } from '../../../src/core/kubeJson';
import type { ApiError, DriftApi, ObjectId } from '../../../src/core/drift';
import type { Result } from '../../../src/core/result';

export interface FakeApi extends DriftApi {
  objects: Map<string, KubeJson>;
  inFlight: number;
  maxInFlight: number;
  calls: string[];
  /** key → error returned by the dry-run of that object. */
  dryRunErrors: Map<string, ApiError>;
  /** kinds the "cluster" does not serve (`apiVersion/kind`). */
  missingKinds: Set<string>;
  delayMs: number;
}

export function key(id: Pick<ObjectId, 'kind' | 'name' | 'namespace'>): string {
  return `${id.kind}/${id.namespace ?? ''}/${id.name}`;
}

function merge(base: unknown, patch: unknown): unknown {
  if (base && patch && typeof base === 'object' && typeof patch === 'object' && !Array.isArray(base) && !Array.isArray(patch)) {
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
      if (v === null) delete out[k];
      else out[k] = merge(out[k], v);
    }
    return out;
  }
  return JSON.parse(JSON.stringify(patch));
}

export function fakeApi(initial: KubeJson[] = []): FakeApi {
  const api: FakeApi = {
    objects: new Map(),
    inFlight: 0,
    maxInFlight: 0,
    calls: [],
    dryRunErrors: new Map(),
    missingKinds: new Set(),
    delayMs: 1,
    async get(id, signal): Promise<Result<KubeJson | undefined, ApiError>> {
      api.calls.push(`GET ${key(id)}`);
      return track(signal, () => {
        if (api.missingKinds.has(`${id.apiVersion}/${id.kind}`)) return { ok: false, error: { kind: 'noKind', message: 'no kind' } };
        const o = api.objects.get(key(id));
        return { ok: true, value: o ? JSON.parse(JSON.stringify(o)) : undefined };
      });
    },
    async dryRunApply(obj, fieldManager, signal): Promise<Result<KubeJson, ApiError>> {
      const id = { kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace };
      api.calls.push(`PATCH ${key(id)} ${fieldManager}`);
      return track(signal, () => {
        if (api.missingKinds.has(`${obj.apiVersion}/${obj.kind}`)) return { ok: false, error: { kind: 'noKind', message: 'no kind' } };
        const err = api.dryRunErrors.get(key(id));
        if (err) return { ok: false, error: err };
        const live = api.objects.get(key(id));
        const merged = merge(live ?? {}, obj) as KubeJson;
        delete merged.metadata.creationTimestamp;
        if (!live) delete merged.metadata.resourceVersion;
        merged.metadata.managedFields = [{ manager: fieldManager, operation: 'Apply' }];
        return { ok: true, value: merged };
      });
    },
  };
  for (const o of initial) {
    api.objects.set(key({ kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace }), {
      ...o,
      metadata: { ...o.metadata, resourceVersion: '7', uid: 'u-1', managedFields: [{ manager: 'kubectl' }] },
    });
  }
  async function track<T>(signal: AbortSignal | undefined, f: () => Result<T, ApiError>): Promise<Result<T, ApiError>> {
    api.inFlight++;
    api.maxInFlight = Math.max(api.maxInFlight, api.inFlight);
    try {
      await new Promise((r) => setTimeout(r, api.delayMs));
      if (signal?.aborted) return { ok: false, error: { kind: 'cancelled', message: 'Cancelled' } };
      return f();
    } finally {
      api.inFlight--;
    }
  }
  return api;
}
