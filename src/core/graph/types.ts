import type { RuleId, Severity } from '../checks/types';
import type { LiveState } from '../status/conditions';

/**
 * The dependency graph of a repository, per cluster: the `gitops-preview graph --format json`
 * contract and the data the editor's graph view draws. Plain data (no model references), so it
 * crosses the webview boundary as it is.
 */

export type GraphEdgeType = 'dependsOn' | 'applies' | 'source';

/** A check's finding attached to a node or an edge. */
export interface GraphProblem {
  rule: RuleId;
  severity: Severity;
  message: string;
  /** 1-based line of the finding in the node's file (node problems only). */
  line?: number;
  /** File relative to the workspace root, when it is not the node's own file (node problems only). */
  file?: string;
}

export interface GraphNode {
  /** `Kind/namespace/name`, the model's object key (namespace defaulted as Flux defaults it). */
  id: string;
  kind: string;
  name: string;
  namespace: string;
  /** Relative to the workspace root, `/` separators. */
  file: string;
  /** 1-based line of the document start. */
  line: number;
  /** Named by a dependsOn entry but applied nowhere in the cluster; file/line point at the entry. */
  missing?: boolean;
  /** Inferred by the model (the bootstrap Kustomization `flux bootstrap` writes), not in a file. */
  inferred?: boolean;
  /** Findings of the checks on the node's document (or, for crd-order, on what it applies). */
  problems?: GraphProblem[];
}

export interface GraphEdge {
  /**
   * dependsOn: the dependent → its dependency; applies: the Kustomization → what it applies;
   * source: the Kustomization or HelmRelease → its source.
   */
  from: string;
  to: string;
  type: GraphEdgeType;
  /** A dependsOn cycle, a missing dependency or a CRD-before-CR problem on this edge. */
  problem?: GraphProblem;
  /** A dependsOn the repository lacks and Flux needs (a CRD-before-CR problem): drawn, not written. */
  absent?: boolean;
}

export interface ClusterGraph {
  name: string;
  /** Id of the cluster's root Kustomization. */
  root: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export interface DependencyGraph {
  clusters: ClusterGraph[];
}

/** A node's state in the cluster, as the tree shows it (the graph view colours nodes by it). */
export interface LiveNodeStatus {
  state: LiveState;
  message?: string;
}

/** Live states per cluster name, per node id; empty when not connected. */
export type GraphLive = Record<string, Record<string, LiveNodeStatus>>;
