import * as path from 'node:path';
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';
import { Repo } from '../../core/repo';
import { treeJson, treeText, relativePath } from '../../core/tree/treeData';
import { diskHost, gitCheckout, gitRemotes } from '../../node/fsHost';
import { EXIT_OK, parseArgs, UsageError, type CliIO } from '../io';

/** Opens DIR (default: cwd) as a repo; shared by every command that reads the workspace. */
export function openRepo(dir: string | undefined, io: CliIO): Repo {
  const root = path.resolve(io.cwd, dir ?? '.').split(path.sep).join('/');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(root);
  } catch {
    throw new UsageError(`${root}: no such directory`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${root}: not a directory`);
  return new Repo(root, diskHost, {
    remotes: gitRemotes(root),
    checkout: gitCheckout(root),
    sha256: (s) => createHash('sha256').update(s).digest('hex'),
  });
}

/** Files that do not parse are reported, with file:line, without stopping the command. */
export function reportParseErrors(repo: Repo, io: CliIO): void {
  for (const file of repo.workspace.files.values()) {
    const rel = relativePath(repo.workspace.root, file.path);
    for (const p of file.problems) io.stderr(`${rel}:${p.range.start.line + 1}: ${p.message}\n`);
    for (const doc of file.docs) {
      for (const p of doc.problems) io.stderr(`${rel}:${p.range.start.line + 1}:${p.range.start.character + 1}: ${p.message}\n`);
    }
  }
}

export async function runTree(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, { values: ['format'] });
  const format = (flags.format as string | undefined) ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not '${format}'`);
  if (positionals.length > 1) throw new UsageError('expects at most one DIR');
  const repo = openRepo(positionals[0], io);
  reportParseErrors(repo, io);
  const model = repo.model();
  io.stdout(format === 'json' ? JSON.stringify(treeJson(model), null, 2) + '\n' : treeText(model));
  return EXIT_OK;
}
