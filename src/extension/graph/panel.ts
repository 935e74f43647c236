import * as vscode from 'vscode';
import { checkModel } from '../../core/checks/index';
import { buildDependencyGraph, type DependencyGraph } from '../../core/graph/index';
import type { AppliedObject, RepoModel } from '../../core/model/graph';
import type { KubeObject } from '../../core/model/objects';
import { relativePath } from '../../core/tree/treeData';
import { docLine } from '../../core/yaml/document';
import type { DocLocation, FromWebview, LiveNodeStatus, ToWebview } from '../../webview/graph/protocol';
import type { RepoService } from '../repoService';
import { liveStatusSource } from '../tree/liveStatus';
import { graphHtml } from './html';

export const GRAPH_VIEW_TYPE = 'gitopsPreview.graph';

/**
 * The one dependency graph panel: posts a new graph whenever the model or the live status changes
 * (debounced, only while visible), opens a node's document on click, and highlights the object
 * selected in the editor or the tree.
 */
export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private cache: { model: RepoModel; graph: DependencyGraph } | undefined;
  private pending: NodeJS.Timeout | undefined;
  private requestedCluster: string | undefined;
  private lastHighlight: DocLocation[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly repo: RepoService,
    private readonly output: vscode.OutputChannel,
  ) {}

  show(cluster: string | undefined): void {
    this.requestedCluster = cluster;
    if (this.panel) {
      this.panel.reveal(undefined, false);
      this.post();
      return;
    }
    const panel = vscode.window.createWebviewPanel(GRAPH_VIEW_TYPE, 'Flux Dependency Graph', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    });
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'gitops.svg');
    panel.webview.html = graphHtml(panel.webview, this.extensionUri);
    this.panel = panel;
    panel.onDidDispose(() => {
      this.panel = undefined;
      for (const d of this.disposables.splice(0)) d.dispose();
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((m: FromWebview) => this.receive(m)),
      panel.onDidChangeViewState(() => panel.visible && this.schedule()),
    );
  }

  /** The model or live status changed: a new graph once things settle, if anyone is looking. */
  schedule(): void {
    if (!this.panel) return;
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (this.panel?.visible) this.post();
    }, 100);
  }

  /** Highlights the graph nodes of an object (or of the Kustomizations applying it). */
  highlight(object: KubeObject | undefined, model: RepoModel): void {
    if (!this.panel || !object) return;
    const root = model.workspace.root;
    const at = (o: KubeObject): DocLocation => ({ file: relativePath(root, o.file), line: docLine(o.doc) });
    const applied: AppliedObject[] = model.appliedById.get(object.id) ?? [];
    const locations = object.fluxKind ? [at(object)] : applied.flatMap((a) => (a.appliedBy ? [at(a.appliedBy.applied.object)] : []));
    if (!locations.length || JSON.stringify(locations) === JSON.stringify(this.lastHighlight)) return;
    this.lastHighlight = locations;
    this.send({ type: 'highlight', locations });
  }

  private graph(): DependencyGraph {
    const model = this.repo.model();
    if (this.cache?.model !== model) {
      const result = checkModel(model);
      for (const f of result.failures) this.output.appendLine(`[graph] internal error in ${f.rules} rules: ${f.message}`);
      this.cache = { model, graph: buildDependencyGraph(model, result.diagnostics) };
    }
    return this.cache.graph;
  }

  private post(): void {
    try {
      const graph = this.graph();
      const cluster = this.requestedCluster;
      this.requestedCluster = undefined;
      this.send({ type: 'graph', graph, ...(cluster !== undefined ? { cluster } : {}), ...liveOf(graph) });
    } catch (err) {
      this.output.appendLine(`[graph] failed: ${(err as Error).stack ?? err}`);
    }
  }

  private send(message: ToWebview): void {
    void this.panel?.webview.postMessage(message);
  }

  private async receive(message: FromWebview): Promise<void> {
    if (message?.type === 'ready') {
      this.lastHighlight = [];
      this.post();
    } else if (message?.type === 'open') await this.open(message.file, message.line);
  }

  /** Opens a node's document. Only files the graph names are opened: the page gets no say beyond that. */
  private async open(file: unknown, line: unknown): Promise<void> {
    const graph = this.cache?.graph;
    if (typeof file !== 'string' || typeof line !== 'number' || !graph) return;
    const known = graph.clusters.some((c) => c.nodes.some((n) => n.file === file && n.line === line));
    if (!known) return;
    const uri = vscode.Uri.joinPath(vscode.Uri.file(this.repo.root), ...file.split('/'));
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

/** Live status per cluster and node, as the tree shows it; nothing when not connected. */
function liveOf(graph: DependencyGraph): { live?: Record<string, Record<string, LiveNodeStatus>> } {
  const source = liveStatusSource();
  if (!source?.connected) return {};
  const live: Record<string, Record<string, LiveNodeStatus>> = {};
  for (const c of graph.clusters) {
    if (source.clusterName !== undefined && source.clusterName !== c.name) continue;
    const states: Record<string, LiveNodeStatus> = {};
    for (const n of c.nodes) {
      if (n.missing) continue;
      const s = source.get(n.kind, n.namespace, n.name);
      if (s) states[n.id] = { state: s.state, ...(s.message ? { message: s.message } : {}) };
    }
    live[c.name] = states;
  }
  return { live };
}
