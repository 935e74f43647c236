/**
 * The dependency graph webview: receives the graph as plain data, folds it (core/graph/view),
 * lays it out (dagre, bundled) and draws SVG. Everything the repository wrote reaches the page as
 * text nodes or attributes, never as markup.
 */
import type { ClusterGraph, DependencyGraph } from '../../core/graph/types';
import { expansionsFor, viewOf, type GroupBy, type GraphView } from '../../core/graph/view';
import { layoutView, type Layout } from './layout';
import type { FromWebview, LiveNodeStatus, ToWebview } from './protocol';
import { drawGraph, type Drawn } from './draw';
import { PanZoom } from './panzoom';

declare function acquireVsCodeApi(): { postMessage(message: FromWebview): void; getState(): unknown; setState(state: unknown): void };

/** Fold past this many nodes: dagre stays well under a second, the picture stays readable. */
const THRESHOLD = 200;

interface UiState {
  cluster?: string;
  sources: boolean;
  groupBy: GroupBy;
  expanded: string[];
}

const vscode = acquireVsCodeApi();
const saved = vscode.getState() as Partial<UiState> | undefined;
const ui: UiState = { sources: false, groupBy: 'parent', expanded: [], ...saved };

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const clusterSelect = $<HTMLSelectElement>('cluster');
const search = $<HTMLInputElement>('search');
const sourcesBox = $<HTMLInputElement>('sources');
const groupSelect = $<HTMLSelectElement>('groupBy');
const summary = $<HTMLSpanElement>('summary');
const svg = document.getElementById('graph') as unknown as SVGSVGElement;
const viewport = document.getElementById('viewport') as unknown as SVGGElement;
const tooltip = $<HTMLDivElement>('tooltip');
const panZoom = new PanZoom(svg, viewport);

let graph: DependencyGraph = { clusters: [] };
let live: Record<string, Record<string, LiveNodeStatus>> | undefined;
let current: { cluster: ClusterGraph; view: GraphView; layout: Layout; drawn: Drawn } | undefined;
let highlighted: string[] = [];
let matchIndex = 0;

sourcesBox.checked = ui.sources;
groupSelect.value = ui.groupBy;

function save(): void {
  vscode.setState(ui);
}

function cluster(): ClusterGraph | undefined {
  return graph.clusters.find((c) => c.name === ui.cluster) ?? graph.clusters[0];
}

/** Rebuilds view, layout and SVG; keeps the zoom unless `fit`. */
function render(fit: boolean): void {
  const c = cluster();
  if (!c) {
    current = undefined;
    viewport.replaceChildren();
    summary.textContent = 'No cluster: no root Flux Kustomization found in this workspace.';
    return;
  }
  const view = viewOf(c, { sources: ui.sources, groupBy: ui.groupBy, threshold: THRESHOLD, expanded: new Set(ui.expanded) });
  const layout = layoutView(view);
  const drawn = drawGraph(viewport, view, layout, live?.[c.name]);
  current = { cluster: c, view, layout, drawn };
  const shown = view.nodes.filter((n) => n.node).length;
  const total = ui.sources ? c.nodes.length : c.nodes.filter((n) => n.kind === 'Kustomization' || n.kind === 'HelmRelease').length;
  const problems = c.edges.filter((e) => e.problem).length;
  summary.textContent = `${shown} of ${total} nodes${view.grouped ? ' (click a group to open it)' : ''} · ${problems} problem edge${problems === 1 ? '' : 's'}`;
  applyHighlight();
  applySearch(false);
  if (fit) panZoom.fit(layout.width, layout.height);
}

function fillClusters(): void {
  const names = graph.clusters.map((c) => c.name);
  clusterSelect.replaceChildren(
    ...names.map((name) => {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name;
      return o;
    }),
  );
  if (!names.includes(ui.cluster ?? '')) ui.cluster = names[0];
  if (ui.cluster) clusterSelect.value = ui.cluster;
}

/** Opens the groups hiding `id` (if any); returns whether anything changed. */
function reveal(id: string): boolean {
  if (!current || current.drawn.nodes.has(id)) return false;
  const add = expansionsFor(current.cluster, id, ui.groupBy).filter((k) => !ui.expanded.includes(k));
  if (!add.length) return false;
  ui.expanded.push(...add);
  save();
  return true;
}

