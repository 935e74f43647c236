/**
 * The dependency graph behind the engine: a folder's graph (cached per version in Folder), its
 * nodes' live states, and the nodes standing for what the editor points at.
 */
import { graphNodesOf, type DependencyGraph, type GraphLive } from '../core/graph/index';
import type { AppliedObject } from '../core/model/graph';
import type { LiveLookup, TreeNode } from '../core/tree/viewModel';
import type { Folder } from './folder';
import type { GraphSelection } from './protocol';

export function folderGraph(folder: Folder, params: { cluster?: string; sources?: boolean }, log: (m: string) => void): DependencyGraph {
  const graph = folder.graph(params.sources ?? true, log);
  return params.cluster === undefined ? graph : { clusters: graph.clusters.filter((c) => c.name === params.cluster) };
}

/** Node states as the tree decorates them: from the latest snapshot only, never a request per node. */
export function graphLive(graph: DependencyGraph, live: LiveLookup | undefined): GraphLive {
  const out: GraphLive = {};
  if (!live) return out;
  for (const c of graph.clusters) {
    if (live.clusterName !== undefined && live.clusterName !== c.name) continue;
    const states: GraphLive[string] = {};
    for (const n of c.nodes) {
      if (n.missing) continue;
      const s = live.get(n.kind, n.namespace, n.name);
      if (s) states[n.id] = { state: s.state, ...(s.message ? { message: s.message } : {}) };
    }
    out[c.name] = states;
  }
  return out;
}

export function selectionOf(folder: Folder, applied: readonly AppliedObject[], log: (m: string) => void): GraphSelection {
  return { root: folder.root, nodes: graphNodesOf(folder.model(), folder.graph(true, log), applied) };
}

/** A tree item's nodes: a cluster item names its cluster and root; an item of applied objects, their nodes. */
export function selectionOfTreeNode(folder: Folder, node: TreeNode | undefined, log: (m: string) => void): GraphSelection {
  switch (node?.type) {
    case 'cluster':
      return { ...selectionOf(folder, [node.cluster.root.applied], log), cluster: node.cluster.name };
    case 'flux':
    case 'resource':
      return selectionOf(folder, [node.applied], log);
    case 'resources':
      return selectionOf(folder, [node.ks.applied], log);
    default:
      return { root: folder.root, nodes: [] };
  }
}
