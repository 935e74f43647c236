import * as vscode from 'vscode';
import type { ChangedFinding, ImageChange, ObjectChange, ProducerChanges, ProducerFailure } from '../../core/changes/types';
import type { ChangesAnswer } from '../../engine/protocol';
import { objectKey } from './documents';
import type { ReviewStore } from './review';

type Group = 'introduced' | 'fixed' | 'failures' | 'images';

type Node =
  | { type: 'cluster'; cluster: string; producers: ProducerChanges[] }
  | { type: 'producer'; producer: ProducerChanges }
  | { type: 'object'; producer: ProducerChanges; object: ObjectChange }
  | { type: 'group'; group: Group; answer: ChangesAnswer }
  | { type: 'finding'; finding: ChangedFinding; group: 'introduced' | 'fixed' }
  | { type: 'failure'; failure: ProducerFailure }
  | { type: 'image'; image: ImageChange };

const CHANGE_ICON: Record<ObjectChange['change'], [string, string]> = {
  added: ['diff-added', 'gitDecoration.addedResourceForeground'],
  removed: ['diff-removed', 'gitDecoration.deletedResourceForeground'],
  changed: ['diff-modified', 'gitDecoration.modifiedResourceForeground'],
};

const GROUP_LABEL: Record<Group, string> = { introduced: 'Findings introduced', fixed: 'Findings fixed', failures: 'Failed builds', images: 'Images' };
const GROUP_ICON: Record<Group, [string, string | undefined]> = {
  introduced: ['warning', 'list.warningForeground'],
  fixed: ['pass', 'testing.iconPassed'],
  failures: ['error', 'errorForeground'],
  images: ['package', undefined],
};
const FAILED_SIDE: Record<ProducerFailure['failed'], string> = { head: 'fails with this change', base: 'fails at the base', both: 'fails on both sides' };

/** `+1 −2 ~3`: the objects a producer (or cluster) adds, removes and changes. */
export function changeCounts(objects: readonly ObjectChange[]): string {
  const n = (c: ObjectChange['change']) => objects.filter((o) => o.change === c).length;
  return [`+${n('added')}`, `−${n('removed')}`, `~${n('changed')}`].join(' ');
}

/** The review: cluster → producer → object, then findings introduced and fixed, failed builds and images. */
export class ReviewTreeProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly store: ReviewStore) {
    store.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: Node): Node[] {
    const answer = this.store.current?.answer;
    if (!answer) return [];
    if (!node) {
      const byCluster = new Map<string, ProducerChanges[]>();
      for (const p of answer.report.changes) byCluster.set(p.cluster, [...(byCluster.get(p.cluster) ?? []), p]);
      const { findings, failures, images } = answer.report;
      const groups = (
        [
          ['failures', failures.length],
          ['introduced', findings.introduced.length],
          ['fixed', findings.fixed.length],
          ['images', images.length],
        ] as const
      ).filter(([, n]) => n > 0);
      return [...[...byCluster].map(([cluster, producers]): Node => ({ type: 'cluster', cluster, producers })), ...groups.map(([group]): Node => ({ type: 'group', group, answer }))];
    }
    switch (node.type) {
      case 'cluster':
        return node.producers.map((producer) => ({ type: 'producer', producer }));
      case 'producer':
        return node.producer.objects.map((object) => ({ type: 'object', producer: node.producer, object }));
      case 'group': {
        const r = node.answer.report;
        if (node.group === 'failures') return r.failures.map((failure) => ({ type: 'failure', failure }));
        if (node.group === 'images') return r.images.map((image) => ({ type: 'image', image }));
        return r.findings[node.group].map((finding) => ({ type: 'finding', finding, group: node.group as 'introduced' | 'fixed' }));
      }
      default:
        return [];
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const item = this.item(node);
    // Read out as shown: without it a plain-text tooltip (a whole diff, a message) is the row's accessible name.
    const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
    item.accessibilityInformation = { label: typeof item.description === 'string' ? `${label}, ${item.description}` : label };
    return item;
  }

  private item(node: Node): vscode.TreeItem {
    switch (node.type) {
      case 'cluster': {
        const objects = node.producers.flatMap((p) => p.objects);
        const item = new vscode.TreeItem(node.cluster, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `cluster:${node.cluster}`;
        item.description = `${node.producers.length} producer(s) · ${changeCounts(objects)}`;
        item.iconPath = new vscode.ThemeIcon('server-environment');
        item.contextValue = 'review:cluster';
        return item;
      }
      case 'producer': {
        const p = node.producer;
        const item = new vscode.TreeItem(`${p.kind} ${p.namespace}/${p.name}`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `producer:${JSON.stringify([p.cluster, p.kind, p.namespace, p.name])}`;
        item.description = changeCounts(p.objects);
        item.tooltip = p.note ? `Compared by its spec: ${p.note}` : p.kind === 'HelmRelease' ? 'What its chart renders, compared.' : undefined;
        item.iconPath = new vscode.ThemeIcon(p.kind === 'HelmRelease' ? 'package' : 'layers');
        item.contextValue = 'review:producer';
        return item;
      }
      case 'object': {
        const o = node.object;
        const item = new vscode.TreeItem(`${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`, vscode.TreeItemCollapsibleState.None);
        const key = objectKey(node.producer, o);
        item.id = `object:${JSON.stringify(key)}`;
        item.description = o.change;
        // Plain text: the diff is the repository's, and Markdown would render it.
        item.tooltip = o.diff;
        const [icon, color] = CHANGE_ICON[o.change];
        item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
        item.contextValue = `review:object:${o.change}`;
        item.command = { command: 'gitopsPreview.openReviewDiff', title: 'Open Diff', arguments: [key] };
        return item;
      }
      case 'group': {
        const r = node.answer.report;
        const n = node.group === 'failures' ? r.failures.length : node.group === 'images' ? r.images.length : r.findings[node.group].length;
        const item = new vscode.TreeItem(`${GROUP_LABEL[node.group]} (${n})`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `group:${node.group}`;
        const [icon, color] = GROUP_ICON[node.group];
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        return item;
      }
      case 'finding': {
        const f = node.finding;
        const item = new vscode.TreeItem(f.message.split('\n')[0], vscode.TreeItemCollapsibleState.None);
        item.description = `${f.rule} · ${f.file}:${f.line}`;
        item.tooltip = f.message;
        item.iconPath = new vscode.ThemeIcon(f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'info');
        // A fixed finding's line is the base's: the file is opened where it stands now.
        const root = this.store.current?.root;
        if (root) {
          const at = new vscode.Position(Math.max(0, f.line - 1), Math.max(0, f.column - 1));
          item.command = { command: 'vscode.open', title: 'Open', arguments: [vscode.Uri.file(`${root}/${f.file}`), { selection: new vscode.Range(at, at) }] };
        }
        return item;
      }
      case 'failure': {
        const f = node.failure;
        const item = new vscode.TreeItem(`${f.kind} ${f.namespace}/${f.name}`, vscode.TreeItemCollapsibleState.None);
        item.description = `${f.cluster} · ${FAILED_SIDE[f.failed]}`;
        item.tooltip = f.message;
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        return item;
      }
      case 'image': {
        const i = node.image;
        const item = new vscode.TreeItem(i.image, vscode.TreeItemCollapsibleState.None);
        item.description = `${i.before.join(', ') || '(none)'} → ${i.after.join(', ') || '(none)'}${i.kept ? ` (${i.kept.join(', ')} still in use)` : ''}`;
        item.iconPath = new vscode.ThemeIcon('package');
        return item;
      }
    }
  }
}
