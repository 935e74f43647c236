import { flowOf } from './flow';
import type { ClusterGraph, GraphEdge, GraphEdgeType, GraphNode, GraphProblem } from './types';

/**
 * What the graph view draws of one cluster. Past `threshold` nodes, everything a Kustomization
 * applies (transitively) is folded into one group node per Kustomization, opened level by level
 * from the root while the picture stays under the threshold; the user opens more by clicking a
 * group. Grouping by namespace folds each namespace instead. Edges between folded nodes are merged
 * and keep the first problem among them. Pure and DOM-free: the webview and the benchmark run it.
 */

export type GroupBy = 'parent' | 'namespace';

export interface ViewOptions {
  sources: boolean;
  groupBy: GroupBy;
  /** Fold beyond this many nodes. */
  threshold: number;
  /** Opened groups: Kustomization ids (by parent) or namespaces (by namespace). */
  expanded: ReadonlySet<string>;
}

export interface ViewGroup {
  /** The Kustomization id (by parent) or namespace (by namespace) to add to `expanded` to open it. */
  key: string;
  label: string;
  size: number;
  /** Folded nodes per kind. */
  kinds: Record<string, number>;
  /** Folded nodes with an error, and folded edges with a problem. */
  problems: number;
}

export interface ViewNode {
  id: string;
  node?: GraphNode;
  group?: ViewGroup;
}

export interface ViewEdge {
  /** Left and right in the picture (see flowOf). */
  first: string;
  then: string;
  type: GraphEdgeType;
  /** How many graph edges this one stands for. */
  count: number;
  problem?: GraphProblem;
  absent?: boolean;
}

export interface GraphView {
  nodes: ViewNode[];
  edges: ViewEdge[];
  /** Whether anything is folded. */
  grouped: boolean;
}

const isSource = (n: GraphNode) => n.kind !== 'Kustomization' && n.kind !== 'HelmRelease';

export function viewOf(cluster: ClusterGraph, options: ViewOptions): GraphView {
  const nodes = cluster.nodes.filter((n) => options.sources || !isSource(n));
  const ids = new Set(nodes.map((n) => n.id));
  const edges = cluster.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
  if (nodes.length <= options.threshold) {
    return { nodes: nodes.map((node) => ({ id: node.id, node })), edges: edges.map((e) => single(e)), grouped: false };
  }
  const fold = options.groupBy === 'namespace' ? foldByNamespace(cluster, nodes, options) : foldByParent(cluster, nodes, edges, options);
  return merge(nodes, edges, fold);
}

/** Where a node is drawn: itself, a group id, or nowhere (a source or missing node whose users are all folded). */
interface Fold {
  rep: (id: string) => string | undefined;
  groups: Map<string, ViewGroup>;
}

function foldByParent(cluster: ClusterGraph, nodes: GraphNode[], edges: GraphEdge[], options: ViewOptions): Fold {
  const parent = new Map<string, string>();
  const children = new Map<string, string[]>();
  for (const e of edges) {
    if (e.type !== 'applies' || parent.has(e.to) || e.to === cluster.root) continue;
    parent.set(e.to, e.from);
    const list = children.get(e.from);
    if (list) list.push(e.to);
    else children.set(e.from, [e.to]);
  }
  const open = new Set<string>([cluster.root]);
  for (const id of options.expanded) open.add(id);
  // Open level by level from the root while the picture stays under the threshold.
  const shown = (k: string) => (children.get(k) ?? []).length + (children.get(k) ?? []).filter((c) => children.has(c)).length;
  let count = 1 + shown(cluster.root);
  let level = [...(children.get(cluster.root) ?? [])];
  while (level.length) {
    const next: string[] = [];
    for (const k of level) {
      if (!children.has(k)) continue;
      // Opening k shows its children (and their groups) instead of its own group node.
      const cost = shown(k) - 1;
      if (open.has(k) || count + cost <= options.threshold) {
        if (!open.has(k)) count += cost;
        open.add(k);
        next.push(...children.get(k)!);
      }
    }
    level = next;
  }

  const memo = new Map<string, string | null>();
  // A node is visible when every Kustomization above it is open; otherwise it is in the group of the
  // closed Kustomization highest above it whose own parent is open.
  const placeTree = (id: string): string | null => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const p = parent.get(id);
    let at: string | null;
    if (p === undefined) at = id === cluster.root ? id : null;
    else {
      const pAt = placeTree(p);
      at = pAt === null ? null : pAt !== p ? pAt : open.has(p) ? id : `group:${p}`;
    }
    memo.set(id, at);
    return at;
  };
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // Sources and missing dependencies hang off what uses them: drawn when one of those is drawn.
  const users = new Map<string, string[]>();
  for (const e of edges) {
    if (parent.has(e.to) || e.to === cluster.root) continue;
    const list = users.get(e.to);
    if (list) list.push(e.from);
    else users.set(e.to, [e.from]);
  }
  const rep = (id: string): string | undefined => {
    const at = placeTree(id);
    if (at !== null) return at;
    return (users.get(id) ?? []).some((u) => placeTree(u) === u) ? id : undefined;
  };

  const groups = new Map<string, ViewGroup>();
  for (const n of nodes) {
    const at = placeTree(n.id);
    if (at === null || !at.startsWith('group:')) continue;
    let g = groups.get(at);
    if (!g) {
      const key = at.slice('group:'.length);
      const owner = byId.get(key);
      groups.set(at, (g = { key, label: owner ? `applied by ${owner.name}` : key, size: 0, kinds: {}, problems: 0 }));
    }
    addMember(g, n);
  }
  return { rep, groups };
}

