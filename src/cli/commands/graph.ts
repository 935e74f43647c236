import { toDot, toMermaid, type DependencyGraph } from '../../core/graph/index';
import { terminalName, terminalText } from '../../core/escape/terminal';
import { jsonOutput } from '../../core/escape/json';
import { EXIT_OK, EXIT_USAGE, parseArgs, UsageError, type CliIO } from '../io';
import { openWorkspace, reportParseErrors } from '../workspace';

const FORMATS = ['json', 'dot', 'mermaid'] as const;
type Format = (typeof FORMATS)[number];

export const GRAPH_SUMMARY = 'graph [DIR] [--cluster NAME] [--format json|dot|mermaid] [--no-sources]  the dependency graph per cluster';

export async function runGraph(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format', 'cluster'], booleans: ['no-sources'] });
  const format = (flags.format as string | undefined) ?? 'json';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const { engine, root } = await openWorkspace(positionals[0], io);
  await reportParseErrors(engine, root, io);
  // The graph carries the checks' findings: a rule that failed internally is reported, as `check` does.
  const { failures } = await engine.request('check', { root });
  for (const f of failures) io.stderr(`gitops-preview graph: internal error in ${f.rules} rules: ${terminalText(f.message)}\n`);
  const wanted = flags.cluster as string | undefined;
  const graph = await engine.request('graph', { root, cluster: wanted, sources: !flags['no-sources'] });
  if (wanted !== undefined && !graph.clusters.length) {
    const all = (await engine.request('graph', { root, sources: false })).clusters;
    const names = all.map((c) => terminalName(c.name)).join(', ') || 'none';
    throw new UsageError(`no cluster named ${terminalName(wanted)} (clusters: ${names})`);
  }
  io.stdout(render(format as Format, graph));
  return failures.length ? EXIT_USAGE : EXIT_OK;
}

function render(format: Format, graph: DependencyGraph): string {
  if (format === 'dot') return toDot(graph);
  if (format === 'mermaid') return toMermaid(graph);
  return jsonOutput(graph);
}
