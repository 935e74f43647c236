import * as vscode from 'vscode';
import type { Services } from '../extension';
import { registerActionCommands } from '../reconcile/commands';
import { ReconcileCodeLensProvider } from '../reconcile/codeLens';
import { setLiveStatusSource } from '../tree/liveStatus';
import { ClusterConnection } from './connection';
import { WatchLiveStatusSource } from './liveSource';
import { createContextStatusBar } from './statusBar';

/**
 * Cluster features: connection + context status bar + Select Context, live status for the tree,
 * and the reconcile/suspend/resume commands with their CodeLenses.
 */
export function registerCluster(context: vscode.ExtensionContext, services: Services): void {
  const connection = new ClusterConnection(context.workspaceState, services.output);
  const live = new WatchLiveStatusSource(connection, () => services.repo.model(), services.repo.onDidChangeModel);
  const lenses = new ReconcileCodeLensProvider(services.repo, connection);
  context.subscriptions.push(
    connection,
    live,
    createContextStatusBar(connection),
    vscode.languages.registerCodeLensProvider({ language: 'yaml', scheme: 'file' }, lenses),
    connection.onDidChange(() => lenses.refresh()),
    services.repo.onDidChangeModel(() => lenses.refresh()),
    vscode.commands.registerCommand('gitopsPreview.selectContext', () => selectContext(connection)),
    vscode.commands.registerCommand('gitopsPreview.retryConnection', () => connection.connect()),
    { dispose: () => setLiveStatusSource(undefined) },
  );
  registerActionCommands(context, connection, services.output);
  setLiveStatusSource(live);
  if (!vscode.workspace.isTrusted) {
    services.output.appendLine(
      '[cluster] Untrusted workspace: exec credential plugins, kustomize and helm are not run; contexts that need a credential plugin cannot be used until the workspace is trusted.',
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
