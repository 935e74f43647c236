import * as vscode from 'vscode';
import { describeKey, runAction, type ObjectKey } from '../../workflows/reconcile';
import type { WriteAction } from '../../core/status/requests';
import type { ClusterConnection } from '../cluster/connection';
import { confirmWrite } from './confirm';
import { pickTarget, targetFromArg } from './target';

interface ActionCommand {
  id: string;
  action: WriteAction;
  withSource?: boolean;
}

/** The extension's only cluster writes. Each is confirmed, then waited for with a cancellable progress. */
export const ACTION_COMMANDS: readonly ActionCommand[] = [
  { id: 'gitopsPreview.reconcile', action: 'reconcile' },
  { id: 'gitopsPreview.reconcileWithSource', action: 'reconcile', withSource: true },
  { id: 'gitopsPreview.forceHelmRelease', action: 'force' },
  { id: 'gitopsPreview.resetHelmRelease', action: 'reset' },
  { id: 'gitopsPreview.suspend', action: 'suspend' },
  { id: 'gitopsPreview.resume', action: 'resume' },
];

const TITLES: Record<WriteAction, string> = {
  reconcile: 'Reconciling',
  force: 'Forcing',
  reset: 'Resetting',
  suspend: 'Suspending',
  resume: 'Resuming',
};

export function registerActionCommands(context: vscode.ExtensionContext, connection: ClusterConnection, output: vscode.OutputChannel): void {
  for (const cmd of ACTION_COMMANDS) {
    context.subscriptions.push(
      vscode.commands.registerCommand(cmd.id, async (arg?: unknown) => {
        const target = targetFromArg(arg) ?? (await pickTarget(connection, cmd.action));
        if (target) await perform(connection, output, target, cmd);
      }),
    );
  }
}

async function perform(connection: ClusterConnection, output: vscode.OutputChannel, target: ObjectKey, cmd: ActionCommand): Promise<void> {
  const client = connection.clientFor(`${cmd.action} ${describeKey(target)}`);
  if (!client) return;
  if ((cmd.action === 'force' || cmd.action === 'reset') && target.kind !== 'HelmRelease') {
    void vscode.window.showWarningMessage(`GitOps Preview: ${cmd.action} only applies to HelmReleases, not ${target.kind}.`);
    return;
  }
  if (!(await confirmWrite(client.context, target, cmd.action, !!cmd.withSource))) return;
  const timeoutSeconds = vscode.workspace.getConfiguration('gitopsPreview').get<number>('reconcileTimeoutSeconds', 300);
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `${TITLES[cmd.action]}${cmd.withSource ? ' with source' : ''} ${describeKey(target)} (${client.context})`, cancellable: true },
    (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return runAction(client, target, cmd.action, {
        withSource: cmd.withSource,
        timeoutMs: Math.max(5, timeoutSeconds) * 1000,
        signal: abort.signal,
        onProgress: (m) => {
          output.appendLine(`[${cmd.action}] ${m}`);
          progress.report({ message: m });
        },
      });
    },
  );
  if (!result.ok) {
    output.appendLine(`[${cmd.action}] ${describeKey(target)}: ${result.error.message}`);
    const pick = await vscode.window.showErrorMessage(`GitOps Preview: ${result.error.message}`, 'Retry');
    if (pick === 'Retry') await perform(connection, output, target, cmd);
    return;
  }
  const r = result.value;
  output.appendLine(`[${cmd.action}] ${r.object}: ${r.outcome}: ${r.message}`);
  switch (r.outcome) {
    case 'ready':
      void vscode.window.showInformationMessage(`${r.object}: ${r.message}`);
      break;
    case 'failed':
      void vscode.window.showErrorMessage(`${r.object}: reconciliation failed: ${r.message}`);
      break;
    case 'suspended':
      if (cmd.action === 'suspend') void vscode.window.showInformationMessage(r.message);
      else void vscode.window.showWarningMessage(r.message);
      break;
    case 'timeout':
      void vscode.window.showWarningMessage(r.message);
      break;
    case 'cancelled':
      void vscode.window.showInformationMessage(`Stopped waiting for ${r.object}; the request was sent and the controller will still handle it.`);
      break;
  }
}
