/**
 * Starting fast (issue 27): one warm command against the field's reference for it, on the same machine and
 * repository (a Git clone of bjw-s-labs-home-ops): `gitops-preview build ks radarr -n downloads` with warm
 * caches (its build, parses and code cache kept by an uncounted first run) against `flux build ks` of the same
 * Kustomization (v2.9, test/cluster/build.sh builds it). Target: within 2× of flux. Whole processes taking
 * turns (paired.ts); each run's output must hold radarr's HelmRelease.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { git } from '../test/unit/git/gitRepo';
import { bundleCli, f0, f2, measure, rows, TABLE_HEAD, type Command } from './paired';
import { CORPORA, median } from './inputs';
import { testToolBin } from './testTools';

const CORPUS = 'bjw-s-labs-home-ops';
const RUNS = Number(process.env.BENCH_START_RUNS ?? 7);
const KS = { name: 'radarr', namespace: 'downloads', path: 'kubernetes/apps/downloads/radarr/app', file: 'kubernetes/apps/downloads/radarr/ks.yaml' };
const HELM_RELEASE = /^kind: HelmRelease\nmetadata:\n(?:  .*\n)*?  name: radarr$/m;

export async function run(): Promise<string> {
  const flux = testToolBin('FLUX_BIN', 'flux');
  const fluxVersion = execFileSync(flux, ['version', '--client'], { encoding: 'utf8' }).trim();
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-start-bench-')));
  const started = new Date();
  const loadStart = os.loadavg();
  try {
    const cli = bundleCli(path.join(tmp, 'cli'));
    const repo = path.join(tmp, 'repo');
    fs.cpSync(path.join(CORPORA, CORPUS), repo, { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-q', '-m', CORPUS);
    const cache = path.join(tmp, 'cache');
    const ours: Command = {
      name: `ours: \`gitops-preview build ks ${KS.name} -n ${KS.namespace}\` (warm)`,
      bin: process.execPath,
      args: () => [cli, 'build', 'ks', KS.name, '-n', KS.namespace, repo],
      env: () => ({ GITOPS_PREVIEW_CACHE: cache }),
      ok: [0],
      expect: [HELM_RELEASE],
    };
    const fluxBuild: Command = {
      name: `flux: \`flux build ks ${KS.name} -n ${KS.namespace} --path … --kustomization-file … --dry-run\``,
      bin: flux,
      args: () => ['build', 'ks', KS.name, '-n', KS.namespace, '--path', path.join(repo, KS.path), '--kustomization-file', path.join(repo, KS.file), '--dry-run'],
      ok: [0],
      expect: [HELM_RELEASE],
    };
    const measured = measure([ours, fluxBuild], RUNS, repo);
    const loadEnd = os.loadavg();
    const ratio = median(measured[0].runs.map((r, i) => r.ms / measured[1].runs[i].ms));
    return [
      '## Starting fast (issue 27)',
      '',
      'Command: `npm run bench -- start` (needs the flux CLI: `bash test/cluster/build.sh flux`, which `make bench` runs through `make tools`).',
      `Run ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; \`${fluxVersion}\`.`,
      `Load average (1, 5, 15 min) when the bench started: ${loadStart.map(f2).join(', ')}; when it ended: ${loadEnd.map(f2).join(', ')}.`,
      `${RUNS} counted runs of each after one uncounted one (which fills our caches), taking turns; a Git clone of ${CORPUS} (544 files).`,
      '',
      ...TABLE_HEAD,
      ...rows(measured, measured[0]),
      '',
      `Target "within 2× of \`flux build ks\`": ours ÷ flux ${f2(ratio)} (median of the paired runs; ours ${f0(median(measured[0].runs.map((r) => r.ms)))} ms) — ${ratio <= 2 ? '**met**' : '**missed**'}.`,
      '',
    ].join('\n');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
