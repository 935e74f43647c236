import { CheckContext } from '../checks/context';
import type { Diagnostic } from '../checks/types';
import { objectKey, type AppliedObject, type ClusterModel, type HelmReleaseNode, type KustomizationNode, type Reference, type RepoModel } from '../model/graph';
import { relativePath } from '../tree/treeData';
import { docLine, rangeAt } from '../yaml/document';
import { DiagnosticIndex } from './problems';
import type { ClusterGraph, DependencyGraph, GraphEdge, GraphNode } from './types';

export interface GraphOptions {
  /** Include sources (GitRepository, OCIRepository, HelmRepository, …) and `source` edges. Default true. */
  sources?: boolean;
}

/**
 * The dependency graph of every cluster of the model. Flux's own rules decide the edges: dependsOn
 * resolves against objects of the dependent's kind in the same cluster (and the same remote cluster
 * for `spec.kubeConfig`), namespaces default to the dependent's, names are taken after post-build
 * substitution — the check context answers all three, so the graph and the checks agree. The
 * checks' diagnostics are attached to the edges and nodes they concern.
 */
export function buildDependencyGraph(model: RepoModel, diagnostics: readonly Diagnostic[], options: GraphOptions = {}): DependencyGraph {
  const ctx = new CheckContext(model);
  const index = new DiagnosticIndex(model.workspace.root, diagnostics);
  return { clusters: model.clusters.map((cluster) => new ClusterGraphBuilder(ctx, cluster, index, options.sources ?? true).build()) };
}

/** A node's id: `Kind/namespace/name` after the applying Kustomization's substitution, as Flux names it. */
export function graphNodeId(ctx: CheckContext, applied: AppliedObject): string {
  const identity = ctx.identity(applied) ?? applied;
  return objectKey(applied.kind, identity.namespace, identity.name);
}

type DependentNode = KustomizationNode | HelmReleaseNode;

class ClusterGraphBuilder {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges: GraphEdge[] = [];
  private readonly edgeKeys = new Map<string, GraphEdge>();
  private readonly ids = new Map<AppliedObject, string>();
  private readonly root: string;

  constructor(
    private readonly ctx: CheckContext,
    private readonly cluster: ClusterModel,
    private readonly diagnostics: DiagnosticIndex,
    private readonly withSources: boolean,
  ) {
    this.root = ctx.model.workspace.root;
  }

  build(): ClusterGraph {
    const { cluster } = this;
    this.addNode(cluster.root.applied);
    for (const ks of cluster.kustomizations) this.addNode(ks.applied);
    for (const hr of cluster.helmReleases) this.addNode(hr.applied);
    if (this.withSources) for (const s of cluster.sources) this.addNode(s.applied);

    for (const ks of cluster.kustomizations) {
      const from = this.ids.get(ks.applied)!;
      for (const child of [...ks.children, ...ks.helmReleases]) {
        this.addEdge({ from, to: this.ids.get(child.applied)!, type: 'applies' });
      }
    }
    for (const node of [...cluster.kustomizations, ...cluster.helmReleases]) {
      for (const ref of node.dependsOn) this.addDependsOn(node, ref);
      if (this.withSources) this.addSource(node);
    }
    this.diagnostics.attachCrdOrder(this.ctx, cluster, this.ids, this.nodes, (edge) => this.addEdge(edge));
    this.diagnostics.attachToNodes(this.ids, this.nodes);
    return { name: cluster.name, root: this.ids.get(cluster.root.applied)!, nodes: [...this.nodes.values()], edges: this.edges };
  }

  private addNode(applied: AppliedObject): void {
    if (this.ids.has(applied)) return;
    const identity = this.ctx.identity(applied) ?? applied;
    const id = graphNodeId(this.ctx, applied);
    this.ids.set(applied, id);
    // The same identity twice in one cluster is a duplicate-object finding; the graph shows one node.
    if (this.nodes.has(id)) return;
    const doc = applied.object.doc;
    this.nodes.set(id, {
      id,
      kind: applied.kind,
      name: identity.name,
      namespace: identity.namespace ?? '',
      file: relativePath(this.root, doc.file.path),
      line: docLine(doc),
      ...(applied.object.synthetic ? { inferred: true } : {}),
    });
  }

  /** Adds an edge once; a problem for an edge already there is attached to it. */
  private addEdge(edge: GraphEdge): void {
    if (edge.from === edge.to && edge.type === 'applies') return; // the bootstrap Kustomization applies itself
    const key = `${edge.type}|${edge.from}|${edge.to}`;
    const existing = this.edgeKeys.get(key);
    if (existing) {
      if (edge.problem && !existing.problem) existing.problem = edge.problem;
      return;
    }
    this.edgeKeys.set(key, edge);
    this.edges.push(edge);
  }

  private addDependsOn(node: DependentNode, ref: Reference): void {
    const { ctx, cluster } = this;
    const parent = node.applied.appliedBy;
    const name = ctx.substituteFor(parent, ref.name);
    const namespace = ctx.substituteFor(parent, ref.namespace);
    // A name built from variables the workspace does not define: Flux knows it, we cannot draw it.
    if (name === undefined || namespace === undefined) return;
    const from = this.ids.get(node.applied)!;
    const doc = node.applied.object.doc;
    const at = rangeAt(doc, [...ref.path, 'name']).start;
    const found = ctx.fluxIndex(cluster).get(`${ctx.placement(node.applied)}#${node.kind}/${namespace}/${name}`);
    let to = found?.length ? this.ids.get(found[0]) : undefined;
    if (to === undefined) {
      to = objectKey(node.kind, namespace, name);
      if (!this.nodes.has(to)) {
        this.nodes.set(to, { id: to, kind: node.kind, name, namespace, file: relativePath(this.root, doc.file.path), line: at.line + 1, missing: true });
      }
    }
    const problem = this.diagnostics.at(doc.file.path, at, DEPENDS_ON_RULES);
    this.addEdge({ from, to, type: 'dependsOn', ...(problem ? { problem } : {}) });
  }

  private addSource(node: DependentNode): void {
    const ref = node.kind === 'Kustomization' ? node.sourceRef : node.chartSourceRef;
    if (!ref) return;
    const parent = node.applied.appliedBy;
    const name = this.ctx.substituteFor(parent, ref.name);
    const namespace = this.ctx.substituteFor(parent, ref.namespace);
    if (name === undefined || namespace === undefined) return;
    // Sources the workspace does not define (external, or only in the cluster) are left out.
    const target = this.cluster.byKey.get(objectKey(ref.kind, namespace, name))?.find((a) => this.ids.has(a));
    if (target) this.addEdge({ from: this.ids.get(node.applied)!, to: this.ids.get(target)!, type: 'source' });
  }
}

/** Rules reported on a dependsOn entry's name, in the order an edge shows them. */
const DEPENDS_ON_RULES = ['depends-on-cycle', 'depends-on-descendant', 'depends-on-not-found', 'depends-on-kind', 'crd-order-no-wait'] as const;
