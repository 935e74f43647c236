import * as vscode from 'vscode';
import { engineDriftContext, previewDrift } from '../../workflows/drift';
import { summaryLine } from '../../core/drift';
import type { EngineClient } from '../../engine/client';
import type { TargetRef } from '../../engine/protocol';
import type { ClusterConnection } from '../cluster/connection';
import type { DriftStore } from './store';

/**
 * Runs drift for one Flux object with a cancellable progress notification and stores the reports.
 * The render runs in the engine; the cluster is the window's connection (the context the user
 * chose). Dry-run only: nothing here writes to the cluster.
 */
export async function runDriftFor(
  target: TargetRef,
  deps: { engine: EngineClient; connection: ClusterConnection; store: DriftStore; output: vscode.OutputChannel },
): Promise<void> {
  const client = deps.connection.clientFor('preview drift');
  if (!client) return;
  const subject = await deps.engine.request('driftSubject', { target });
  if (!subject) {
    void vscode.window.showWarningMessage(`GitOps Preview: ${target.kind} ${target.namespace}/${target.name} is no longer in the workspace.`);
    return;
  }
  const trusted = vscode.workspace.isTrusted;
  const label = `${target.kind} ${target.namespace}/${target.name}`;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Drift of ${label}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let last = 0;
      const ctx = engineDriftContext(
        deps.engine,
        target,
        { allowNetwork: trusted, offline: vscode.workspace.getConfiguration('gitopsPreview').get<boolean>('charts.offline') === true },
        {
          subject,
          client,
          signal: abort.signal,
          onPhase: (message) => progress.report({ message }),
          onProgress: (done, total) => {
            const pct = Math.floor((done / total) * 100);
            progress.report({ message: `${done}/${total} objects`, increment: pct - last });
            last = pct;
          },
        },
      );
      const outcomes = (await previewDrift(ctx)).map((run) => run.outcome);
      for (const o of outcomes) {
        if (o.ok) {
          deps.store.add(o.value, client.context);
          deps.output.appendLine(`[drift] ${summaryLine(o.value)}${o.value.cancelled ? ' (cancelled)' : ''}`);
        } else if (o.error.kind === 'cancelled') {
          deps.output.appendLine(`[drift] ${label}: cancelled`);
        } else {
          deps.output.appendLine(`[drift] ${o.error.message}`);
          // The render's message names the fix itself (trust the workspace, leave offline, log in).
          void vscode.window.showWarningMessage(`GitOps Preview: ${o.error.message}`);
        }
      }
      if (outcomes.some((o) => o.ok)) void vscode.commands.executeCommand('gitopsPreview.drift.focus');
    },
  );
}
