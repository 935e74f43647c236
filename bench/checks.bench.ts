/**
 * Full check of every corpus and of the generated 2,000-Kustomization repo, and revalidation after a
 * one-line edit (model rebuild + every rule), the path an editor keystroke takes after the debounce.
 */
import * as fs from 'node:fs';
import { checkModel } from '../src/core/checks/index';
import { Repo } from '../src/core/repo';
import { memoryHost } from '../src/core/workspace/host';
import { generateRepo } from './generate';
import { benchFiles, CORPORA, median } from './inputs';

const RUNS = 5;
const EDITS = 200;


function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
}


function fullCheck(name: string) {
  const files = benchFiles(name);
  const parse: number[] = [];
  const model: number[] = [];
  const checks: number[] = [];
  let counts = { error: 0, warning: 0, info: 0 };
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    const repo = new Repo('/repo', memoryHost('/repo', files));
    // Files parse lazily; the checks read every document, so parse them all here to keep the columns apart.
    for (const f of repo.workspace.files.values()) void f.docs;
    parse.push(performance.now() - t);
    t = performance.now();
    const m = repo.model();
    model.push(performance.now() - t);
    t = performance.now();
    const result = checkModel(m);
    checks.push(performance.now() - t);
    counts = { error: 0, warning: 0, info: 0 };
    for (const d of result.diagnostics) counts[d.severity]++;
  }
  return { files: Object.keys(files).length, parseMs: median(parse), modelMs: median(model), checkMs: median(checks), counts };
}

function edits() {
  const { files } = generateRepo();
  const repo = new Repo('/repo', memoryHost('/repo', files));
  checkModel(repo.model());
  const target = 'apps/g05/app-500/ks.yaml';
  const total: number[] = [];
  const model: number[] = [];
  const checks: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const t0 = performance.now();
    repo.setBuffer(`/repo/${target}`, files[target].replace('interval: 1h', `interval: ${i + 2}h`));
    const m = repo.model();
    const t1 = performance.now();
    checkModel(m);
    const t2 = performance.now();
    total.push(t2 - t0);
    model.push(t1 - t0);
    checks.push(t2 - t1);
  }
  return {
    p50: percentile(total, 50),
    p95: percentile(total, 95),
    modelP95: percentile(model, 95),
    checksP95: percentile(checks, 95),
  };
}

export async function run(): Promise<string> {
  const names = [...fs.readdirSync(CORPORA).sort(), 'generated'];
  const rows: string[] = [];
  for (const name of names) {
    const r = fullCheck(name);
    rows.push(`| ${name} | ${r.files} | ${r.parseMs.toFixed(1)} | ${r.modelMs.toFixed(1)} | ${r.checkMs.toFixed(1)} | ${(r.parseMs + r.modelMs + r.checkMs).toFixed(1)} | ${r.counts.error} / ${r.counts.warning} / ${r.counts.info} |`);
  }
  const e = edits();
  return [
    '## Checks: full check and revalidation (issue 3)',
    '',
    'Command: `npm run bench -- checks`. Files are read into memory first; "parse" = parsing them into the',
    'workspace, "graph" = building the cluster graphs, "checks" = every rule over the model, cold (median of',
    `${RUNS} runs). Diagnostics: errors / warnings / info (see test/unit/checks/corpora.test.ts for why each is real).`,
    '',
    '| corpus | files | parse ms | graph ms | checks ms | total ms | diagnostics |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Revalidation after a one-line edit of one Kustomization in the generated repo (${EDITS} edits through the`,
    `unsaved-buffer path, model rebuild + all rules): p50 ${e.p50.toFixed(1)} ms, p95 ${e.p95.toFixed(1)} ms (target p95 < 30 ms).`,
    `Of which p95 model rebuild ${e.modelP95.toFixed(1)} ms, p95 checks ${e.checksP95.toFixed(1)} ms.`,
    '',
  ].join('\n');
}

if (require.main === module) void run().then((s) => process.stdout.write(s));
