import * as fs from 'node:fs';
import type { GitCheckout } from '../core/model/sources';
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

/**
 * What the workspace has checked out, from `.git/HEAD` and its refs, without running git: the
 * branch (also when it has no commit yet), the commit, and the tags pointing at it. A `.git` file
 * (worktrees, submodules) is followed to its git directory.
 */
export function gitCheckout(root: string): GitCheckout | undefined {
  const read = (p: string) => {
    try {
      return fs.readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  };
  let gitDir = `${root}/.git`;
  const pointer = read(gitDir);
  if (pointer !== undefined) {
    const m = /^gitdir:\s*(.+)$/m.exec(pointer);
    if (!m) return undefined;
    gitDir = m[1].trim().startsWith('/') ? m[1].trim() : `${root}/${m[1].trim()}`;
  }
  const head = read(`${gitDir}/HEAD`)?.trim();
  if (!head) return undefined;
  // Worktrees keep shared refs in the common directory.
  const common = read(`${gitDir}/commondir`)?.trim();
  const refsDir = common ? (common.startsWith('/') ? common : `${gitDir}/${common}`) : gitDir;
  const packed = read(`${refsDir}/packed-refs`) ?? '';
  const resolve = (ref: string): string | undefined => {
    const loose = read(`${gitDir}/${ref}`)?.trim() ?? read(`${refsDir}/${ref}`)?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    return line?.split(' ')[0];
  };
  let branch: string | undefined;
  let commit: string | undefined;
  if (head.startsWith('ref: ')) {
    const ref = head.slice(5).trim();
    if (ref.startsWith('refs/heads/')) branch = ref.slice('refs/heads/'.length);
    commit = resolve(ref);
  } else if (/^[0-9a-f]{40,64}$/.test(head)) commit = head;
  const tags: string[] = [];
  if (commit) {
    const tagsDir = `${refsDir}/refs/tags`;
    let names: string[] = [];
    try {
      names = fs.readdirSync(tagsDir);
    } catch {
      /* no loose tags */
    }
    for (const name of names) if (read(`${tagsDir}/${name}`)?.trim() === commit) tags.push(name);
    const lines = packed.split('\n');
    lines.forEach((line, i) => {
      const [sha, ref] = line.split(' ');
      if (!ref?.startsWith('refs/tags/')) return;
      const peeled = lines[i + 1]?.startsWith('^') ? lines[i + 1].slice(1) : undefined;
      if (sha === commit || peeled === commit) tags.push(ref.slice('refs/tags/'.length));
    });
  }
  return { branch, commit, tags };
}
