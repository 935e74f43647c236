import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import type { TargetRef } from '../../engine/protocol';
import type { Services } from '../extension';
import { DriftCodeLensProvider } from './codeLens';
import { LiveValueDecorations } from './decorations';
import { DRIFT_SCHEME, driftDocument, driftUri } from './documents';
import { ReadOnlyDocuments } from '../readOnlyDocuments';
import { DriftTreeProvider } from './driftView';
import { runDriftFor } from './runner';
import { DriftStore } from './store';

type Target = { kind: string; namespace: string; name: string };

/** A tree item (its engine-named `target`), a CodeLens argument, or nothing (then a pick). */
function targetOf(arg: unknown): Target | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const a = arg as Record<string, any>;
  if (a.target && typeof a.target === 'object') return targetOf(a.target);
  if (typeof a.kind === 'string' && typeof a.name === 'string' && typeof a.namespace === 'string') return { kind: a.kind, namespace: a.namespace, name: a.name };
  return undefined;
}

async function resolve(engine: EngineClient, arg: unknown): Promise<TargetRef | undefined> {
  if (!engine.ready) {
    void vscode.window.showInformationMessage('GitOps Preview: still indexing the workspace; try again in a moment.');
    return undefined;
  }
  const t = targetOf(arg);
  const cluster = arg && typeof arg === 'object' ? (arg as { target?: { cluster?: unknown } }).target?.cluster : undefined;
  const list = await engine.request('targets', t ? { ...t, ...(typeof cluster === 'string' ? { cluster } : {}) } : {});
  if (list.length === 0) {
    void vscode.window.showWarningMessage(t ? `GitOps Preview: ${t.kind} ${t.namespace}/${t.name} is not applied by any cluster in this workspace.` : 'GitOps Preview: no Flux Kustomization or HelmRelease in this workspace.');
    return undefined;
  }
  if (list.length === 1) return list[0];
  const pick = await vscode.window.showQuickPick(
    list.map((ref) => ({ label: `${ref.kind} ${ref.namespace}/${ref.name}`, description: `cluster ${ref.cluster} · ${ref.root}`, ref })),
    { placeHolder: 'Show drift of…', matchOnDescription: true },
  );
  return pick?.ref;
}

export function registerDrift(context: vscode.ExtensionContext, services: Services): void {
  const store = new DriftStore();
  const engine = services.engine.client;
  const lenses = new DriftCodeLensProvider(engine, store);
  const deps = { engine, connection: services.connection, store, output: services.output };
  context.subscriptions.push(
    store,
    new ReadOnlyDocuments(DRIFT_SCHEME, (uri) => driftDocument(store, uri)),
    vscode.window.createTreeView('gitopsPreview.drift', { treeDataProvider: new DriftTreeProvider(store), showCollapseAll: true }),
    new LiveValueDecorations(store, engine, services.engine.onDidChange),
    vscode.languages.registerCodeLensProvider({ language: 'yaml', scheme: 'file' }, lenses),
    store.onDidChange(() => lenses.refresh()),
    services.engine.onDidChange(() => lenses.refresh()),
    vscode.commands.registerCommand('gitopsPreview.showDrift', async (arg?: unknown) => {
      const target = await resolve(engine, arg);
      if (target) await runDriftFor(target, deps);
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
