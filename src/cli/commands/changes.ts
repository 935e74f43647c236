import { reportJson, reportMarkdown, reportText, summaryLine } from '../../core/changes/format';
import { reportHtml } from '../../core/changes/html';
import { hasChanges, type ChangesReport } from '../../core/changes/types';
import { githubData } from '../../core/escape/github';
import { EXIT_FINDINGS, EXIT_OK, parseArgs, UsageError, type CliIO } from '../io';
import { openWorkspace } from '../workspace';
import { githubAnnotation } from './check';

const FORMATS = ['text', 'json', 'markdown', 'github', 'html'] as const;
type Format = (typeof FORMATS)[number];

export const CHANGES_SUMMARY = 'changes [DIR] [--base REF] [--format text|json|markdown|github|html] [--offline]  what each cluster applies differently since REF (0 none, 1 changes, 2 error)';

export async function runChanges(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format', 'base'], booleans: ['offline'] });
  const format = (flags.format as string | undefined) ?? 'text';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const { engine, root } = await openWorkspace(positionals[0], io);
  // Charts not at hand are fetched into the chart cache, as `build hr` does, unless --offline.
  const fetchCharts = flags.offline === true ? {} : { fetchCharts: { env: io.env } };
  const answer = await engine.request('changes', { root, ...(flags.base === undefined ? {} : { base: flags.base as string }), ...fetchCharts });
  if (!answer.ok) throw new Error(answer.error.message);
  const { report, baseName, rendered, builds, helmRendered, helmReleases, kept } = answer.value;
  // Changed-only: the base renders only the Kustomizations and HelmReleases whose inputs differ from the working tree's.
  const helm = helmReleases ? `, ${helmRendered} of ${helmReleases} HelmRelease render(s)` : '';
  const others = kept ? 'the base side kept by an earlier comparison with this base' : "the others' inputs are as in the working tree";
  io.stderr(`base ${report.base.slice(0, 12)}: ${rendered} of ${builds} Kustomization build(s) rendered${helm}, ${others}\n`);
  io.stdout(render(format as Format, report, baseName));
  return hasChanges(report) ? EXIT_FINDINGS : EXIT_OK;
}

function render(format: Format, report: ChangesReport, baseName: string): string {
  switch (format) {
    case 'json':
      return reportJson(report);
    case 'markdown':
      return reportMarkdown(report, baseName);
    case 'github':
      return report.findings.introduced.map(githubAnnotation).join('') + `::notice title=gitops-preview changes::${githubData(summaryLine(report))}\n`;
    case 'html':
      return reportHtml(report, baseName);
    default:
      return reportText(report, baseName);
  }
}
