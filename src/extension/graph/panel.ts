import * as vscode from 'vscode';
import type { DependencyGraph, GraphSelection, TreeItemData } from '../../engine/protocol';
import type { FromWebview, ToWebview } from '../../webview/graph/protocol';
import type { EngineService } from '../engineService';
import { graphHtml } from './html';

export const GRAPH_VIEW_TYPE = 'gitopsPreview.graph';
const TITLE = 'Flux Dependency Graph';

/**
 * The one dependency graph panel, drawing one workspace folder's graph as the engine builds it:
 * asks for a new graph whenever the model or the live status changes (debounced, only while
 * visible, posted only when it differs), opens a node's document on click, and highlights the
 * nodes the engine names for the editor's cursor or the tree's selection.
 */
export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** The folder asked for (a tree item's); the first folder with Flux objects otherwise. */
  private root: string | undefined;
  private requestedCluster: string | undefined;
  /** A tree item's id whose folder and cluster are still to be asked for. */
  private requestedItem: string | undefined;
  private last: { root: string; graph: DependencyGraph; key: string } | undefined;
  /** Answers to older requests are dropped: the engine may answer out of order with an edit in between. */
  private seq = 0;
  private pending: NodeJS.Timeout | undefined;
  private lastHighlight = '';

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly engine: EngineService,
    private readonly output: vscode.OutputChannel,
  ) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  /** Opens (or reveals) the panel; a tree item picks its folder, and a cluster item its cluster. */
  async show(item: TreeItemData | undefined): Promise<void> {
    if (item) {
      this.requestedItem = item.id;
      await this.resolveRequestedItem();
    }
    if (this.panel) {
      this.panel.reveal(undefined, false);
      void this.post(true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(GRAPH_VIEW_TYPE, TITLE, vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'gitops.svg');
    panel.webview.html = graphHtml(panel.webview, this.extensionUri);
    this.panel = panel;
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.last = undefined;
      for (const d of this.disposables.splice(0)) d.dispose();
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m)),
      panel.onDidChangeViewState(() => panel.visible && this.schedule()),
    );
  }

  /** The model, the engine's status or the live status changed: a new graph once things settle, if anyone is looking. */
  schedule(): void {
    if (!this.panel) return;
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (this.panel?.visible) void this.post(false);
    }, 100);
  }

  /** Highlights the nodes the engine named, when they belong to the folder shown. */
  highlight(selection: GraphSelection | undefined): void {
    if (!this.panel || !selection?.nodes.length || selection.root !== this.last?.root) return;
    const key = selection.nodes.join('\n');
    if (key === this.lastHighlight) return;
    this.lastHighlight = key;
    this.send({ type: 'highlight', nodes: selection.nodes });
  }

  /**
   * Turns the tree item asked for into its folder and cluster. The engine may be re-indexing when
   * the item is clicked (a folder or setting change reopens it): the item then waits for the next post.
   */
  private async resolveRequestedItem(): Promise<void> {
    const id = this.requestedItem;
    if (id === undefined || !this.engine.ready) return;
    this.requestedItem = undefined;
    const selection = await this.engine.client.request('graphNodesAt', { treeItem: id });
    if (selection) {
      this.root = selection.root;
      this.requestedCluster = selection.cluster;
    }
  }

  private folder(): string | undefined {
    const folders = this.engine.client.status.folders.map((f) => f.root);
    return this.root !== undefined && folders.includes(this.root) ? this.root : folders[0];
  }

  /** Asks the engine for the folder's graph and live states; posts them when they differ from the last (or `force`). */
  private async post(force: boolean): Promise<void> {
    if (!this.panel || !this.engine.ready) return;
    await this.resolveRequestedItem();
    const root = this.folder();
    const seq = ++this.seq;
    try {
      const [graph, live] = root
        ? await Promise.all([this.engine.client.request('graph', { root }), this.engine.client.request('graphLive', { root })])
        : [{ clusters: [] }, {}];
      if (seq !== this.seq || !this.panel) return;
      const cluster = this.requestedCluster;
      this.requestedCluster = undefined;
      const key = JSON.stringify([root, graph, live]);
      if (!force && cluster === undefined && key === this.last?.key) return;
      this.last = root ? { root, graph, key } : undefined;
      const folders = this.engine.client.status.folders;
      this.panel.title = root && folders.length > 1 ? `${TITLE}: ${root.slice(root.lastIndexOf('/') + 1)}` : TITLE;
      this.send({ type: 'graph', graph, live, ...(cluster !== undefined ? { cluster } : {}) });
    } catch (err) {
      this.output.appendLine(`[graph] failed: ${(err as Error).stack ?? err}`);
    }
  }

  private send(message: ToWebview): void {
    void this.panel?.webview.postMessage(message);
  }

  private async receive(message: FromWebview): Promise<void> {
    if (message?.type === 'ready') {
      this.lastHighlight = '';
      await this.post(true);
    } else if (message?.type === 'open') await this.open(message.file, message.line);
  }

  /** Opens a node's document. Only files the graph names are opened: the page gets no say beyond that. */
  private async open(file: unknown, line: unknown): Promise<void> {
    const last = this.last;
    if (typeof file !== 'string' || typeof line !== 'number' || !last) return;
    const known = last.graph.clusters.some((c) => c.nodes.some((n) => n.file === file && n.line === line));
    if (!known) return;
    const uri = vscode.Uri.joinPath(vscode.Uri.file(last.root), ...file.split('/'));
    const position = new vscode.Position(Math.max(0, line - 1), 0);
    const column = this.panel?.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One;
    try {
      await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position), viewColumn: column, preserveFocus: false });
    } catch (err) {
      void vscode.window.showWarningMessage(`GitOps Preview: cannot open ${file}: ${(err as Error).message}`);
    }
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.panel?.dispose();
  }
}
