import * as vscode from 'vscode';
import { ClusterClient } from '../../cluster/client';
import { driftHelmRelease, driftKustomization, helmDesiredVsDeployed, type DriftOutcome, type DriftRunContext } from '../../cluster/driftRun';
import { loadKubeConfig } from '../../cluster/kubeconfig';
import { summaryLine } from '../../core/drift';
import type { HelmReleaseNode, KustomizationNode } from '../../core/model/graph';
import type { RepoService } from '../repoService';
import type { DriftStore } from './store';

/** Same key as the cluster connection's Select Context, so drift uses the context the user chose. */
const CONTEXT_KEY = 'gitopsPreview.context';

function config<T>(key: string): T | undefined {
  return vscode.workspace.getConfiguration('gitopsPreview').get<T>(key);
}

function client(memento: vscode.Memento): { client: ClusterClient } | { error: string } {
  const loaded = loadKubeConfig({
    kubeconfigPath: config<string>('kubeconfig')?.trim() || undefined,
    context: memento.get<string>(CONTEXT_KEY) || undefined,
    env: process.env,
    // Credential plugins are processes: never for an untrusted workspace.
    allowExec: vscode.workspace.isTrusted,
  });
  if (!loaded.ok) return { error: loaded.error.message };
  return { client: new ClusterClient(loaded.value, { userAgent: 'gitops-preview-vscode' }) };
}

/**
 * Runs drift for one Flux object with a cancellable progress notification and stores the reports.
 * Dry-run only: nothing here writes to the cluster.
 */
export async function runDriftFor(
  node: KustomizationNode | HelmReleaseNode,
  deps: { repo: RepoService; store: DriftStore; memento: vscode.Memento; output: vscode.OutputChannel },
): Promise<void> {
  const c = client(deps.memento);
  if ('error' in c) {
    void vscode.window.showErrorMessage(`GitOps Preview: cannot connect for drift: ${c.error}`, 'Select Context').then((p) => {
      if (p) void vscode.commands.executeCommand('gitopsPreview.selectContext');
    });
    return;
  }
  const trusted = vscode.workspace.isTrusted;
  const label = `${node.kind} ${node.applied.namespace}/${node.applied.name}`;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Drift of ${label}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      let last = 0;
      const ctx: DriftRunContext = {
        model: deps.repo.model(),
        client: c.client,
        render: {
          allowProcesses: trusted,
          helmBin: config<string>('helmPath')?.trim() || undefined,
        },
        signal: abort.signal,
        onPhase: (message) => progress.report({ message }),
        onProgress: (done, total) => {
          const pct = Math.floor((done / total) * 100);
          progress.report({ message: `${done}/${total} objects`, increment: pct - last });
          last = pct;
        },
      };
      const outcomes: DriftOutcome[] = [];
      if (node.kind === 'Kustomization') outcomes.push(await driftKustomization(ctx, node));
      else {
        outcomes.push(await driftHelmRelease(ctx, node));
        if (!abort.signal.aborted) {
          last = 0;
          outcomes.push(await helmDesiredVsDeployed(ctx, node));
        }
      }
      for (const o of outcomes) {
        if (o.ok) {
          deps.store.add(o.value, c.client.context);
          deps.output.appendLine(`[drift] ${summaryLine(o.value)}${o.value.cancelled ? ' (cancelled)' : ''}`);
        } else if (o.error.kind === 'cancelled') {
          deps.output.appendLine(`[drift] ${label}: cancelled`);
        } else {
          deps.output.appendLine(`[drift] ${o.error.message}`);
          void vscode.window.showWarningMessage(`GitOps Preview: ${explain(o.error.message, trusted)}`);
        }
      }
      if (outcomes.some((o) => o.ok)) void vscode.commands.executeCommand('gitopsPreview.drift.focus');
    },
  );
}

function explain(message: string, trusted: boolean): string {
  if (!trusted && /not allowed|untrusted|not-allowed/i.test(message)) {
    return `${message} This workspace is not trusted, so helm is not run to pull charts: trust it (Manage Workspace Trust) to preview drift of charts that are not cached yet.`;
  }
  return message;
}
