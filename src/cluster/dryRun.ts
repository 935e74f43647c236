/**
 * The drift engine's view of a cluster (core/drift DriftApi) over ClusterClient: GET of the live
 * object and server-side apply with dryRun=All, force=true and the controller's field manager.
 * Nothing here can write: the only PATCH it sends carries dryRun=All.
 */
import type { KubeJson } from '../core/kubeJson';
import type { ApiError, ApiErrorKind, DriftApi, ObjectId } from '../core/drift';
import type { Result } from '../core/result';
import type { ClusterClient } from './client';
import type { ClusterError } from './errors';

const KIND_MAP: Record<ClusterError['kind'], ApiErrorKind> = {
  'not-found': 'notFound',
  forbidden: 'forbidden',
  unauthorized: 'unauthorized',
  conflict: 'conflict',
  invalid: 'invalid',
  timeout: 'timeout',
  cancelled: 'cancelled',
  unreachable: 'unreachable',
  'no-kubeconfig': 'other',
  'bad-kubeconfig': 'other',
  unknown: 'other',
};

/** ClusterError → ApiError, preferring the API server's own sentence and Status reason. */
export function toApiError(e: ClusterError, kind?: ApiErrorKind): ApiError {
  const d = (e.details ?? {}) as { message?: unknown; reason?: unknown };
  const message = typeof d.message === 'string' && d.message.trim() ? d.message.trim() : e.message;
  return {
    kind: kind ?? KIND_MAP[e.kind] ?? 'other',
    message,
    ...(e.status !== undefined ? { status: e.status } : {}),
    ...(typeof d.reason === 'string' && d.reason ? { reason: d.reason } : {}),
  };
}

export interface DryRunApiOptions {
  /** Per-request timeout (ms); the client's default otherwise. */
  timeoutMs?: number;
}

export function clusterDriftApi(client: ClusterClient, opts: DryRunApiOptions = {}): DriftApi {
  const call = (signal?: AbortSignal) => ({ signal, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) });
  return {
    async get(id: ObjectId, signal?: AbortSignal): Promise<Result<KubeJson | undefined, ApiError>> {
      const type = await client.resourceFor(id.apiVersion, id.kind, call(signal));
      if (!type.ok) return { ok: false, error: toApiError(type.error, type.error.kind === 'not-found' ? 'noKind' : undefined) };
      if (type.value.namespaced && !id.namespace) {
        return { ok: false, error: { kind: 'invalid', message: `${id.kind}/${id.name} namespace not specified` } };
      }
      const got = await client.getObject(type.value, type.value.namespaced ? id.namespace : undefined, id.name, call(signal));
      if (got.ok) return { ok: true, value: got.value as KubeJson };
      if (got.error.kind === 'not-found') return { ok: true, value: undefined };
      return { ok: false, error: toApiError(got.error) };
    },
    async dryRunApply(obj: KubeJson, fieldManager: string, signal?: AbortSignal): Promise<Result<KubeJson, ApiError>> {
      const res = await client.serverSideApply(obj, { dryRun: true, force: true, fieldManager, ...call(signal) });
      if (res.ok) return { ok: true, value: res.value as KubeJson };
      // A kind the cluster does not serve: discovery answers 404 before any PATCH is sent.
      const noKind = res.error.kind === 'not-found' && /has no kind|CRD not installed|the server could not find the requested resource/i.test(res.error.message);
      return { ok: false, error: toApiError(res.error, noKind ? 'noKind' : undefined) };
    },
  };
}
