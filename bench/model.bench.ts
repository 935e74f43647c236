/**
 * Cold index time and memory of the workspace model, next to the time the `yaml` library alone
 * takes to parse the same files (the floor). Each measurement runs in a fresh Node process so
 * peak RSS belongs to that corpus alone; files are read into memory first so disk speed is out.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Repo } from '../src/core/repo';
import { memoryHost } from '../src/core/workspace/host';
import { generateRepo } from './generate';
import { benchFiles, CORPORA, median } from './inputs';

const RUNS = 5;



interface Measure {
  files: number;
  floorMs: number;
  indexMs: number;
  heapMB: number;
  rssMB: number;
  kustomizations: number;
  helmReleases: number;
}

/** Runs inside the child process. */
function measure(name: string): Measure {
  const files = benchFiles(name);
  const texts = Object.values(files);
  const floor: number[] = [];
  const index: number[] = [];
  let ks = 0;
  let hr = 0;
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    for (const text of texts) for (const d of parseAllDocuments(text) as unknown as { toJS(): unknown }[]) d.toJS?.();
    floor.push(performance.now() - t);
    t = performance.now();
    const repo = new Repo('/repo', memoryHost('/repo', files));
    const model = repo.model();
    index.push(performance.now() - t);
    ks = model.clusters.reduce((n, c) => n + c.kustomizations.length, 0);
    hr = model.clusters.reduce((n, c) => n + c.helmReleases.length, 0);
  }
  return { files: texts.length, floorMs: median(floor), indexMs: median(index), heapMB: 0, rssMB: 0, kustomizations: ks, helmReleases: hr };
}

let kept: unknown;

/** Memory of one model, in a process that does nothing else: heap and RSS growth over the loaded texts. */
function measureMemory(name: string): { heapMB: number; rssMB: number; peakRssMB: number; baseRssMB: number } {
  const files = benchFiles(name);
  global.gc?.();
  const base = process.memoryUsage();
  const repo = new Repo('/repo', memoryHost('/repo', files));
  repo.model();
  kept = repo; // keep the model alive through the measurement
  global.gc?.();
  const after = process.memoryUsage();
  return {
    heapMB: (after.heapUsed - base.heapUsed) / 2 ** 20,
    rssMB: (after.rss - base.rss) / 2 ** 20,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    baseRssMB: base.rss / 2 ** 20,
  };
}

/** p95 of model rebuild after a one-line edit in the generated repo. */
function measureEdits(): { p50: number; p95: number; edits: number } {
  const { files } = generateRepo();
  const repo = new Repo('/repo', memoryHost('/repo', files));
  repo.model();
  const target = 'apps/g05/app-500/ks.yaml';
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = performance.now();
    repo.setBuffer(`/repo/${target}`, files[target].replace('interval: 1h', `interval: ${i + 2}h`));
    repo.model();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: times[100], p95: times[190], edits: times.length };
}

export async function run(): Promise<string> {
  const names = [...fs.readdirSync(CORPORA).sort(), 'generated'];
  const rows: string[] = [];
  for (const name of names) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', __filename, name], {
      cwd: path.resolve(__dirname, '..'),
      timeout: 300_000,
      maxBuffer: 1 << 20,
    }).toString();
    const m = JSON.parse(out) as Measure;
    const mem = JSON.parse(
      execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', __filename, '--memory', name], { cwd: path.resolve(__dirname, '..'), timeout: 300_000 }).toString(),
    ) as ReturnType<typeof measureMemory>;
    m.heapMB = mem.heapMB;
    m.rssMB = mem.peakRssMB;
    rows.push(
      `| ${name} | ${m.files} | ${m.kustomizations} / ${m.helmReleases} | ${m.floorMs.toFixed(1)} | ${m.indexMs.toFixed(1)} | ${(m.indexMs / m.floorMs).toFixed(2)}× | ${m.heapMB.toFixed(1)} | ${m.rssMB.toFixed(0)} |`,
    );
  }
  const edits = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', __filename, '--edits'], { cwd: path.resolve(__dirname, '..'), timeout: 300_000 }).toString(),
  ) as ReturnType<typeof measureEdits>;
  return [
    '## Workspace model: cold index (issue 2)',
    '',
    'Command: `npm run bench -- model`. "floor" = `yaml.parseAllDocuments` + `toJS` over the same files;',
    '"index" = reading them into the model and building every cluster graph (documents of plain',
    'non-Flux objects are read by header scan and parsed on first use; see src/core/yaml/headers.ts).',
    'Heap = retained heap of one model after GC, measured in a separate process that only loads the',
    'files and builds the model; peak RSS = that process\'s peak resident set (Node + tsx + the texts included).',
    'Targets: bjw-s-labs-home-ops < 150 ms; generated repo < 2 s and < 200 MB; index within 1.5× of the floor.',
    '',
    '| corpus | files | Kustomizations / HelmReleases | floor ms | index ms | index/floor | heap MB | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Model rebuild after a one-line edit of one Kustomization in the generated repo (${edits.edits} edits, unsaved-buffer path): p50 ${edits.p50.toFixed(1)} ms, p95 ${edits.p95.toFixed(1)} ms.`,
    '',
  ].join('\n');
}

if (require.main === module) {
  const arg = process.argv[2];
  process.stdout.write(JSON.stringify(arg === '--edits' ? measureEdits() : arg === '--memory' ? measureMemory(process.argv[3]) : measure(arg)));
  void kept;
}
