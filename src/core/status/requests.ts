/**
 * Reconcile requests exactly as the flux CLI writes them: a token (the request time, RFC3339Nano)
 * in annotations that the controller echoes back in status.lastHandledReconcileAt.
 */
export const REQUESTED_AT = 'reconcile.fluxcd.io/requestedAt';
export const FORCE_AT = 'reconcile.fluxcd.io/forceAt';
export const RESET_AT = 'reconcile.fluxcd.io/resetAt';

export type ReconcileAction = 'reconcile' | 'force' | 'reset';
export type WriteAction = ReconcileAction | 'suspend' | 'resume';

/**
 * Go's `time.Now().Format(time.RFC3339Nano)` in UTC: fractional seconds up to 9 digits with
 * trailing zeros trimmed (none at all when zero), e.g. 2025-06-01T10:20:30.1234567Z.
 * `extraNanos` (0..999999) adds sub-millisecond precision so two requests in one millisecond differ.
 */
export function requestToken(epochMs: number, extraNanos = 0): string {
  const d = new Date(Math.floor(epochMs));
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const nanos = d.getUTCMilliseconds() * 1_000_000 + Math.max(0, Math.min(999_999, Math.floor(extraNanos)));
  const frac = nanos ? '.' + String(nanos).padStart(9, '0').replace(/0+$/, '') : '';
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}Z`
  );
}

/** Merge patch that requests a reconciliation; force/reset add their annotation with the same token. */
export function reconcilePatch(action: ReconcileAction, token: string): { metadata: { annotations: Record<string, string> } } {
  const annotations: Record<string, string> = { [REQUESTED_AT]: token };
  if (action === 'force') annotations[FORCE_AT] = token;
  if (action === 'reset') annotations[RESET_AT] = token;
  return { metadata: { annotations } };
}

export function suspendPatch(): { spec: { suspend: true } } {
  return { spec: { suspend: true } };
}

/** `flux resume`: unsuspend and request a reconciliation in the same write. */
export function resumePatch(token: string): { spec: { suspend: false }; metadata: { annotations: Record<string, string> } } {
  return { spec: { suspend: false }, metadata: { annotations: { [REQUESTED_AT]: token } } };
}

/** Force and reset only exist for HelmReleases (helm-controller). */
export function actionAllowed(kind: string, action: WriteAction): boolean {
  if (action === 'force' || action === 'reset') return kind === 'HelmRelease';
  return true;
}
