import { checkModel } from '../../core/checks/index';
import { buildDependencyGraph, toDot, toMermaid, type DependencyGraph } from '../../core/graph/index';
import { EXIT_OK, EXIT_USAGE, parseArgs, UsageError, type CliIO } from '../io';
import { openRepo, reportParseErrors } from './tree';

const FORMATS = ['json', 'dot', 'mermaid'] as const;
type Format = (typeof FORMATS)[number];

export const GRAPH_SUMMARY = 'graph [DIR] [--cluster NAME] [--format json|dot|mermaid] [--no-sources]  the dependency graph per cluster';

export async function runGraph(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format', 'cluster'], booleans: ['no-sources'] });
  const format = (flags.format as string | undefined) ?? 'json';
  if (!FORMATS.includes(format as Format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const repo = openRepo(positionals[0], io);
  reportParseErrors(repo, io);
  const model = repo.model();
  const result = checkModel(model);
  for (const f of result.failures) io.stderr(`gitops-preview graph: internal error in ${f.rules} rules: ${f.message}\n`);
  let graph = buildDependencyGraph(model, result.diagnostics, { sources: !flags['no-sources'] });
  const wanted = flags.cluster as string | undefined;
  if (wanted !== undefined) {
    const clusters = graph.clusters.filter((c) => c.name === wanted);
    if (!clusters.length) {
      const names = graph.clusters.map((c) => `'${c.name}'`).join(', ') || 'none';
      throw new UsageError(`no cluster named '${wanted}' (clusters: ${names})`);
    }
    graph = { clusters };
  }
  io.stdout(render(format as Format, graph));
  return result.failures.length ? EXIT_USAGE : EXIT_OK;
}

function render(format: Format, graph: DependencyGraph): string {
  if (format === 'dot') return toDot(graph);
  if (format === 'mermaid') return toMermaid(graph);
  return JSON.stringify(graph, null, 2) + '\n';
}
