import * as vscode from 'vscode';
import { counts, summaryLine, VERDICTS, type DriftEntry, type DriftVerdict } from '../../core/drift';
import type { DriftRun, DriftStore } from './store';

type Node =
  | { type: 'run'; run: DriftRun }
  | { type: 'group'; run: DriftRun; verdict: DriftVerdict }
  | { type: 'entry'; run: DriftRun; index: number; entry: DriftEntry }
  | { type: 'note'; text: string };

const ICONS: Record<DriftVerdict, [string, string | undefined]> = {
  drifted: ['diff-modified', 'gitDecoration.modifiedResourceForeground'],
  created: ['diff-added', 'gitDecoration.addedResourceForeground'],
  deleted: ['diff-removed', 'gitDecoration.deletedResourceForeground'],
  error: ['error', 'errorForeground'],
  skipped: ['debug-step-over', undefined],
  unchanged: ['check', undefined],
  cancelled: ['circle-slash', undefined],
};

const MODE_LABEL = { kustomization: 'drift', 'helm-live': 'drift (helm-controller)', 'helm-desired': 'desired vs deployed' } as const;

/** Drift results: run → verdict → object; selecting an object opens live ↔ desired in the diff editor. */
export class DriftTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly store: DriftStore) {
    store.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.store.all().map((run) => ({ type: 'run', run }));
    if (node.type === 'run') {
      const c = counts(node.run.report.entries);
      const groups: Node[] = VERDICTS.filter((v) => c[v] > 0).map((verdict) => ({ type: 'group', run: node.run, verdict }));
      return [...groups, ...node.run.report.notes.map((text): Node => ({ type: 'note', text }))];
    }
    if (node.type === 'group') {
      return node.run.report.entries
        .map((entry, index): Node => ({ type: 'entry', run: node.run, index, entry }))
        .filter((n) => n.type === 'entry' && n.entry.verdict === node.verdict);
    }
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.type) {
      case 'run': {
        const r = node.run.report;
        const item = new vscode.TreeItem(`${r.target.kind} ${r.target.namespace}/${r.target.name}`, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${MODE_LABEL[r.mode]} · ${node.run.context} · ${node.run.at.toLocaleTimeString()}`;
        item.tooltip = summaryLine(r) + (r.cancelled ? ' (cancelled)' : '');
        item.iconPath = new vscode.ThemeIcon(r.cancelled ? 'circle-slash' : 'git-compare');
        item.contextValue = 'drift:run';
        return item;
      }
      case 'group': {
        const n = counts(node.run.report.entries)[node.verdict];
        const expanded = node.verdict === 'unchanged' || node.verdict === 'cancelled' ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.Expanded;
        const item = new vscode.TreeItem(`${node.verdict} (${n})`, expanded);
        const [icon, color] = ICONS[node.verdict];
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        item.contextValue = `drift:group:${node.verdict}`;
        return item;
      }
      case 'entry': {
        const e = node.entry;
        const item = new vscode.TreeItem(e.subject, vscode.TreeItemCollapsibleState.None);
        item.description = e.verdict === 'drifted' ? `${e.changes.length} field${e.changes.length === 1 ? '' : 's'}` : e.reason;
        item.tooltip = e.reason ?? `${e.subject} ${e.verdict}`;
        const [icon, color] = ICONS[e.verdict];
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        item.contextValue = `drift:entry:${e.verdict}`;
        if (e.live || e.desired) item.command = { command: 'gitopsPreview.openDriftDiff', title: 'Open Diff', arguments: [node.run.id, node.index] };
        return item;
      }
      case 'note': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.iconPath = new vscode.ThemeIcon('info');
        item.tooltip = node.text;
        return item;
      }
    }
  }
}
