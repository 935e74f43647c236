import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import type { IconSpec, TreeItemData } from '../../engine/protocol';

/**
 * VS Code adapter over the engine's tree items; children are asked for only when expanded.
 * Items are kept by id until the next refresh: VS Code matches revealed elements by identity.
 */
export class FluxTreeProvider implements vscode.TreeDataProvider<TreeItemData> {
  private readonly emitter = new vscode.EventEmitter<TreeItemData | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly items = new Map<string, TreeItemData>();
  private readonly parents = new Map<string, string>();

  /** `onFirstItems`: told once, when the view first gets top-level items (the start's log). */
  constructor(
    private readonly engine: EngineClient,
    private readonly extensionUri: vscode.Uri,
    private onFirstItems?: (count: number) => void,
  ) {}

  refresh(): void {
    this.items.clear();
    this.parents.clear();
    this.emitter.fire(undefined);
  }

  async getChildren(element?: TreeItemData): Promise<TreeItemData[]> {
    if (!this.engine.ready) return [];
    // The top level came with the last change: no round trip to an engine busy with what follows it.
    const children = (!element && this.engine.treeRoots) || (await this.engine.request('treeChildren', { id: element?.id }));
    if (!element && children.length && this.onFirstItems) {
      this.onFirstItems(children.length);
      this.onFirstItems = undefined;
    }
    return children.map((c) => this.keep(c, element?.id));
  }

  /** The held item with this id (so reveal finds the element VS Code knows), recording its parent. */
  keep(item: TreeItemData, parent: string | undefined): TreeItemData {
    const held = this.items.get(item.id) ?? item;
    this.items.set(item.id, held);
    if (parent !== undefined) this.parents.set(item.id, parent);
    return held;
  }

  getParent(element: TreeItemData): TreeItemData | undefined {
    const parent = this.parents.get(element.id);
    return parent === undefined ? undefined : this.items.get(parent);
  }

  getTreeItem(p: TreeItemData): vscode.TreeItem {
    const item = new vscode.TreeItem(p.label, COLLAPSIBLE[p.collapsible]);
    item.id = p.id;
    item.description = p.description;
    item.contextValue = p.contextValue;
    item.iconPath = this.icon(p.icon);
    if (p.tooltip) {
      const md = new vscode.MarkdownString(p.tooltip);
      md.supportThemeIcons = false;
      md.isTrusted = false;
      md.supportHtml = false;
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
