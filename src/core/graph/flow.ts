import type { GraphEdge } from './types';

/**
 * Pictures draw every edge in the order Flux makes things ready, left to right: a dependency
 * before its dependent, a Kustomization before what it applies, a source before its users. The
 * data (`from`/`to`) keeps the direction the YAML states (the dependent names its dependency).
 */
export function flowOf(edge: Pick<GraphEdge, 'from' | 'to' | 'type'>): { first: string; then: string } {
  return edge.type === 'applies' ? { first: edge.from, then: edge.to } : { first: edge.to, then: edge.from };
}

/** A one-line label for a node in a picture: `name` and `Kind · namespace`. */
export function nodeCaption(node: { kind: string; name: string; namespace: string }): { title: string; subtitle: string } {
  return { title: node.name, subtitle: node.namespace ? `${node.kind} · ${node.namespace}` : node.kind };
}
