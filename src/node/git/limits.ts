/**
 * Bounds on reading a repository's Git object store, which is as untrusted as its files: a
 * declared size, a delta chain or a pack can claim anything. Past a bound the read stops with a
 * GitError naming it, never a crash, a hang or an allocation the size of a lie.
 */
import type { Budgets } from '../../core/budgets';
import { Allowance } from '../../core/budgets';

export interface GitLimits {
  /** One object, inflated (a blob, a tree, a commit, a delta's result or its instructions). */
  readonly objectBytes: number;
  /** Deltas applied to reach one object (git's own `gc --aggressive` writes chains of 250). */
  readonly deltaDepth: number;
  /** Commits a merge-base walk may read. */
  readonly commits: number;
  /** Bytes inflated or read from packs over the whole command (trees, commits, delta bases, blobs). */
  readonly totalBytes: Allowance;
}

const MiB = 1024 * 1024;

/**
 * From the command's budgets: the store may read 16× the manifest budget (a commit's trees and
 * delta bases come on top of the manifests it holds), so `--max-read-mb` raises both.
 */
export function gitLimits(budgets: Pick<Budgets, 'readBytes'>): GitLimits {
  return { objectBytes: 64 * MiB, deltaDepth: 1000, commits: 200_000, totalBytes: new Allowance(16 * budgets.readBytes) };
}

/** A read the object store refused or could not do: corrupt, hostile or missing data, or a bound reached. */
export class GitError extends Error {}
