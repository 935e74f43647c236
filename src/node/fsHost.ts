import * as fs from 'node:fs';
import type { WorkspaceHost } from '../core/workspace/host';

/** The disk as a WorkspaceHost (used by the CLI, the extension and benchmarks). */
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
      return fs.readdirSync(path, { withFileTypes: true }).map((d) => ({
        name: d.name,
        isDirectory: d.isDirectory() || (d.isSymbolicLink() && isDirSafe(`${path}/${d.name}`)),
      }));
    } catch {
      return [];
    }
  },
};

function isDirSafe(path: string): boolean {
  try {
    return fs.statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** URLs of the remotes in `.git/config`, without running git. */
export function gitRemotes(root: string): string[] {
  try {
    const text = fs.readFileSync(`${root}/.git/config`, 'utf8');
    return [...text.matchAll(/^\s*url\s*=\s*(.+)$/gm)].map((m) => m[1].trim());
  } catch {
    return [];
  }
}
