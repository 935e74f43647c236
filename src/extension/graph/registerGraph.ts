import * as vscode from 'vscode';
import type { Services } from '../extension';
import type { GraphSelection, TreeItemData } from '../../engine/protocol';
import { plainPosition, toPosix } from '../engineService';
import { GraphPanel } from './panel';

/**
 * GitOps: Show Dependency Graph — from the command palette, the Flux view's title bar and a
 * cluster's context menu (which opens that cluster's graph). The engine builds the graph and
 * names the nodes to highlight for the editor's cursor and the tree's selection.
 */
export function registerGraph(context: vscode.ExtensionContext, services: Services): void {
  const { engine, connection, output } = services;
  const panel = new GraphPanel(context.extensionUri, engine, output);
  const highlight = (selection: Promise<GraphSelection | undefined>) =>
    selection.then(
      (s) => panel.highlight(s),
      (err: Error) => output.appendLine(`[graph] highlight failed: ${err.message}`),
    );
  // Cursor moves come in bursts: ask the engine once they pause.
  let cursor: NodeJS.Timeout | undefined;
  const highlightEditor = (editor: vscode.TextEditor | undefined) => {
    if (!panel.isOpen || !editor || editor.document.uri.scheme !== 'file') return;
    if (cursor) clearTimeout(cursor);
    cursor = setTimeout(() => {
      cursor = undefined;
      if (!engine.ready) return;
      const doc = editor.document;
      void highlight(engine.client.request('graphNodesAt', { file: toPosix(doc.uri.fsPath), position: plainPosition(editor.selection.active), text: doc.getText() }));
    }, 100);
  };
  context.subscriptions.push(
    panel,
    { dispose: () => cursor && clearTimeout(cursor) },
    vscode.commands.registerCommand('gitopsPreview.showGraph', (item?: TreeItemData) => panel.show(item)),
    engine.onDidChange(() => panel.schedule()),
    engine.onDidChangeStatus(() => panel.schedule()),
    connection.onDidChange(() => panel.schedule()),
    vscode.window.onDidChangeTextEditorSelection((e) => highlightEditor(e.textEditor)),
    vscode.window.onDidChangeActiveTextEditor(highlightEditor),
  );
  if (services.treeView) {
    context.subscriptions.push(
      services.treeView.onDidChangeSelection((e) => {
        const item = e.selection[0];
        if (item && panel.isOpen && engine.ready) void highlight(engine.client.request('graphNodesAt', { treeItem: item.id }));
      }),
    );
  }
}