function foldByNamespace(cluster: ClusterGraph, nodes: GraphNode[], options: ViewOptions): Fold {
  const rootNs = nodes.find((n) => n.id === cluster.root)?.namespace;
  const open = (ns: string) => ns === rootNs || options.expanded.has(ns);
  const groups = new Map<string, ViewGroup>();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const n of nodes) {
    if (open(n.namespace)) continue;
    const id = `ns:${n.namespace}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { key: n.namespace, label: `namespace ${n.namespace}`, size: 0, kinds: {}, problems: 0 }));
    addMember(g, n);
  }
  const rep = (id: string) => {
    const n = byId.get(id);
    if (!n) return undefined;
    return open(n.namespace) ? id : `ns:${n.namespace}`;
  };
  return { rep, groups };
}

function addMember(g: ViewGroup, n: GraphNode): void {
  g.size++;
  g.kinds[n.kind] = (g.kinds[n.kind] ?? 0) + 1;
  if (n.missing || n.problems?.some((p) => p.severity === 'error')) g.problems++;
}

function single(e: GraphEdge): ViewEdge {
  const { first, then } = flowOf(e);
  return { first, then, type: e.type, count: 1, ...(e.problem ? { problem: e.problem } : {}), ...(e.absent ? { absent: true } : {}) };
}

function merge(nodes: GraphNode[], edges: GraphEdge[], fold: Fold): GraphView {
  const out: ViewNode[] = [];
  const placed = new Set<string>();
  for (const n of nodes) {
    const at = fold.rep(n.id);
    if (at === undefined || placed.has(at)) continue;
    placed.add(at);
    out.push(at === n.id ? { id: n.id, node: n } : { id: at, group: fold.groups.get(at)! });
  }
  const merged = new Map<string, ViewEdge>();
  for (const e of edges) {
    const from = fold.rep(e.from);
    const to = fold.rep(e.to);
    if (from === undefined || to === undefined) continue;
    if (from === to) {
      // An edge inside a group: its problem still counts on the group.
      const g = fold.groups.get(from);
      if (g && e.problem) g.problems++;
      continue;
    }
    const v = single({ ...e, from, to });
    const key = `${v.type}|${v.first}|${v.then}`;
    const prev = merged.get(key);
    if (!prev) merged.set(key, v);
    else {
      prev.count++;
      prev.problem ??= v.problem;
      if (!v.absent) delete prev.absent;
    }
  }
  return { nodes: out, edges: [...merged.values()], grouped: fold.groups.size > 0 };
}

/** What to add to `expanded` so that node `id` is drawn by itself. */
export function expansionsFor(cluster: ClusterGraph, id: string, groupBy: GroupBy): string[] {
  if (groupBy === 'namespace') {
    const n = cluster.nodes.find((x) => x.id === id);
    return n ? [n.namespace] : [];
  }
  const parent = new Map<string, string>();
  for (const e of cluster.edges) if (e.type === 'applies' && !parent.has(e.to)) parent.set(e.to, e.from);
  const out: string[] = [];
  const seen = new Set<string>();
  let at = id;
  let users: string[] = [];
  if (!parent.has(at)) {
    // A source or missing node: reveal one of its users.
    users = cluster.edges.filter((e) => e.to === id && e.type !== 'applies').map((e) => e.from);
    if (users.length) at = users[0];
  }
  for (let p = parent.get(at); p !== undefined && !seen.has(p); p = parent.get(p)) {
    seen.add(p);
    out.push(p);
  }
  return out;
}
