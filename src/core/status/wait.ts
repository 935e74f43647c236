import { condition, generationObserved, isSuspended, type FluxObjectJson } from './conditions';

/**
 * Where a requested reconciliation stands, as `flux reconcile` decides it: handled once
 * status.lastHandledReconcileAt equals our token and the Ready condition describes the current
 * generation; then Ready=True is success, Ready=False failure, Ready=Unknown still running.
 */
export type WaitState =
  | { done: false; reason: string }
  | { done: true; outcome: 'ready'; message: string }
  | { done: true; outcome: 'failed'; message: string }
  | { done: true; outcome: 'suspended'; message: string };

export function evaluateWait(obj: FluxObjectJson, token: string | undefined): WaitState {
  const what = `${obj.kind ?? 'object'} ${obj.metadata?.namespace ? obj.metadata.namespace + '/' : ''}${obj.metadata?.name ?? ''}`;
  if (isSuspended(obj)) return { done: true, outcome: 'suspended', message: `${what} is suspended; resume it to reconcile` };
  const handled = obj.status?.lastHandledReconcileAt;
  if (token !== undefined && handled !== token) {
    return { done: false, reason: `waiting for the controller to handle the request (last handled: ${typeof handled === 'string' ? handled : 'never'})` };
  }
  const ready = condition(obj, 'Ready');
  if (!ready) return { done: false, reason: 'waiting for a Ready condition' };
  if (!generationObserved(obj)) return { done: false, reason: 'waiting for the controller to observe the latest generation' };
  const message = ready.message?.trim() || ready.reason || '';
  if (ready.status === 'True') return { done: true, outcome: 'ready', message: message || `${what} is ready` };
  if (ready.status === 'False') return { done: true, outcome: 'failed', message: message || `${what} is not ready` };
  return { done: false, reason: message ? `reconciling: ${message}` : 'reconciling' };
}
