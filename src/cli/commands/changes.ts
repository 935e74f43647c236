import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_BUDGETS } from '../../core/budgets';
import { compareSides, type Side } from '../../core/changes/report';
import { reportMarkdown, reportText, summaryLine } from '../../core/changes/format';
import { hasChanges, type ChangesReport } from '../../core/changes/types';
import { githubData } from '../../core/escape/github';
import { jsonOutput } from '../../core/escape/json';
import { commitEngine } from '../../engine/commitEngine';
import type { Engine } from '../../engine/engine';
import { openRefined } from '../../engine/node';
import { gitLimits } from '../../node/git/limits';
import { defaultBase, resolveCommit } from '../../node/git/refs';
import { GitObjectStore } from '../../node/git/store';
import { commitHost } from '../../node/git/treeHost';
import { producersOf } from '../../workflows/changes';
import { EXIT_FINDINGS, EXIT_OK, parseArgs, UsageError, type CliIO } from '../io';
import { openWorkspace } from '../workspace';
import { githubAnnotation, toCli } from './check';

const FORMATS = ['text', 'json', 'markdown', 'github'] as const;
type Format = (typeof FORMATS)[number];

export const CHANGES_SUMMARY = 'changes [DIR] [--base REF] [--format text|json|markdown|github]  what each cluster applies differently since REF (0 none, 1 changes, 2 error)';

/** Folders looked at above DIR for the repository's `.git`. */
const MAX_DEPTH = 64;

export async function runChanges(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format', 'base'] });
  const format = (flags.format as string | undefined) ?? 'text';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const dir = path.resolve(io.cwd, positionals[0] ?? '.').split(path.sep).join('/');
  const { top, prefix } = repositoryOf(dir);
  const budgets = io.budgets ?? DEFAULT_BUDGETS;
  const store = GitObjectStore.open(top, gitLimits(budgets));
  try {
    const base = flags.base === undefined ? defaultBase(store) : { sha: resolveCommit(store, flags.base as string), name: flags.base as string };
    const { engine, root } = await openWorkspace(positionals[0], io);
    const { engine: baseEngine, rendered } = commitEngine({ host: commitHost(store, base.sha, root, prefix), commit: base.sha, shared: engine.buildCache(root), budgets });
    // Changed-only: the base renders only the Kustomizations whose inputs differ from the working tree's.
    await openRefined(baseEngine, [root]);
    const builds = (await baseEngine.request('targets', { root, kind: 'Kustomization', includeInferred: true })).length;
    io.stderr(`base ${base.sha.slice(0, 12)}: ${rendered()} of ${builds} Kustomization build(s) rendered, the others' inputs are as in the working tree\n`);
    const report = compareSides(base.sha, await sideOf(baseEngine, root), await sideOf(engine, root));
    io.stdout(render(format as Format, report, base.name));
    return hasChanges(report) ? EXIT_FINDINGS : EXIT_OK;
  } finally {
    store.close();
  }
}

async function sideOf(engine: Engine, root: string): Promise<Side> {
  const check = await engine.request('check', { root });
  return { producers: await producersOf((m, p) => engine.request(m, p), root), findings: check.diagnostics.map((d) => toCli(root, d)) };
}

function render(format: Format, report: ChangesReport, baseName: string): string {
  switch (format) {
    case 'json':
      return jsonOutput({ base: report.base, changes: report.changes, findings: report.findings, failures: report.failures, images: report.images });
    case 'markdown':
      return reportMarkdown(report, baseName);
    case 'github':
      return report.findings.introduced.map(githubAnnotation).join('') + `::notice title=gitops-preview changes::${githubData(summaryLine(report))}\n`;
    default:
      return reportText(report, baseName);
  }
}

/** The repository holding `dir` (the nearest folder up with a `.git`) and `dir`'s path in it. */
function repositoryOf(dir: string): { top: string; prefix: string } {
  let top = dir;
  for (let i = 0; i < MAX_DEPTH; i++) {
    if (fs.existsSync(`${top}/.git`)) return { top, prefix: path.posix.relative(top, dir) };
    const up = path.posix.dirname(top);
    if (up === top) break;
    top = up;
  }
  throw new UsageError(`${dir} is not in a Git repository (no .git found above it)`);
}