function applyHighlight(): void {
  if (!current) return;
  for (const el of viewport.querySelectorAll('.highlight')) el.classList.remove('highlight');
  for (const id of highlighted) current.drawn.nodes.get(id)?.classList.add('highlight');
}

function applySearch(center: boolean): void {
  if (!current) return;
  const q = search.value.trim().toLowerCase();
  svg.classList.toggle('searching', q.length > 0);
  for (const el of viewport.querySelectorAll('.match')) el.classList.remove('match');
  if (!q) return;
  const matches = current.cluster.nodes.filter((n) => n.id.toLowerCase().includes(q) && (ui.sources || n.kind === 'Kustomization' || n.kind === 'HelmRelease'));
  for (const m of matches) current.drawn.nodes.get(m.id)?.classList.add('match');
  summary.textContent = `${matches.length} match${matches.length === 1 ? '' : 'es'} for “${search.value.trim()}”${matches.length ? ' · Enter: next' : ''}`;
  if (center && matches.length) {
    const target = matches[matchIndex++ % matches.length];
    if (reveal(target.id)) render(false);
    focusNode(target.id);
  }
}

function focusNode(id: string): void {
  const box = current?.layout.boxes.get(id);
  if (box) panZoom.center(box.x, box.y);
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const msg = event.data;
  if (msg.type === 'graph') {
    const first = graph.clusters.length === 0;
    const clusterChanged = msg.cluster !== undefined && msg.cluster !== ui.cluster;
    graph = msg.graph;
    live = msg.live;
    if (msg.cluster !== undefined) ui.cluster = msg.cluster;
    fillClusters();
    save();
    render(first || clusterChanged);
  } else if (msg.type === 'highlight' && current) {
    const c = current.cluster;
    highlighted = c.nodes.filter((n) => !n.missing && msg.nodes.includes(n.id)).map((n) => n.id);
    if (highlighted.length && reveal(highlighted[0])) render(false);
    applyHighlight();
    if (highlighted.length) focusNode(highlighted[0]);
  }
});

clusterSelect.addEventListener('change', () => {
  ui.cluster = clusterSelect.value;
  ui.expanded = [];
  save();
  render(true);
});
sourcesBox.addEventListener('change', () => {
  ui.sources = sourcesBox.checked;
  save();
  render(true);
});
groupSelect.addEventListener('change', () => {
  ui.groupBy = groupSelect.value as GroupBy;
  ui.expanded = [];
  save();
  render(true);
});
$('fit').addEventListener('click', () => current && panZoom.fit(current.layout.width, current.layout.height));
$('collapse').addEventListener('click', () => {
  ui.expanded = [];
  save();
  render(true);
});
search.addEventListener('input', () => {
  matchIndex = 0;
  applySearch(false);
});
search.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') applySearch(true);
  if (e.key === 'Escape') {
    search.value = '';
    applySearch(false);
  }
});

viewport.addEventListener('click', (e) => {
  const el = (e.target as Element).closest('[data-id]');
  if (!el || !current || panZoom.dragged) return;
  const id = el.getAttribute('data-id')!;
  const vn = current.view.nodes.find((n) => n.id === id);
  if (vn?.group) {
    ui.expanded.push(vn.group.key);
    save();
    render(false);
  } else if (vn?.node) vscode.postMessage({ type: 'open', file: vn.node.file, line: vn.node.line });
});
viewport.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' && e.key !== ' ') return;
  (e.target as Element).dispatchEvent(new MouseEvent('click', { bubbles: true }));
  e.preventDefault();
});

viewport.addEventListener('mousemove', (e) => {
  const el = (e.target as Element).closest('[data-tip]');
  if (!el) {
    tooltip.hidden = true;
    return;
  }
  tooltip.textContent = el.getAttribute('data-tip');
  tooltip.hidden = false;
  const x = Math.min(e.clientX + 14, window.innerWidth - tooltip.offsetWidth - 8);
  const y = Math.min(e.clientY + 14, window.innerHeight - tooltip.offsetHeight - 8);
  tooltip.style.left = `${Math.max(4, x)}px`;
  tooltip.style.top = `${Math.max(4, y)}px`;
});
viewport.addEventListener('mouseleave', () => (tooltip.hidden = true));

vscode.postMessage({ type: 'ready' });
