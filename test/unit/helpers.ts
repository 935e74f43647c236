import * as path from 'node:path';
import * as fs from 'node:fs';
import { Repo } from '../../src/core/repo';
import { memoryHost } from '../../src/core/workspace/host';
import { diskHost } from '../../src/node/fsHost';
import type { GitCheckout } from '../../src/core/model/sources';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/io';

/** `<repo>/../shared`, where CI puts the read-only corpora beside the clone. */
export const SHARED = path.resolve(__dirname, '../../../shared');
export const CORPORA = path.join(SHARED, 'corpora');

/** The YAML files under `dir` (no `.git`), in a stable order: each folder's entries by name. */
export function yamlFilesUnder(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== '.git') yamlFilesUnder(p, out);
    } else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/**
 * A corpus as a clone of its repository: `origin` is the GitHub URL CORPUS.txt names (what a user
 * who cloned it has). `checkout` is what `.git/HEAD` would say; unknown by default.
 */
export function corpusRepo(name: string, options: { checkout?: GitCheckout; remotes?: string[] } = {}): Repo {
  const root = path.join(CORPORA, name);
  if (!fs.existsSync(root)) throw new Error(`corpus ${root} is missing: the shared folder must sit beside the repository`);
  return new Repo(root, diskHost, { sha256: (s) => s, remotes: options.remotes ?? corpusRemotes(name), checkout: options.checkout });
}

/** `https://github.com/<source>.git` for the `source:` line of the corpus's CORPUS.txt. */
export function corpusRemotes(name: string): string[] {
  const text = fs.readFileSync(path.join(CORPORA, name, 'CORPUS.txt'), 'utf8');
  const source = /^source:\s*(\S+)/m.exec(text)?.[1];
  if (!source) throw new Error(`${name}/CORPUS.txt names no source`);
  return [`https://github.com/${source}.git`];
}

export function memoryRepo(files: Record<string, string>, root = '/repo'): Repo {
  return new Repo(root, memoryHost(root, files));
}

/** Runs the CLI in-process from `cwd`, capturing what it prints. */
export async function runCliCaptured(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd, env };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
