import { CheckContext } from '../checks/context';
import type { AppliedObject, RepoModel } from '../model/graph';
import { graphNodeId } from './build';
import type { DependencyGraph } from './types';

/**
 * The graph nodes standing for objects the user points at (in the editor or the tree): an object
 * the graph draws is its own node; anything else (a ConfigMap, a notification Alert) is shown by
 * the Kustomization applying it. Ids of every cluster, in first-seen order.
 */
export function graphNodesOf(model: RepoModel, graph: DependencyGraph, applied: readonly AppliedObject[]): string[] {
  const ctx = new CheckContext(model);
  const drawn = new Map(graph.clusters.map((c) => [c.name, new Set(c.nodes.filter((n) => !n.missing).map((n) => n.id))]));
  const out = new Set<string>();
  for (const a of applied) {
    const nodes = drawn.get(a.cluster.name);
    if (!nodes) continue;
    const own = graphNodeId(ctx, a);
    if (nodes.has(own)) out.add(own);
    else if (a.appliedBy) {
      const by = graphNodeId(ctx, a.appliedBy.applied);
      if (nodes.has(by)) out.add(by);
    }
  }
  return [...out];
}
