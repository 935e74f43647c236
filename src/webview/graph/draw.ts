import type { GraphView, ViewEdge, ViewNode } from '../../core/graph/view';
import type { Layout, Point } from './layout';
import type { LiveNodeStatus } from './protocol';

const SVG = 'http://www.w3.org/2000/svg';

export interface Drawn {
  /** The SVG group of each drawn node or group, by view id. */
  nodes: Map<string, SVGGElement>;
}

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Draws the laid-out view into `root` (replacing what was there). Texts go in as text, never markup. */
export function drawGraph(root: SVGGElement, view: GraphView, layout: Layout, live: Record<string, LiveNodeStatus> | undefined): Drawn {
  const edgeLayer = el('g', { class: 'edges' });
  const problemLayer = el('g', { class: 'edges problems' });
  const nodeLayer = el('g', { class: 'nodes' });
  for (const { edge, points, direct } of layout.edges) {
    if (points.length < 2) continue;
    const d = direct ? curve(points) : polyline(points);
    const cls = ['edge', `edge-${edge.type}`, edge.problem ? 'edge-problem' : '', edge.absent ? 'edge-absent' : ''].filter(Boolean).join(' ');
    const g = el('g', { class: cls, 'data-tip': edgeTip(edge) });
    g.append(el('path', { d, class: 'line', 'marker-end': `url(#arrow-${edge.problem ? 'error' : edge.type})` }), el('path', { d, class: 'hit' }));
    (edge.problem ? problemLayer : edgeLayer).append(g);
  }
  const nodes = new Map<string, SVGGElement>();
  for (const n of view.nodes) {
    const box = layout.boxes.get(n.id);
    if (!box) continue;
    const g = n.group ? drawGroup(n, box.width, box.height) : drawNode(n, box.width, box.height, live?.[n.id]);
    g.setAttribute('transform', `translate(${box.x - box.width / 2},${box.y - box.height / 2})`);
    g.setAttribute('data-id', n.id);
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'button');
    nodeLayer.append(g);
    nodes.set(n.id, g);
  }
  root.replaceChildren(edgeLayer, problemLayer, nodeLayer);
  return { nodes };
}

function drawNode(n: ViewNode, width: number, height: number, status: LiveNodeStatus | undefined): SVGGElement {
  const node = n.node!;
  const errors = (node.problems ?? []).filter((p) => p.severity === 'error').length;
  const warnings = (node.problems ?? []).length - errors;
  const classes = ['node', `kind-${cssToken(node.kind)}`];
  if (node.missing) classes.push('missing');
  if (errors || node.missing) classes.push('error');
  else if (warnings) classes.push('warning');
  if (status) classes.push(`state-${status.state}`);
  const g = el('g', { class: classes.join(' '), 'data-tip': nodeTip(n, status), 'aria-label': `${node.kind} ${node.namespace}/${node.name}` });
  g.append(el('rect', { class: 'box', width, height, rx: 6 }), el('rect', { class: 'stripe', width: 5, height, rx: 2 }));
  const room = Math.floor((width - (status ? 40 : 26)) / 7);
  g.append(el('text', { class: 'title', x: 14, y: 18 }, clip(node.name, room)));
  const subtitle = node.missing ? `${node.kind} · not found` : node.namespace ? `${node.kind} · ${node.namespace}` : node.kind;
  g.append(el('text', { class: 'subtitle', x: 14, y: 34 }, clip(subtitle, room + 2)));
  if (status) g.append(el('circle', { class: 'status', cx: width - 13, cy: 13, r: 5 }));
  if (errors + warnings) g.append(el('text', { class: 'badge', x: width - 8, y: height - 8, 'text-anchor': 'end' }, `⚠${errors + warnings > 1 ? errors + warnings : ''}`));
  return g;
}

function drawGroup(n: ViewNode, width: number, height: number): SVGGElement {
  const group = n.group!;
  const kinds = Object.entries(group.kinds)
    .map(([k, c]) => `${c} ${k}${c === 1 ? '' : 's'}`)
    .join(', ');
  const tip = `${group.label}: ${kinds}${group.problems ? `\n${group.problems} with problems` : ''}\nClick to open`;
  const g = el('g', { class: `node group${group.problems ? ' error' : ''}`, 'data-tip': tip, 'aria-label': `${group.size} objects ${group.label}` });
  g.append(el('rect', { class: 'box', width, height, rx: 6 }));
  const room = Math.floor((width - 24) / 7);
  g.append(el('text', { class: 'title', x: 12, y: 18 }, `▸ ${group.size} objects`));
  g.append(el('text', { class: 'subtitle', x: 12, y: 34 }, clip(group.label, room)));
  return g;
}

function nodeTip(n: ViewNode, status: LiveNodeStatus | undefined): string {
  const node = n.node!;
  const lines = [`${node.kind} ${node.namespace ? `${node.namespace}/` : ''}${node.name}`];
  lines.push(node.missing ? `Not applied in this cluster (named at ${node.file}:${node.line})` : `${node.file}:${node.line}${node.inferred ? ' (inferred: flux bootstrap creates it)' : ''}`);
  if (status) lines.push(`Cluster: ${status.state}${status.message ? ` — ${status.message}` : ''}`);
  for (const p of node.problems ?? []) lines.push(`${p.severity === 'error' ? '✖' : '⚠'} ${p.rule}: ${p.message}`);
  return lines.join('\n');
}

function edgeTip(e: ViewEdge): string {
  const name = (id: string) => (id.startsWith('group:') || id.startsWith('ns:') ? 'a folded group' : id);
  const what =
    e.type === 'dependsOn'
      ? `${name(e.then)} dependsOn ${name(e.first)}`
      : e.type === 'applies'
        ? `${name(e.first)} applies ${name(e.then)}`
        : `${name(e.then)} uses source ${name(e.first)}`;
  const lines = [`${e.absent ? 'Missing: ' : ''}${what}${e.count > 1 ? ` (${e.count} edges)` : ''}`];
  if (e.problem) lines.push(`${e.problem.rule}: ${e.problem.message}`);
  return lines.join('\n');
}

function polyline(points: Point[]): string {
  if (points.length === 2) return `M${points[0].x},${points[0].y}L${points[1].x},${points[1].y}`;
  // Rounded through the midpoints of dagre's control polyline.
  let d = `M${points[0].x},${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i];
    const q = points[i + 1];
    const mid = i === points.length - 2 ? q : { x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
    d += `Q${p.x},${p.y} ${mid.x},${mid.y}`;
  }
  return d;
}

function curve([s, c1, c2, e]: Point[]): string {
  return `M${s.x},${s.y}C${c1.x},${c1.y} ${c2.x},${c2.y} ${e.x},${e.y}`;
}

function clip(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, Math.max(1, room - 1))}…`;
}

function cssToken(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}
