import * as fs from 'node:fs';
import type { WorkspaceHost } from '../core/workspace/host';

/**
 * The disk as a WorkspaceHost (used by the CLI, the extension and benchmarks). Symbolic links are
 * left out, as source-controller leaves them out of every artifact: a link can point anywhere on
 * this machine, and what Flux never sees must not reach a render either.
 */
export const diskHost: WorkspaceHost = {
  readFile(path) {
    try {
      return fs.readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  readDir(path) {
    try {
      return fs
        .readdirSync(path, { withFileTypes: true })
        .filter((d) => !d.isSymbolicLink())
        .map((d) => ({ name: d.name, isDirectory: d.isDirectory() }));
    } catch {
      return [];
    }
  },
};

/** URLs of the remotes in `.git/config`, without running git. */
export function gitRemotes(root: string): string[] {
  try {
    const text = fs.readFileSync(`${root}/.git/config`, 'utf8');
    return [...text.matchAll(/^\s*url\s*=\s*(.+)$/gm)].map((m) => m[1].trim());
  } catch {
    return [];
  }
}
