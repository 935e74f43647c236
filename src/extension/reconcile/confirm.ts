import * as vscode from 'vscode';
import { describeKey, type ObjectKey } from '../../workflows/reconcile';
import { needsConfirmation } from '../../core/status/confirm';
import type { WriteAction } from '../../core/status/requests';

const VERBS: Record<WriteAction, { button: string; what: string }> = {
  reconcile: { button: 'Reconcile', what: 'sets reconcile.fluxcd.io/requestedAt, so the controller reconciles it now' },
  force: { button: 'Force', what: 'sets reconcile.fluxcd.io/forceAt and requestedAt: a one-off Helm install/upgrade even without changes' },
  reset: { button: 'Reset', what: 'sets reconcile.fluxcd.io/resetAt and requestedAt: resets the failure counts of the release' },
  suspend: { button: 'Suspend', what: 'sets spec.suspend: true; the controller stops reconciling it until resumed' },
  resume: { button: 'Resume', what: 'sets spec.suspend: false and requests a reconciliation' },
};

/** Modal confirmation naming the context and the object; skipped for contexts the setting does not list. */
export async function confirmWrite(context: string, target: ObjectKey, action: WriteAction, withSource: boolean): Promise<boolean> {
  const patterns = vscode.workspace.getConfiguration('gitopsPreview').get<unknown>('confirmWritesForContexts', ['*']);
  if (!needsConfirmation(context, patterns)) return true;
  const verb = VERBS[action];
  const detail = `This ${verb.what}.${withSource ? ' Its source is reconciled first.' : ''}\n\nContext: ${context}`;
  const pick = await vscode.window.showWarningMessage(
    `${verb.button}${withSource ? ' with source' : ''} ${describeKey(target)} in context "${context}"?`,
    { modal: true, detail },
    verb.button,
  );
  return pick === verb.button;
}
