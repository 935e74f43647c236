import type { KubeJson } from '../kubeJson';

export type PathSegment = string | number;

/** What a dry-run says would happen to one object (flux diff's actions, plus error and cancelled). */
export type DriftVerdict = 'created' | 'drifted' | 'unchanged' | 'skipped' | 'deleted' | 'error' | 'cancelled';

export const VERDICTS: readonly DriftVerdict[] = ['drifted', 'created', 'deleted', 'error', 'skipped', 'unchanged', 'cancelled'];

export interface ObjectId {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** Undefined for cluster-scoped objects. */
  readonly namespace?: string;
}

/** The workspace document an object was taken from verbatim (so its fields map back to lines). */
export interface ObjectOrigin {
  /** Absolute path with `/` separators, as in the Workspace. */
  readonly file: string;
  readonly docIndex: number;
}

/** One object to compare against the cluster. */
export interface DesiredObject {
  readonly object: KubeJson;
  readonly origin?: ObjectOrigin;
}

/** One difference between the live object and the dry-run result, at a JSON path. */
export interface FieldChange {
  readonly path: PathSegment[];
  readonly op: 'add' | 'remove' | 'replace';
  /** Absent for `add`. Masked for Secret data. */
  readonly live?: unknown;
  /** Absent for `remove`. Masked for Secret data. */
  readonly desired?: unknown;
}

/** Why a call to the cluster failed, in the few categories drift cares about. */
export type ApiErrorKind =
  | 'notFound'
  | 'noKind'
  | 'forbidden'
  | 'unauthorized'
  | 'invalid'
  | 'conflict'
  | 'unreachable'
  | 'timeout'
  | 'cancelled'
  | 'other';

export interface ApiError {
  readonly kind: ApiErrorKind;
  readonly message: string;
  readonly status?: number;
  /** The Kubernetes Status reason (Invalid, Forbidden, Conflict…), when the server sent one. */
  readonly reason?: string;
}

export interface DriftEntry {
  readonly id: ObjectId;
  /** `Kind/namespace/name` (or `Kind/name`), as flux prints it. */
  readonly subject: string;
  verdict: DriftVerdict;
  /** Why skipped / deleted / created by force; the server's message for errors. */
  readonly reason?: string;
  readonly error?: ApiError;
  /** Live object without noise (managedFields, resourceVersion, …), Secret values masked. */
  readonly live?: KubeJson;
  /** What the cluster would hold after apply (the dry-run result, cleaned and masked the same way). */
  readonly desired?: KubeJson;
  readonly changes: FieldChange[];
  readonly origin?: ObjectOrigin;
}

export type DriftMode = 'kustomization' | 'helm-live' | 'helm-desired';

export interface DriftTarget {
  readonly kind: 'Kustomization' | 'HelmRelease';
  readonly name: string;
  readonly namespace: string;
}

export interface DriftReport {
  readonly target: DriftTarget;
  readonly mode: DriftMode;
  readonly entries: DriftEntry[];
  /** The run was aborted; entries not reached have verdict `cancelled`. */
  readonly cancelled: boolean;
  /** Things the user should know that are not about one object (prune off, inventory unreadable…). */
  readonly notes: string[];
  /** API requests sent (gets and dry-run patches). */
  readonly requests: number;
}

export function counts(entries: readonly DriftEntry[]): Record<DriftVerdict, number> {
  const c: Record<DriftVerdict, number> = { created: 0, drifted: 0, unchanged: 0, skipped: 0, deleted: 0, error: 0, cancelled: 0 };
  for (const e of entries) c[e.verdict]++;
  return c;
}

/** True when applying would change something (flux diff's exit status 1). */
export function hasDrift(report: DriftReport): boolean {
  return report.entries.some((e) => e.verdict === 'created' || e.verdict === 'drifted' || e.verdict === 'deleted');
}

/** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects (fluxcd/pkg ssa/utils FmtObjMetadata). */
export function subjectOf(id: Pick<ObjectId, 'kind' | 'name' | 'namespace'>): string {
  return id.namespace ? `${id.kind}/${id.namespace}/${id.name}` : `${id.kind}/${id.name}`;
}

export function idOf(obj: KubeJson): ObjectId {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const ns = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
  return {
    apiVersion: String(obj.apiVersion ?? ''),
    kind: String(obj.kind ?? ''),
    name: String(meta.name ?? ''),
    ...(ns ? { namespace: ns } : {}),
  };
}

export function isRecord(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
