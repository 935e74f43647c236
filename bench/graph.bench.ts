/**
 * Dependency graph: building the graph from a built model and its check results, folding it for
 * the view and laying it out with dagre (what the editor does when the graph view opens or the
 * model changes). The model and the checks are measured by their own benchmarks.
 */
import { checkModel } from '../src/core/checks/index';
import { buildDependencyGraph } from '../src/core/graph/index';
import { viewOf } from '../src/core/graph/view';
import { Repo } from '../src/core/repo';
import { memoryHost } from '../src/core/workspace/host';
import { layoutView } from '../src/webview/graph/layout';
import { benchFiles, median } from './inputs';

const RUNS = 5;
/** The webview's fold threshold (src/webview/graph/main.ts). */
const THRESHOLD = 200;

function time<T>(fn: () => T): [T, number] {
  const t = process.hrtime.bigint();
  const v = fn();
  return [v, Number(process.hrtime.bigint() - t) / 1e6];
}

interface Row {
  name: string;
  nodes: number;
  edges: number;
  drawn: number;
  graphMs: number;
  viewMs: number;
  layoutMs: number;
}

function measure(name: string, sources: boolean, threshold = THRESHOLD): Row {
  const root = '/bench';
  const repo = new Repo(root, memoryHost(root, benchFiles(name)));
  const model = repo.model();
  const diagnostics = checkModel(model).diagnostics;
  const graphMs: number[] = [];
  const viewMs: number[] = [];
  const layoutMs: number[] = [];
  let row: Omit<Row, 'graphMs' | 'viewMs' | 'layoutMs'> = { name, nodes: 0, edges: 0, drawn: 0 };
  for (let i = 0; i < RUNS; i++) {
    const [graph, g] = time(() => buildDependencyGraph(model, diagnostics));
    // The largest cluster is the one a user would look at.
    const cluster = graph.clusters.reduce((a, b) => (b.nodes.length > a.nodes.length ? b : a));
    const [view, v] = time(() => viewOf(cluster, { sources, groupBy: 'parent', threshold, expanded: new Set() }));
    const [, l] = time(() => layoutView(view));
    graphMs.push(g);
    viewMs.push(v);
    layoutMs.push(l);
    row = { name, nodes: cluster.nodes.length, edges: cluster.edges.length, drawn: view.nodes.length };
  }
  return { ...row, graphMs: median(graphMs), viewMs: median(viewMs), layoutMs: median(layoutMs) };
}

export async function run(): Promise<string> {
  const rows: [string, Row][] = [
    ['default view', measure('flux2-kustomize-helm-example', false)],
    ['default view', measure('allenporter-k8s-gitops', false)],
    ['default view', measure('bjw-s-labs-home-ops', false)],
    ['default view', measure('generated', false)],
    ['sources on', measure('generated', true)],
    ['nothing folded', measure('generated', false, Infinity)],
  ];
  const f = (ms: number) => ms.toFixed(1);
  return [
    '## Dependency graph: build, fold and layout',
    '',
    `Command: \`npm run bench -- graph\`. On a built model with its check results (see the sections above for those):`,
    '"graph" = `buildDependencyGraph` (every cluster: nodes, dependsOn/applies/source edges, findings attached);',
    `"fold" = \`viewOf\` for the largest cluster (past ${THRESHOLD} nodes, what each Kustomization applies folds into a group, opened`,
    'level by level from the root while under the threshold); "layout" = dagre on what is drawn (src/webview/graph/layout.ts, the',
    'code the webview runs; SVG drawing in the browser is not included). Medians of ' + RUNS + ' runs.',
    'Target: the generated 2,000-Kustomization repo opens in under 2 s (graph + fold + layout).',
    '',
    '| corpus | view | nodes / edges | drawn | graph ms | fold ms | layout ms | total ms |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(([what, r]) => `| ${r.name} | ${what} | ${r.nodes} / ${r.edges} | ${r.drawn} | ${f(r.graphMs)} | ${f(r.viewMs)} | ${f(r.layoutMs)} | ${f(r.graphMs + r.viewMs + r.layoutMs)} |`),
    '',
    'Opening a folded group re-runs fold + layout only.',
    '',
  ].join('\n');
}
