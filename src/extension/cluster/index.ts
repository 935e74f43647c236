import * as vscode from 'vscode';
import type { Services } from '../extension';
import { registerActionCommands } from '../reconcile/commands';
import { ReconcileCodeLensProvider } from '../reconcile/codeLens';
import { FLUX_TYPES } from '../../core/kinds';
import type { LiveSnapshot } from '../../engine/protocol';
import type { ClusterConnection } from './connection';
import { createContextStatusBar } from './statusBar';
import { followClusterCrds } from './crds';

/**
 * Cluster features: connection + context status bar + Select Context, live status for the tree,
 * the cluster's CRDs for the checks, and the reconcile/suspend/resume commands with their CodeLenses.
 */
export function registerCluster(context: vscode.ExtensionContext, services: Services): void {
  const { connection, engine } = services;
  const lenses = new ReconcileCodeLensProvider(engine.client, connection);
  // The tree's live decoration: the watcher's cache, posted to the engine as plain data.
  const postLive = () => engine.client.live(liveSnapshot(connection));
  context.subscriptions.push(
    createContextStatusBar(connection),
    vscode.languages.registerCodeLensProvider({ language: 'yaml', scheme: 'file' }, lenses),
    connection.onDidChange(() => {
      postLive();
      lenses.refresh();
    }),
    engine.onDidChange(() => lenses.refresh()),
    vscode.commands.registerCommand('gitopsPreview.selectContext', () => selectContext(connection)),
    vscode.commands.registerCommand('gitopsPreview.retryConnection', () => connection.connect()),
  );
  // Before connect(): the first client's CRDs are followed from the start.
  context.subscriptions.push(followClusterCrds(connection, engine.client, services.output));
  registerActionCommands(context, connection, services.output);
  if (!vscode.workspace.isTrusted) {
    services.output.appendLine(
      '[cluster] Untrusted workspace: no cluster is contacted and no process is run (kustomize and helm run as WebAssembly) until the workspace is trusted.',
    );
  }
  connection.connect();
}

async function selectContext(connection: ClusterConnection): Promise<void> {
  const { contexts, current, error } = connection.contexts();
  if (error) {
    void vscode.window.showErrorMessage(`GitOps Preview: ${error.message}`);
    return;
  }
  const selected = connection.selectedContext;
  type Item = vscode.QuickPickItem & { context: string | undefined };
  const items: Item[] = [
    { label: '$(discard) Use the kubeconfig current-context', description: current ?? '(none)', context: undefined },
    ...contexts.map((c) => ({
      label: c,
      description: [c === selected ? 'selected for this workspace' : '', c === current ? 'current-context' : ''].filter(Boolean).join(', '),
      context: c,
    })),
  ];
  const pick = await vscode.window.showQuickPick(items, {
    placeHolder: 'Kubernetes context for this workspace (the kubeconfig file is not changed)',
  });
  if (pick) await connection.selectContext(pick.context);
}

/** What the watcher knows, as the engine's plain LiveSnapshot; undefined when not connected. */
function liveSnapshot(connection: ClusterConnection): LiveSnapshot | undefined {
  const watcher = connection.watcher;
  if (!watcher || !connection.connected) return undefined;
  return { connected: true, statuses: watcher.all(), syncedKinds: FLUX_TYPES.map((t) => t.kind).filter((k) => watcher.kindSynced(k)) };
}
