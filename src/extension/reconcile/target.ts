import * as vscode from 'vscode';
import type { ObjectKey } from '../../workflows/reconcile';
import type { WriteAction } from '../../core/status/requests';
import type { ClusterConnection } from '../cluster/connection';

/**
 * The object a command acts on: a Flux tree item (workspace object or cluster-only), a CodeLens
 * argument, or — from the command palette — a pick from the objects the cluster has.
 */
export function targetFromArg(arg: unknown): ObjectKey | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const a = arg as Record<string, any>;
  // A Flux tree item: the engine already named it as the cluster does.
  if (a.target && typeof a.target === 'object') return targetFromArg(a.target);
  if (typeof a.kind === 'string' && typeof a.name === 'string' && typeof a.namespace === 'string') return { kind: a.kind, namespace: a.namespace, name: a.name };
  return undefined;
}

export async function pickTarget(connection: ClusterConnection, action: WriteAction): Promise<ObjectKey | undefined> {
  const watcher = connection.watcher;
  if (!watcher || !connection.connected) {
    void vscode.window.showWarningMessage('GitOps Preview: not connected to a cluster. Use "GitOps Preview: Select Context" first.');
    return undefined;
  }
  const items = watcher
    .all()
    .filter((s) => (action === 'force' || action === 'reset' ? s.kind === 'HelmRelease' : true))
    .filter((s) => (action === 'resume' ? s.state === 'Suspended' : action === 'suspend' ? s.state !== 'Suspended' : true))
    .sort((a, b) => a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name))
    .map((s) => ({ label: `${s.kind} ${s.namespace}/${s.name}`, description: s.state, detail: s.message, key: { kind: s.kind, namespace: s.namespace, name: s.name } }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage(`GitOps Preview: no Flux object in ${connection.client?.context ?? 'the cluster'} to ${action}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(items, { placeHolder: `Flux object to ${action} (context ${connection.client?.context})`, matchOnDetail: true });
  return pick?.key;
}
