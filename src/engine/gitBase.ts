/**
 * The base side of `changes` from the Git objects of the repository holding a folder (node/git,
 * in process, no git binary): the commit's tree stands in for the folder under its own root path
 * (commitHost), and a commit engine builds it, taking from the working tree's build cache every
 * build whose inputs are the same. The last base side of each folder is kept: a base commit does
 * not change while the working tree does, so an editor's refresh after an edit builds the working
 * tree's side only.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_BUDGETS, type Budgets } from '../core/budgets';
import { fail, ok, type Result } from '../core/result';
import { localBranches } from '../node/git/branches';
import { GitError, gitLimits } from '../node/git/limits';
import { checkedOutBranch, defaultBase, resolveCommit, shortRefName, upstreamOf } from '../node/git/refs';
import { GitObjectStore } from '../node/git/store';
import { commitHost } from '../node/git/treeHost';
import { sideOf } from '../workflows/changes';
import type { BaseReader, BaseSide } from './changes';
import { commitEngine } from './commitEngine';
import { openRefined } from './node';
import { chartCacheOf, type HelmModelOptions } from '../render/helmModel';
import type { ChangeBases } from './protocol';

/** Folders looked at above a folder for the repository's `.git`. */
const MAX_DEPTH = 64;

export function gitBaseReader(budgets: Budgets = DEFAULT_BUDGETS): BaseReader {
  const kept = new Map<string, { key: string; side: BaseSide }>();
  return {
    bases: (root) => withStore(root, budgets, async (store) => basesOf(store)),
    side: (root, base, { shared, settings, charts, fetch, parsed, text }) =>
      withStore(root, budgets, async (store, prefix) => {
        const named = base === undefined ? defaultBase(store) : { sha: resolveCommit(store, base), name: base };
        const key = JSON.stringify([named.sha, settings.sourceRoots ?? {}, !!settings.redHatYaml, !!fetch]);
        const hit = kept.get(root);
        if (hit?.key === key) return { ...hit.side, name: named.name, rendered: 0, helmRendered: 0 };
        // Across runs: the side is a function of the commit, the settings, the limits and the charts at hand.
        const storedKey = `${BASE_SIDE_PREFIX}${createHash('sha256').update(JSON.stringify([key, budgets, chartsAtHand(charts)])).digest('hex')}`;
        const stored = storedSide(shared?.get(storedKey)?.value, named.sha);
        if (stored) {
          kept.set(root, { key, side: stored });
          return { ...stored, name: named.name, rendered: 0, helmRendered: 0, kept: true };
        }
        const host = commitHost(store, named.sha, root, prefix, text);
        // A file the change left alone is the working tree's parse.
        if (parsed) host.parsed = parsed;
        const { engine, rendered, helmRendered } = commitEngine({ host, commit: named.sha, shared, budgets, charts });
        try {
          await openRefined(engine, [root], settings);
          const builds = (await engine.request('targets', { root, kind: 'Kustomization', includeInferred: true })).length;
          const ofSide = await sideOf((m, p) => engine.request(m, p), root, fetch);
          const helmReleases = ofSide.producers.filter((p) => p.kind === 'HelmRelease' && p.unrendered === undefined).length;
          const side: BaseSide = { sha: named.sha, name: named.name, side: ofSide, rendered: rendered(), builds, helmRendered: helmRendered(), helmReleases };
          kept.set(root, { key, side });
          shared?.set(storedKey, { reads: {}, value: side });
          return side;
        } finally {
          engine.dispose();
        }
      }),
  };
}

function basesOf(store: GitObjectStore): ChangeBases {
  const upstream = upstreamOf(store);
  const branches = localBranches(store).flatMap((name) => {
    const sha = commitOf(store, `refs/heads/${name}`);
    return sha ? [{ name, sha }] : [];
  });
  return { default: defaultOrWhyNot(store), branches, upstream: upstream && shortRefName(upstream), branch: checkedOutBranch(store), head: commitOf(store, 'HEAD') };
}

function defaultOrWhyNot(store: GitObjectStore): ChangeBases['default'] {
  try {
    return defaultBase(store);
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    return { error: err.message };
  }
}

/** The commit `rev` names, or undefined when it names none this reader can read. */
function commitOf(store: GitObjectStore, rev: string): string | undefined {
  try {
    return resolveCommit(store, rev);
  } catch (err) {
    if (err instanceof GitError) return undefined;
    throw err;
  }
}

/** `read` with the object store of the repository holding `root`, closed after; a Git error is the answer's error. */
async function withStore<T>(root: string, budgets: Budgets, read: (store: GitObjectStore, prefix: string) => Promise<T>): Promise<Result<T, { message: string }>> {
  try {
    const { top, prefix } = repositoryOf(root);
    const store = GitObjectStore.open(top, gitLimits(budgets));
    try {
      return ok(await read(store, prefix));
    } finally {
      store.close();
    }
  } catch (err) {
    if (err instanceof GitError) return fail({ message: err.message });
    throw err;
  }
}

/** The repository holding `dir` (the nearest folder up with a `.git`) and `dir`'s path in it. */
function repositoryOf(dir: string): { top: string; prefix: string } {
  let top = dir;
  for (let i = 0; i < MAX_DEPTH; i++) {
    if (fs.existsSync(`${top}/.git`)) return { top, prefix: path.posix.relative(top, dir) };
    const up = path.posix.dirname(top);
    if (up === top) break;
    top = up;
  }
  throw new GitError(`${dir} is not in a Git repository (no .git found above it)`);
}

/** Where a base side is kept in the folder's build cache (by its key's digest). */
export const BASE_SIDE_PREFIX = 'side:';

/**
 * What the chart cache holds, as far as a side can tell: the charts stored and what each reference
 * resolved to last (a chart fetched, a range resolved anew, makes another side).
 */
function chartsAtHand(charts: HelmModelOptions | undefined): string {
  const dir = charts && chartCacheOf(charts);
  if (!dir) return '';
  const hash = createHash('sha256');
  const list = (sub: string, stat: boolean) => {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(dir, sub)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      let mark = '';
      if (stat) {
        try {
          const s = fs.statSync(path.join(dir, sub, name));
          mark = `${s.size}:${s.mtimeMs}`;
        } catch {
          mark = 'gone';
        }
      }
      hash.update(`${sub}/${name}\0${mark}\n`);
    }
  };
  list('', false);
  list('refs', true);
  return hash.digest('hex');
}

/** A kept side of commit `sha`, or undefined when the entry is not one (of another shape: read again). */
function storedSide(value: unknown, sha: string): BaseSide | undefined {
  const v = value as Partial<BaseSide> | undefined;
  if (!v || typeof v !== 'object' || v.sha !== sha || !v.side || !Array.isArray(v.side.producers) || !Array.isArray(v.side.findings)) return undefined;
  if (![v.builds, v.helmReleases].every((n) => typeof n === 'number')) return undefined;
  return v as BaseSide;
}
