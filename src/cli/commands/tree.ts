import { jsonOutput } from '../../core/escape/json';
import { EXIT_OK, parseArgs, UsageError, type CliIO } from '../io';
import { openWorkspace, reportParseErrors } from '../workspace';

export async function runTree(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format'] });
  const format = (flags.format as string | undefined) ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const { engine, root } = await openWorkspace(positionals[0], io);
  await reportParseErrors(engine, root, io);
  io.stdout(format === 'json' ? jsonOutput(await engine.request('treeJson', { root })) : await engine.request('treeText', { root }));
  return EXIT_OK;
}
