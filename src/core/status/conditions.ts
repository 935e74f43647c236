/**
 * Flux status as the user sees it, from an object's JSON: the Ready condition, suspension, the
 * applied revision. Pure; shared by the live tree status, the wait loop and the CLI.
 */
export type LiveState = 'Ready' | 'NotReady' | 'Suspended' | 'Reconciling' | 'Unknown' | 'Absent';

export interface LiveObjectStatus {
  kind: string;
  namespace: string;
  name: string;
  state: LiveState;
  message?: string;
  revision?: string;
  lastHandledReconcileAt?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** The parts of an object's JSON this module reads. */
export interface FluxObjectJson {
  kind?: string;
  metadata?: { name?: string; namespace?: string; generation?: number; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

function rec(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : undefined;
}

export function conditions(obj: FluxObjectJson): Condition[] {
  const list = obj.status?.conditions;
  if (!Array.isArray(list)) return [];
  return list.filter((c): c is Condition => !!rec(c) && typeof (c as Condition).type === 'string');
}

export function condition(obj: FluxObjectJson, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

export function isSuspended(obj: FluxObjectJson): boolean {
  return obj.spec?.suspend === true;
}

/**
 * Whether the controller has looked at the current spec: the Ready condition's observedGeneration
 * (or status.observedGeneration when the condition has none) equals metadata.generation.
 * Objects without a generation (never true for CRDs) count as observed.
 */
export function generationObserved(obj: FluxObjectJson): boolean {
  const gen = obj.metadata?.generation;
  if (typeof gen !== 'number') return true;
  const ready = condition(obj, 'Ready');
  const observed = typeof ready?.observedGeneration === 'number' ? ready.observedGeneration : obj.status?.observedGeneration;
  return typeof observed === 'number' && observed === gen;
}

/** The revision the object last applied (Kustomization, HelmRelease) or fetched (sources). */
export function revisionOf(obj: FluxObjectJson): string | undefined {
  const s = obj.status ?? {};
  if (obj.kind === 'HelmRelease') {
    const history = Array.isArray(s.history) ? s.history : [];
    const latest = rec(history[0]);
    const chart = str(latest?.chartName);
    const version = str(latest?.chartVersion);
    if (chart && version) return `${chart}@${version}`;
    return str(s.lastAttemptedRevision) ?? str(s.lastAppliedRevision);
  }
  return str(s.lastAppliedRevision) ?? str(rec(s.artifact)?.revision) ?? str(s.lastAttemptedRevision);
}

/** Ready/NotReady/Suspended/Reconciling/Unknown with the condition message, as the tree shows it. */
export function liveStatusOf(obj: FluxObjectJson): LiveObjectStatus {
  const ready = condition(obj, 'Ready');
  const reconciling = condition(obj, 'Reconciling');
  let state: LiveState;
  if (isSuspended(obj)) state = 'Suspended';
  else if (!ready) state = reconciling?.status === 'True' ? 'Reconciling' : 'Unknown';
  else if (ready.status === 'Unknown' || !generationObserved(obj)) state = 'Reconciling';
  else if (ready.status === 'False') state = 'NotReady';
  else state = reconciling?.status === 'True' ? 'Reconciling' : 'Ready';
  const message = ready?.message ?? reconciling?.message;
  return {
    kind: obj.kind ?? '',
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
    state,
    ...(message ? { message } : {}),
    ...(revisionOf(obj) ? { revision: revisionOf(obj) } : {}),
    ...(str(obj.status?.lastHandledReconcileAt) ? { lastHandledReconcileAt: str(obj.status?.lastHandledReconcileAt) } : {}),
  };
}
