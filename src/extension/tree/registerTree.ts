import * as vscode from 'vscode';
import type { Services } from '../extension';
import type { TreeItemData } from '../../engine/protocol';
import { plainPosition, toPosix } from '../engineService';
import { FluxTreeProvider } from './treeProvider';

export const TREE_VIEW_ID = 'gitopsPreview.tree';
/** Context key for the "no Flux objects" welcome content. */
const EMPTY_CONTEXT_KEY = 'gitopsPreview.treeEmpty';

export function registerTree(context: vscode.ExtensionContext, services: Services): void {
  const { engine, connection, output } = services;
  const started = Date.now();
  const provider = new FluxTreeProvider(engine.client, context.extensionUri, (n) => output.appendLine(`[tree] first ${n} top-level item(s) shown, ${Date.now() - started} ms after activation`));
  const view = vscode.window.createTreeView<TreeItemData>(TREE_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  services.treeView = view;

  // The first index runs in the worker: the view shows progress meanwhile, and stays responsive.
  let indexing: (() => void) | undefined;
  const showIndexing = () => {
    if (indexing) return;
    void vscode.window.withProgress({ location: { viewId: TREE_VIEW_ID } }, () => new Promise<void>((resolve) => (indexing = resolve)));
  };
  const updateMessage = () => {
    const s = engine.client.status;
    if (!engine.ready) {
      showIndexing();
      view.message = `Indexing the workspace… ${s.files ? `${s.files} files read` : ''}`.trim();
      return;
    }
    indexing?.();
    indexing = undefined;
    const c = connection.state;
    view.message =
      c.kind === 'error' || c.kind === 'connecting'
        ? `Live status off: not connected to a cluster (${c.kind === 'error' ? c.error.message : `connecting to ${c.context}…`}).`
        : undefined;
  };
  const updateEmpty = () => {
    if (!engine.ready) return;
    void vscode.commands.executeCommand('setContext', EMPTY_CONTEXT_KEY, engine.client.status.folders.length === 0);
  };
  updateMessage();

  context.subscriptions.push(
    provider,
    view,
    engine.onDidChangeStatus(() => {
      const wasIndexing = indexing !== undefined;
      updateMessage();
      updateEmpty();
      if (wasIndexing && engine.ready) provider.refresh();
    }),
    engine.onDidChange(() => provider.refresh()),
    connection.onDidChange(() => updateMessage()),
    vscode.commands.registerCommand('gitopsPreview.refresh', () => {
      // A full re-read catches changes the file watcher missed (files edited outside VS Code on some mounts).
      engine.reload();
    }),
    vscode.commands.registerCommand('gitopsPreview.openObject', async (node?: TreeItemData) => {
      const item = node ? provider.getTreeItem(node) : undefined;
      if (!item?.command) {
        void vscode.window.showInformationMessage('GitOps Preview: select a Flux object in the tree to open it.');
        return;
      }
      await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    }),
    vscode.commands.registerCommand('gitopsPreview.revealInTree', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.uri.scheme !== 'file') return;
      if (!engine.ready) {
        void vscode.window.showInformationMessage('GitOps Preview: still indexing the workspace; try again in a moment.');
        return;
      }
      const doc = editor.document;
      const path = await engine.client.request('treePath', { file: toPosix(doc.uri.fsPath), position: plainPosition(editor.selection.active), text: doc.getText() });
      if (!path.length) {
        void vscode.window.showInformationMessage('GitOps Preview: the object under the cursor is not in the Flux tree.');
        return;
      }
      let parent: string | undefined;
      const held = path.map((item) => {
        const kept = provider.keep(item, parent);
        parent = item.id;
        return kept;
      });
      await vscode.commands.executeCommand(`${TREE_VIEW_ID}.focus`);
      await view.reveal(held[held.length - 1], { select: true, focus: false, expand: true });
    }),
  );
}
