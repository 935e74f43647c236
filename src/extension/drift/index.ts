import * as vscode from 'vscode';
import type { HelmReleaseNode, KustomizationNode, RepoModel } from '../../core/model/graph';
import type { Services } from '../extension';
import { DriftCodeLensProvider } from './codeLens';
import { LiveValueDecorations } from './decorations';
import { DRIFT_SCHEME, DriftDocuments, driftUri } from './documents';
import { DriftTreeProvider } from './driftView';
import { runDriftFor } from './runner';
import { DriftStore } from './store';

type Target = { kind: string; namespace: string; name: string };

/** A tree node (`{type:'flux', applied}`), a CodeLens argument, or nothing (then a pick). */
function targetOf(arg: unknown): Target | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const a = arg as Record<string, any>;
  if (a.type === 'flux' && a.applied) return { kind: a.applied.kind, namespace: a.applied.namespace ?? 'flux-system', name: a.applied.name };
  if (typeof a.kind === 'string' && typeof a.name === 'string' && typeof a.namespace === 'string') return { kind: a.kind, namespace: a.namespace, name: a.name };
  return undefined;
}

function candidates(model: RepoModel): Array<{ cluster: string; node: KustomizationNode | HelmReleaseNode }> {
  return model.clusters.flatMap((c) =>
    [...c.kustomizations, ...c.helmReleases].filter((n) => !n.applied.object.synthetic).map((node) => ({ cluster: c.name, node })),
  );
}

async function resolve(model: RepoModel, arg: unknown): Promise<KustomizationNode | HelmReleaseNode | undefined> {
  const t = targetOf(arg);
  let list = candidates(model);
  if (t) list = list.filter((c) => c.node.kind === t.kind && c.node.applied.name === t.name && (c.node.applied.namespace ?? 'flux-system') === t.namespace);
  if (list.length === 0) {
    void vscode.window.showWarningMessage(t ? `GitOps Preview: ${t.kind} ${t.namespace}/${t.name} is not applied by any cluster in this workspace.` : 'GitOps Preview: no Flux Kustomization or HelmRelease in this workspace.');
    return undefined;
  }
  if (list.length === 1) return list[0].node;
  const pick = await vscode.window.showQuickPick(
    list.map((c) => ({ label: `${c.node.kind} ${c.node.applied.namespace}/${c.node.applied.name}`, description: `cluster ${c.cluster}`, node: c.node })),
    { placeHolder: 'Show drift of…', matchOnDescription: true },
  );
  return pick?.node;
}

export function registerDrift(context: vscode.ExtensionContext, services: Services): void {
  const store = new DriftStore();
  const lenses = new DriftCodeLensProvider(services.repo, store);
  const deps = { repo: services.repo, store, memento: context.workspaceState, output: services.output };
  context.subscriptions.push(
    store,
    vscode.workspace.registerTextDocumentContentProvider(DRIFT_SCHEME, new DriftDocuments(store)),
    vscode.window.createTreeView('gitopsPreview.drift', { treeDataProvider: new DriftTreeProvider(store), showCollapseAll: true }),
    new LiveValueDecorations(store, services.repo),
    vscode.languages.registerCodeLensProvider({ language: 'yaml', scheme: 'file' }, lenses),
    store.onDidChange(() => lenses.refresh()),
    services.repo.onDidChangeModel(() => lenses.refresh()),
    vscode.commands.registerCommand('gitopsPreview.showDrift', async (arg?: unknown) => {
      const node = await resolve(services.repo.model(), arg);
      if (node) await runDriftFor(node, deps);
    }),
    vscode.commands.registerCommand('gitopsPreview.openDriftDiff', async (runId: number, index: number) => {
      const entry = store.byId(runId)?.report.entries[index];
      if (!entry) return;
      await vscode.commands.executeCommand(
        'vscode.diff',
        driftUri(runId, index, 'live', entry.subject),
        driftUri(runId, index, 'desired', entry.subject),
        `${entry.subject}: live ↔ desired (${entry.verdict})`,
        { preview: true },
      );
    }),
    vscode.commands.registerCommand('gitopsPreview.clearDrift', () => store.clear()),
    vscode.commands.registerCommand('gitopsPreview.focusDrift', () => vscode.commands.executeCommand('gitopsPreview.drift.focus')),
  );
}
