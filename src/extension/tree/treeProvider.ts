import * as vscode from 'vscode';
import type { RepoModel } from '../../core/model/graph';
import { childrenOf, present, rootNodes, type IconSpec, type LiveLookup, type TreeNode } from '../../core/tree/viewModel';
import { liveStatusSource } from './liveStatus';

/** VS Code adapter over the pure tree view model; children are computed only when expanded. */
export class FluxTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly parents = new WeakMap<TreeNode, TreeNode>();
  private readonly children = new WeakMap<TreeNode, TreeNode[]>();
  private roots: { model: RepoModel; nodes: TreeNode[] } | undefined;

  constructor(
    private readonly model: () => RepoModel,
    private readonly extensionUri: vscode.Uri,
  ) {}

  refresh(): void {
    this.roots = undefined;
    this.emitter.fire(undefined);
  }

  /** The live source when connected; a disconnected source decorates nothing. */
  live(): LiveLookup | undefined {
    const source = liveStatusSource();
    if (!source?.connected) return undefined;
    return { get: (k, ns, n) => source.get(k, ns, n), clusterOnly: () => source.clusterOnly(), clusterName: source.clusterName };
  }

  /**
   * Children are memoised per parent node until the next refresh: VS Code matches revealed
   * elements by identity, so asking twice must return the same objects.
   */
  getChildren(element?: TreeNode): TreeNode[] {
    if (!element) {
      const model = this.model();
      if (this.roots?.model !== model) this.roots = { model, nodes: rootNodes(model, this.live()) };
      return this.roots.nodes;
    }
    let nodes = this.children.get(element);
    if (!nodes) {
      nodes = childrenOf(element);
      this.children.set(element, nodes);
      for (const n of nodes) this.parents.set(n, element);
    }
    return nodes;
  }

  getParent(element: TreeNode): TreeNode | undefined {
    return this.parents.get(element);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const p = present(node, this.model(), this.live());
    const item = new vscode.TreeItem(p.label, COLLAPSIBLE[p.collapsible]);
    item.id = p.id;
    item.description = p.description;
    item.contextValue = p.contextValue;
    item.iconPath = this.icon(p.icon);
    if (p.tooltip) {
      const md = new vscode.MarkdownString(p.tooltip);
      md.supportThemeIcons = false;
      md.isTrusted = false;
      item.tooltip = md;
    }
    if (p.location) {
      const uri = vscode.Uri.file(p.location.file);
      const { start } = p.location.range;
      item.command = {
        command: 'vscode.open',
        title: 'Open',
        arguments: [uri, { selection: new vscode.Range(start.line, start.character, start.line, start.character), preview: true }],
      };
    }
    return item;
  }

  private icon(spec: IconSpec): vscode.TreeItem['iconPath'] {
    if ('media' in spec) {
      return {
        light: vscode.Uri.joinPath(this.extensionUri, 'media', 'light', `${spec.media}.svg`),
        dark: vscode.Uri.joinPath(this.extensionUri, 'media', 'dark', `${spec.media}.svg`),
      };
    }
    return new vscode.ThemeIcon(spec.codicon, spec.color ? new vscode.ThemeColor(spec.color) : undefined);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

const COLLAPSIBLE = {
  none: vscode.TreeItemCollapsibleState.None,
  collapsed: vscode.TreeItemCollapsibleState.Collapsed,
  expanded: vscode.TreeItemCollapsibleState.Expanded,
} as const;
