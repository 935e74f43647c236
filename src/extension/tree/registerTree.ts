import * as vscode from 'vscode';
import type { Services } from '../extension';
import { pathsTo, type TreeNode } from '../../core/tree/viewModel';
import { objectAtOffset } from '../../core/navigation/locate';
import { FluxTreeProvider } from './treeProvider';
import { liveStatusSource, onDidChangeLiveStatus } from './liveStatus';
import { toPosix } from '../repoService';

export const TREE_VIEW_ID = 'gitopsPreview.tree';
/** Context key for the "no Flux objects" welcome content. */
const EMPTY_CONTEXT_KEY = 'gitopsPreview.treeEmpty';

export function registerTree(context: vscode.ExtensionContext, services: Services): void {
  const provider = new FluxTreeProvider(() => services.repo.model(), context.extensionUri);
  const view = vscode.window.createTreeView<TreeNode>(TREE_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  services.treeView = view;

  const updateEmpty = () => {
    const model = services.repo.model();
    void vscode.commands.executeCommand('setContext', EMPTY_CONTEXT_KEY, model.clusters.length === 0 && model.unapplied.length === 0);
  };
  const updateMessage = () => {
    const source = liveStatusSource();
    view.message =
      source && !source.connected
        ? `Live status off: not connected to a cluster${source.disconnectedReason ? ` (${source.disconnectedReason})` : ''}.`
        : undefined;
  };
  updateEmpty();
  updateMessage();

  context.subscriptions.push(
    provider,
    view,
    services.repo.onDidChangeModel(() => {
      updateEmpty();
      provider.refresh();
    }),
    onDidChangeLiveStatus(() => {
      updateMessage();
      provider.refresh();
    }),
    vscode.commands.registerCommand('gitopsPreview.refresh', () => {
      // A full re-read catches changes the file watcher missed (files edited outside VS Code on some mounts).
      services.repo.reload();
    }),
    vscode.commands.registerCommand('gitopsPreview.openObject', async (node?: TreeNode) => {
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
      const model = services.repo.model();
      const file = model.workspace.files.get(toPosix(editor.document.uri.fsPath));
      const object = file && objectAtOffset(model, file, editor.document.offsetAt(editor.selection.active));
      const paths = object ? pathsTo(model, object.id, provider.getChildren(), (n) => provider.getChildren(n)) : [];
      if (!paths.length) {
        void vscode.window.showInformationMessage('GitOps Preview: the object under the cursor is not in the Flux tree.');
        return;
      }
      const path = paths[0];
      await vscode.commands.executeCommand(`${TREE_VIEW_ID}.focus`);
      await view.reveal(path[path.length - 1], { select: true, focus: false, expand: true });
    }),
  );
}
