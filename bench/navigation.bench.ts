/**
 * Tree view model and navigation cost on real repos, with the workspace already parsed (the
 * model bench covers parsing). "Cold" means the first call on a fresh model build, which computes
 * and caches every file's reference sites; "warm" is a repeat call on the same model.
 */
import * as path from 'node:path';
import { Repo } from '../src/core/repo';
import { buildModel, type RepoModel } from '../src/core/model/graph';
import { diskHost } from '../src/node/fsHost';
import { childrenOf, present, rootNodes, type TreeNode } from '../src/core/tree/viewModel';
import { documentLinks } from '../src/core/navigation/definition';
import { referencesAt } from '../src/core/navigation/references';
import { objectTarget } from '../src/core/navigation/locate';

const CORPORA = path.resolve(__dirname, '../../shared/corpora');
const RUNS = 5;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn: () => unknown): number {
  const t = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

function expandAll(model: RepoModel): number {
  let n = 0;
  const walk = (nodes: TreeNode[]) => {
    for (const node of nodes) {
      present(node, model);
      n++;
      walk(childrenOf(node));
    }
  };
  walk(rootNodes(model));
  return n;
}

interface Row {
  name: string;
  files: number;
  nodes: number;
  rootMs: number;
  expandMs: number;
  linksColdMs: number;
  refsColdMs: number;
  refsWarmMs: number;
}

function measure(name: string): Row {
  const repo = new Repo(path.join(CORPORA, name).split(path.sep).join('/'), diskHost);
  const fresh = () => buildModel(repo.workspace);
  const root: number[] = [];
  const expand: number[] = [];
  const links: number[] = [];
  const refsCold: number[] = [];
  const refsWarm: number[] = [];
  let nodes = 0;
  for (let i = 0; i < RUNS; i++) {
    let model = fresh();
    root.push(time(() => rootNodes(model).forEach((n) => present(n, model))));
    expand.push(time(() => (nodes = expandAll(model))));
    model = fresh();
    links.push(time(() => {
      for (const f of model.workspace.files.values()) documentLinks(model, f);
    }));
    // The most depended-upon Kustomization: Find References scans every file's sites.
    model = fresh();
    const ks = model.clusters.flatMap((c) => c.kustomizations).find((k) => !k.applied.object.synthetic) ?? model.clusters[0]?.root;
    if (!ks) continue;
    const target = objectTarget(ks.applied.object);
    const file = ks.applied.object.doc.file;
    refsCold.push(time(() => referencesAt(model, file, target.range.start, true)));
    refsWarm.push(time(() => referencesAt(model, file, target.range.start, true)));
  }
  return {
    name,
    files: repo.workspace.files.size,
    nodes,
    rootMs: median(root),
    expandMs: median(expand),
    linksColdMs: median(links),
    refsColdMs: median(refsCold),
    refsWarmMs: median(refsWarm),
  };
}

export async function run(): Promise<string> {
  const rows = ['flux2-kustomize-helm-example', 'flux2-multi-tenancy', 'allenporter-k8s-gitops', 'bjw-s-labs-home-ops'].map(measure);
  const f = (ms: number) => ms.toFixed(1);
  return [
    '## Tree and navigation',
    '',
    'Pure view-model and navigation work on a built model (`src/core/tree/viewModel.ts`, `src/core/navigation/`); medians of ' + RUNS + ' runs.',
    'Root = the nodes VS Code asks for first; expand all = every node built and presented (the worst case, the tree is lazy);',
    'links = document links of every file on a fresh model (computes and caches all reference sites);',
    'references = Find References on a Kustomization, cold (fresh model) and warm.',
    '',
    '| Corpus | Files | Tree nodes | Root (ms) | Expand all (ms) | Links, all files (ms) | References cold (ms) | References warm (ms) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.files} | ${r.nodes} | ${f(r.rootMs)} | ${f(r.expandMs)} | ${f(r.linksColdMs)} | ${f(r.refsColdMs)} | ${f(r.refsWarmMs)} |`),
    '',
    'Run with `npm run bench` (this section alone: `npm run bench -- navigation`).',
    '',
  ].join('\n');
}
