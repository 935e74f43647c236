import * as vscode from 'vscode';
import type { Services } from '../extension';
import type { TreeNode } from '../../core/tree/viewModel';
import { objectAtOffset } from '../../core/navigation/locate';
import { onDidChangeLiveStatus } from '../tree/liveStatus';
import { toPosix } from '../repoService';
import { GraphPanel } from './panel';

/**
 * GitOps: Show Dependency Graph — from the command palette, the Flux view's title bar and a
 * cluster's context menu (which opens that cluster's graph).
 */
export function registerGraph(context: vscode.ExtensionContext, services: Services): void {
  const panel = new GraphPanel(context.extensionUri, services.repo, services.output);
  const highlightEditor = (editor: vscode.TextEditor | undefined) => {
    if (!editor || editor.document.uri.scheme !== 'file') return;
    const model = services.repo.model();
    const file = model.workspace.files.get(toPosix(editor.document.uri.fsPath));
    if (file) panel.highlight(objectAtOffset(model, file, editor.document.offsetAt(editor.selection.active)), model);
  };
  context.subscriptions.push(
    panel,
    vscode.commands.registerCommand('gitopsPreview.showGraph', (node?: TreeNode) => panel.show(node?.type === 'cluster' ? node.cluster.name : undefined)),
    services.repo.onDidChangeModel(() => panel.schedule()),
    onDidChangeLiveStatus(() => panel.schedule()),
    vscode.window.onDidChangeTextEditorSelection((e) => highlightEditor(e.textEditor)),
    vscode.window.onDidChangeActiveTextEditor(highlightEditor),
  );
  if (services.treeView) {
    context.subscriptions.push(
      services.treeView.onDidChangeSelection((e) => {
        const node = e.selection[0];
        if (node?.type === 'flux' || node?.type === 'resource') panel.highlight(node.applied.object, services.repo.model());
      }),
    );
  }
}
