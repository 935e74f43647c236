/**
 * The best common ancestor of two commits, as `git merge-base` finds it: walk both histories
 * newest first, painting each commit with the side(s) reaching it; a commit reached from both is a
 * candidate, and its ancestors are stale. The walk ends when only stale commits are left, so it
 * reads only the history since the fork, at most GitLimits.commits commits.
 */
import * as fs from 'node:fs';
import { GitError } from './limits';
import { readCommit, type Commit } from './objects';
import type { GitObjectStore } from './store';

const ONE = 1;
const TWO = 2;
const STALE = 4;
const RESULT = 8;

export function mergeBase(store: GitObjectStore, a: string, b: string): string | undefined {
  if (a === b) return a;
  const flags = new Map<string, number>();
  const commits = new Map<string, Commit>();
  const shallow = isShallow(store);
  const commit = (sha: string): Commit | undefined => {
    let c = commits.get(sha);
    if (c) return c;
    if (commits.size >= store.limits.commits) throw new GitError(`finding the merge-base read more than ${store.limits.commits} commits; give a base with --base REF`);
    try {
      c = readCommit(store, sha);
    } catch (err) {
      // A shallow clone's history ends at commits whose parents were not fetched.
      if (shallow && err instanceof GitError && /is not in the repository/.test(err.message)) return undefined;
      throw err;
    }
    commits.set(sha, c);
    return c;
  };
  // Newest first; a sorted array is enough for the few hundred commits a fork usually spans.
  const queue: { sha: string; time: number }[] = [];
  const push = (sha: string, flag: number) => {
    const c = commit(sha);
    if (!c) return;
    flags.set(sha, (flags.get(sha) ?? 0) | flag);
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (queue[mid].time >= c.time) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, { sha, time: c.time });
  };
  push(a, ONE);
  push(b, TWO);
  const results: string[] = [];
  while (queue.some((q) => !((flags.get(q.sha) ?? 0) & STALE))) {
    const { sha } = queue.shift()!;
    let f = flags.get(sha) ?? 0;
    const sides = f & (ONE | TWO | STALE);
    if (sides === (ONE | TWO)) {
      if (!(f & RESULT)) {
        f |= RESULT;
        results.push(sha);
      }
      f |= STALE;
      flags.set(sha, f);
    }
    for (const parent of commit(sha)?.parents ?? []) {
      const pf = flags.get(parent) ?? 0;
      const add = f & (ONE | TWO | STALE);
      if ((pf & add) === add) continue;
      if (pf === 0) push(parent, add);
      else flags.set(parent, pf | add);
    }
  }
  // The first commit both sides reach, newest first: the one `git merge-base` prints.
  return results[0];
}

function isShallow(store: GitObjectStore): boolean {
  return fs.existsSync(`${store.dirs.commonDir}/shallow`);
}
