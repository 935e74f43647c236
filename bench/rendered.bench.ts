/**
 * Clusters built from their root down (src/engine/refine.ts) on bjw-s-labs-home-ops: a cold open
 * (static reading, then every Kustomization rendered as WebAssembly and the model rebuilt until
 * nothing is pending) and a one-line edit to refined diagnostics.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkModel } from '../src/core/checks/index';
import { Folder } from '../src/engine/folder';
import { wasmModule } from '../src/engine/wasm/host';
import { diskHost } from '../src/node/fsHost';

const CORPUS = path.resolve(__dirname, '../../shared/corpora/bjw-s-labs-home-ops').split(path.sep).join('/');
const EDITED = `${CORPUS}/kubernetes/apps/selfhosted/paperless/app/helmrelease.yaml`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const ms = (t: number) => `${Math.round(t)} ms`;

export async function run(): Promise<string> {
  if (!fs.existsSync(EDITED)) throw new Error(`${EDITED} is missing: the shared corpora must sit beside the repository`);
  const source = fs.readFileSync(`${CORPUS}/CORPUS.txt`, 'utf8').match(/^source:\s*(\S+)/m)![1];
  const compile = await wasmModule('kustomize').compile();
  const t0 = performance.now();
  const folder = new Folder(CORPUS, diskHost, { sha256, remotes: [`https://github.com/${source}.git`], checkout: { branch: 'main' } }, {});
  const staticModel = folder.model();
  const t1 = performance.now();
  const cold = await folder.refine({ allowProcesses: false });
  checkModel(folder.model());
  const t2 = performance.now();
  const builds = folder.model().builds;

  const text = fs.readFileSync(EDITED, 'utf8');
  const edits: number[] = [];
  let rendered = 0;
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    folder.repo.setBuffer(EDITED, `${text}# edit ${i}\n`);
    const r = await folder.refine({ allowProcesses: false });
    checkModel(folder.model());
    edits.push(performance.now() - t);
    rendered += r?.rendered ?? 0;
  }
  folder.repo.setBuffer(EDITED, undefined);
  edits.sort((a, b) => a - b);
  return [
    '## Clusters built from the root down (bjw-s-labs-home-ops)',
    '',
    '| step | result |',
    '|---|---|',
    `| kustomize module compile | ${compile.ok ? ms(Number(compile.output)) : compile.message} |`,
    `| open: static model (tree usable) | ${ms(t1 - t0)}, ${staticModel.clusters.reduce((n, c) => n + c.kustomizations.length, 0)} Kustomizations |`,
    `| cold builds + model rebuilds + checks | ${ms(t2 - t1)}: ${cold?.rendered} renders in ${cold?.rounds} rounds; ${builds.filter((b) => b.state === 'built').length} built, ${builds.filter((b) => b.state === 'failed').length} failed (static reading) |`,
    `| one-line edit of a HelmRelease → refined diagnostics | p50 ${ms(edits[Math.floor(edits.length / 2)])}, max ${ms(edits[edits.length - 1])} (${(rendered / edits.length).toFixed(1)} renders per edit) |`,
    '',
  ].join('\n');
}
