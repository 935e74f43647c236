import * as vscode from 'vscode';
import type { ClusterConnection } from './connection';

/** Shows the kube context (and whether it answers); clicking it runs Select Context. */
export function createContextStatusBar(connection: ClusterConnection): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('gitopsPreview.context', vscode.StatusBarAlignment.Left, 50);
  item.name = 'GitOps Preview: Kubernetes context';
  item.command = 'gitopsPreview.selectContext';
  const render = (): void => {
    const s = connection.state;
    const tip = new vscode.MarkdownString(undefined, true);
    tip.isTrusted = false;
    const trusted = vscode.workspace.isTrusted;
    if (!trusted) tip.appendMarkdown('$(shield) Untrusted workspace: no cluster is contacted and no process is run until you trust it.\n\n');
    switch (s.kind) {
      case 'idle':
        item.text = trusted ? '$(debug-disconnect) no cluster' : '$(shield) no cluster (untrusted)';
        tip.appendMarkdown('Not connected.');
        break;
      case 'connecting':
        item.text = `$(sync~spin) ${s.context}`;
        tip.appendText(`Connecting to ${s.context}…`);
        break;
      case 'connected': {
        const n = connection.watcher?.size() ?? 0;
        item.text = `$(cloud) ${s.context}`;
        tip.appendText(`Context ${s.context} (${s.server}): watching ${n} Flux object${n === 1 ? '' : 's'}.`);
        break;
      }
      case 'error':
        item.text = s.error.kind === 'no-kubeconfig' ? '$(debug-disconnect) no kubeconfig' : `$(warning) ${s.context ?? 'cluster'}`;
        tip.appendText(s.error.message);
        break;
    }
    tip.appendMarkdown('\n\nClick to select a context for this workspace.');
    item.tooltip = tip;
    item.show();
  };
  render();
  const sub = connection.onDidChange(render);
  return vscode.Disposable.from(item, sub);
}
