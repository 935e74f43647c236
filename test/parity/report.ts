/** Inputs and printed output of the parity runs: tool paths, corpus folders, the table, the causes. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Entry, Summary, Tools } from './harness';

/** FLUX_BIN / KUSTOMIZE_BIN / HELM_BIN from the environment, else where test/cluster/build.sh puts them. */
export function resolveTools(repoRoot: string): Tools {
  const printed = execFileSync('bash', [path.join(repoRoot, 'test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  const vars = new Map(printed.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const pick = (name: string) => process.env[name] || vars.get(name) || '';
  const tools = { flux: pick('FLUX_BIN'), kustomize: pick('KUSTOMIZE_BIN'), helm: pick('HELM_BIN') || undefined };
  for (const [name, bin] of [['FLUX_BIN', tools.flux], ['KUSTOMIZE_BIN', tools.kustomize]] as const) {
    if (!bin || !fs.existsSync(bin)) throw new Error(`${name} (${bin || 'unset'}) is not built: run bash test/cluster/build.sh`);
  }
  return tools;
}

/** Corpus folders (those with a CORPUS.txt), all or the named ones; fails when there are none. */
export function corpusDirs(corporaDir: string, names?: readonly string[]): string[] {
  if (!fs.existsSync(corporaDir)) throw new Error(`${corporaDir}: no corpora (the shared corpora are expected beside the repository)`);
  const all = fs
    .readdirSync(corporaDir)
    .filter((d) => fs.existsSync(path.join(corporaDir, d, 'CORPUS.txt')))
    .sort();
  if (all.length === 0) throw new Error(`${corporaDir}: no corpus folder with a CORPUS.txt`);
  if (!names?.length) return all.map((d) => path.join(corporaDir, d));
  for (const n of names) if (!all.includes(n)) throw new Error(`no corpus '${n}' in ${corporaDir} (have: ${all.join(', ')})`);
  return names.map((d) => path.join(corporaDir, d));
}

function pct(a: number, b: number): string {
  return b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`;
}

export function totals(summaries: readonly Summary[]): Summary {
  const t: Summary = { corpus: 'total', unplaced: 0, kustomizations: 0, external: 0, bothBuild: 0, identical: 0, differ: 0, onlyFlux: 0, onlyOurs: 0, neither: 0, bothBuildGivenInput: 0, identicalGivenInput: 0 };
  for (const s of summaries) for (const k of Object.keys(t) as (keyof Summary)[]) if (k !== 'corpus') (t[k] as number) += s[k] as number;
  return t;
}

export function formatTable(summaries: readonly Summary[]): string {
  const head =
    '| corpus | placed in no cluster | Kustomizations | source not in repo | built by both | identical | differ | only flux builds | only we build | neither | identical of both | given flux\'s input: identical of both |';
  const rule = '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const row = (s: Summary) =>
    `| ${s.corpus} | ${s.unplaced} | ${s.kustomizations} | ${s.external} | ${s.bothBuild} | ${s.identical} | ${s.differ} | ${s.onlyFlux} | ${s.onlyOurs} | ${s.neither} | ${pct(s.identical, s.bothBuild)} | ${s.identicalGivenInput}/${s.bothBuildGivenInput} ${pct(s.identicalGivenInput, s.bothBuildGivenInput)} |`;
  return [head, rule, ...summaries.map(row), row(totals(summaries)).replace('| total |', '| **total** |')].join('\n');
}

/** Count of each cause over the mismatching entries, with one example id; `details` lists every entry. */
export function formatCauses(entries: readonly Entry[], details: boolean): string {
  const byCause = new Map<string, Entry[]>();
  for (const e of entries) for (const c of e.causes) byCause.set(c, [...(byCause.get(c) ?? []), e]);
  const lines = ['| cause | Kustomizations | example |', '|---|---:|---|'];
  for (const [cause, list] of [...byCause].sort((a, b) => b[1].length - a[1].length)) {
    const e = list[0];
    lines.push(`| ${cause} | ${list.length} | ${e.corpus}: ${e.cluster}/${e.namespace}/${e.name} |`);
  }
  if (details) {
    for (const e of entries) {
      if (e.outcome === 'identical') continue;
      lines.push('', `### ${e.corpus}: ${e.cluster}/${e.namespace}/${e.name} (${e.outcome}) path=${e.path} input=${e.input}${e.inputSpecDiffers ? ` (${e.inputFields.join(', ')} differ from own file)` : ''}`);
      lines.push(`causes: ${e.causes.join(', ') || '-'}`);
      for (const n of e.notes) lines.push(`note: ${n}`);
      if (e.fluxError) lines.push(`flux: ${e.fluxError}`);
      if (e.oursError) lines.push(`ours: ${e.oursError}`);
      if (e.diff) {
        if (e.diff.onlyFlux.length) lines.push(`only in flux: ${e.diff.onlyFlux.slice(0, 8).join(', ')}${e.diff.onlyFlux.length > 8 ? ` (+${e.diff.onlyFlux.length - 8})` : ''}`);
        if (e.diff.onlyOurs.length) lines.push(`only in ours: ${e.diff.onlyOurs.slice(0, 8).join(', ')}${e.diff.onlyOurs.length > 8 ? ` (+${e.diff.onlyOurs.length - 8})` : ''}`);
        for (const c of e.diff.changed.slice(0, 4)) {
          for (const f of c.fields.slice(0, 3)) lines.push(`  ${c.key} ${f.path}: flux=${JSON.stringify(f.flux)?.slice(0, 160)} ours=${JSON.stringify(f.ours)?.slice(0, 160)}`);
        }
        if (e.diff.changed.length > 4) lines.push(`  ... ${e.diff.changed.length - 4} more changed objects`);
      }
      const g = e.givenInput;
      if (g) {
        lines.push(`given flux's input: ${g.outcome}${g.oursError ? ` — ours: ${g.oursError}` : ''}`);
        for (const c of g.diff?.changed.slice(0, 4) ?? []) {
          for (const f of c.fields.slice(0, 3)) lines.push(`  ${c.key} ${f.path}: flux=${JSON.stringify(f.flux)?.slice(0, 160)} ours=${JSON.stringify(f.ours)?.slice(0, 160)}`);
        }
        if (g.diff?.onlyFlux.length) lines.push(`  only in flux: ${g.diff.onlyFlux.slice(0, 8).join(', ')}`);
        if (g.diff?.onlyOurs.length) lines.push(`  only in ours: ${g.diff.onlyOurs.slice(0, 8).join(', ')}`);
      }
    }
  }
  return lines.join('\n');
}
