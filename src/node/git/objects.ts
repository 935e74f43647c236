/** The parts of commits, trees and tags this reader needs, parsed in one pass each. */
import { GitError } from './limits';
import type { GitObjectStore } from './store';

export interface Commit {
  tree: string;
  parents: string[];
  /** Committer time, seconds since the epoch (orders the merge-base walk). */
  time: number;
}

export interface TreeEntry {
  name: string;
  sha: string;
  kind: 'file' | 'dir' | 'link' | 'submodule';
}

const HEX40 = /^[0-9a-f]{40}$/;

export function readCommit(store: GitObjectStore, sha: string): Commit {
  const text = store.readTyped(sha, 'commit').toString('utf8');
  const end = text.indexOf('\n\n');
  const header = (end < 0 ? text : text.slice(0, end)).split('\n');
  let tree: string | undefined;
  const parents: string[] = [];
  let time = 0;
  for (const line of header) {
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') tree = value;
    else if (key === 'parent') parents.push(value);
    else if (key === 'committer') time = Number(value.slice(value.lastIndexOf('>') + 1).trim().split(' ')[0]) || 0;
  }
  if (!tree || !HEX40.test(tree) || parents.some((p) => !HEX40.test(p))) throw new GitError(`commit ${sha} is malformed`);
  return { tree, parents, time };
}

/** A tree's entries: `<mode> <name>\0<20-byte sha>` each. */
export function readTree(store: GitObjectStore, sha: string): TreeEntry[] {
  const data = store.readTyped(sha, 'tree');
  const out: TreeEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const nul = space < 0 ? -1 : data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new GitError(`tree ${sha} is malformed`);
    const mode = data.toString('latin1', at, space);
    const name = data.toString('utf8', space + 1, nul);
    const entrySha = data.toString('hex', nul + 1, nul + 21);
    at = nul + 21;
    const kind = mode === '40000' ? 'dir' : mode === '120000' ? 'link' : mode === '160000' ? 'submodule' : mode.startsWith('100') ? 'file' : undefined;
    if (!kind || !name || name.includes('/')) throw new GitError(`tree ${sha} has a malformed entry`);
    out.push({ name, sha: entrySha, kind });
  }
  return out;
}

/** The commit an object leads to: itself, or the commit an annotated tag (or a chain of them) points at. */
export function peelToCommit(store: GitObjectStore, sha: string): string {
  for (let i = 0; i < 10; i++) {
    const o = store.read(sha);
    if (o.type === 'commit') return sha;
    if (o.type !== 'tag') throw new GitError(`${sha} is a ${o.type}, not a commit`);
    const first = o.data.toString('utf8', 0, Math.min(o.data.length, 100));
    const next = first.startsWith('object ') ? first.slice(7, 47) : '';
    if (!HEX40.test(next)) throw new GitError(`tag ${sha} is malformed`);
    sha = next;
  }
  throw new GitError(`tag ${sha}: more than 10 tags to peel`);
}
