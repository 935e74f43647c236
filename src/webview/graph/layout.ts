import dagre from '@dagrejs/dagre';
import type { GraphView, ViewEdge, ViewNode } from '../../core/graph/view';

/** A laid-out view: node boxes (centre x/y) and edge polylines, left to right in Flux's order. */
export interface Layout {
  boxes: Map<string, Box>;
  edges: LaidOutEdge[];
  width: number;
  height: number;
}

export interface LaidOutEdge {
  edge: ViewEdge;
  points: Point[];
  /** Drawn as one curve between the boxes rather than routed through the layers. */
  direct: boolean;
}

export interface Point {
  x: number;
  y: number;
}

export interface Box extends Point {
  width: number;
  height: number;
}

export const NODE_HEIGHT = 44;
const CHAR_WIDTH = 7;

/** Box width from the label's length: deterministic, no DOM measuring (the benchmark runs it too). */
export function nodeWidth(n: ViewNode): number {
  const text = n.node ? Math.max(n.node.name.length, n.node.kind.length + n.node.namespace.length + 3) : 24;
  return Math.min(340, Math.max(130, text * CHAR_WIDTH + 44));
}

/**
 * Layered layout with dagre. Only edges between adjacent layers go through dagre: an edge
 * spanning many layers (a root applying a Kustomization deep in a dependsOn chain, a source used
 * everywhere) would add a dummy node per layer crossed and dominate the layout time on big repos,
 * so those are drawn as direct curves. Layers are the longest path in Flux's order, so every node
 * keeps the one edge that placed it.
 */
export function layoutView(view: GraphView): Layout {
  const layer = layers(view);
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 64, edgesep: 8, marginx: 24, marginy: 24 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of view.nodes) g.setNode(n.id, { width: nodeWidth(n), height: NODE_HEIGHT });
  const routed = view.edges.map((e) => layer.get(e.then)! - layer.get(e.first)! === 1);
  view.edges.forEach((e, i) => {
    if (routed[i]) g.setEdge(e.first, e.then, { weight: e.type === 'dependsOn' ? 3 : 1 }, String(i));
  });
  dagre.layout(g);
  const boxes = new Map<string, Box>();
  for (const id of g.nodes()) {
    const n = g.node(id);
    boxes.set(id, { x: n.x, y: n.y, width: n.width, height: n.height });
  }
  const edges = view.edges.map((edge, i) => {
    const points: Point[] = routed[i] ? (g.edge(edge.first, edge.then, String(i))?.points ?? []).map((p: Point) => ({ x: p.x, y: p.y })) : directCurve(boxes.get(edge.first)!, boxes.get(edge.then)!);
    return { edge, points, direct: !routed[i] };
  });
  const graph = g.graph();
  return { boxes, edges, width: graph.width ?? 0, height: graph.height ?? 0 };
}

/**
 * Start, two control points and end of a cubic curve from the right side of `a` to the left side
 * of `b`; an edge going backwards (closing a cycle) arcs below both boxes instead.
 */
function directCurve(a: Box, b: Box): Point[] {
  if (b.x - b.width / 2 < a.x + a.width / 2) {
    const s = { x: a.x, y: a.y + a.height / 2 };
    const e = { x: b.x, y: b.y + b.height / 2 };
    const dip = Math.max(s.y, e.y) + 24 + Math.abs(s.x - e.x) / 8;
    return [s, { x: s.x, y: dip }, { x: e.x, y: dip }, e];
  }
  const start = { x: a.x + a.width / 2, y: a.y };
  const end = { x: b.x - b.width / 2, y: b.y };
  const pull = Math.max(40, Math.abs(end.x - start.x) / 3);
  return [start, { x: start.x + pull, y: start.y }, { x: end.x - pull, y: end.y }, end];
}

/** Longest-path layer of each node over the edges in Flux's order; edges closing a cycle are ignored. */
export function layers(view: GraphView): Map<string, number> {
  const out = new Map<string, string[]>();
  for (const e of view.edges) {
    const list = out.get(e.first);
    if (list) list.push(e.then);
    else out.set(e.first, [e.then]);
  }
  // Iterative DFS: post-order gives a topological order of the graph without its back edges.
  const state = new Map<string, 1 | 2>();
  const order: string[] = [];
  for (const n of view.nodes) {
    if (state.has(n.id)) continue;
    const stack: { id: string; i: number }[] = [{ id: n.id, i: 0 }];
    state.set(n.id, 1);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const next = out.get(top.id) ?? [];
      if (top.i < next.length) {
        const w = next[top.i++];
        if (!state.has(w)) {
          state.set(w, 1);
          stack.push({ id: w, i: 0 });
        }
        continue;
      }
      state.set(top.id, 2);
      order.push(top.id);
      stack.pop();
    }
  }
  const position = new Map(order.map((id, i) => [id, order.length - 1 - i]));
  const layer = new Map<string, number>(view.nodes.map((n) => [n.id, 0]));
  for (let i = order.length - 1; i >= 0; i--) {
    const v = order[i];
    for (const w of out.get(v) ?? []) {
      if (position.get(w)! > position.get(v)!) layer.set(w, Math.max(layer.get(w)!, layer.get(v)! + 1));
    }
  }
  return layer;
}
