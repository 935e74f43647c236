/** Temporary Git repositories for the reader's tests, made with the git binary (the reader never runs it). */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function tempDir(prefix = 'gitops-preview-git-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', '-c', 'gc.auto=0', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Writes files (relative path → text; undefined deletes) under `dir`. */
export function writeFiles(dir: string, files: Record<string, string | undefined>): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    if (text === undefined) {
      fs.rmSync(file, { force: true });
      continue;
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

/** A new repository with one commit of `files` on `main`. */
export function repoWith(files: Record<string, string>): string {
  const dir = tempDir();
  git(dir, 'init', '-q');
  writeFiles(dir, files);
  commitAll(dir, 'first');
  return dir;
}

export function commitAll(dir: string, message: string): string {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}
