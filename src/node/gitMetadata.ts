/**
 * What the workspace's `.git` says (remotes, checked-out branch, commit and tags), read without
 * running git. `.git` is as untrusted as the rest of the repository: every read is bounded, made
 * on the file's real path, and refused when that path leaves the folders git itself would read
 * for this checkout (the repository; for a linked worktree or a submodule, the git directory that
 * names this checkout back). A ref name is used only when git would accept it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GitCheckout } from '../core/model/sources';
import { diskHost } from './fsHost';

/** HEAD, a loose ref, a `gitdir:` or `commondir` pointer: git writes one short line. */
export const MAX_GIT_POINTER_BYTES = 4 * 1024;
/** `config` and `packed-refs`. */
export const MAX_GIT_FILE_BYTES = 4 * 1024 * 1024;
/** Loose tags looked at for the checked-out commit (packed tags are bounded by MAX_GIT_FILE_BYTES). */
export const MAX_LOOSE_TAGS = 10_000;

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Where this checkout's git data lives, and the real folders its reads may not leave. */
export interface GitDirs {
  /** HEAD and the worktree's own refs. */
  readonly gitDir: string;
  /** config, packed-refs and the shared refs (the main repository's for a linked worktree). */
  readonly commonDir: string;
  readonly allowed: readonly string[];
}

/** URLs of the remotes in `.git/config`. */
export function gitRemotes(root: string): string[] {
  const dirs = gitDirs(root);
  const text = dirs && readConfined(dirs, `${dirs.commonDir}/config`, MAX_GIT_FILE_BYTES);
  if (text === undefined) return [];
  return [...text.matchAll(/^[ \t]*url[ \t]*=[ \t]*(\S[^\n]*)$/gm)].map((m) => m[1].trim());
}

/**
 * What the workspace has checked out, from `.git/HEAD` and its refs: the branch (also when it has
 * no commit yet), the commit, and the tags pointing at it. Undefined when unknown, or when `.git`
 * leads outside the repository.
 */
export function gitCheckout(root: string): GitCheckout | undefined {
  const dirs = gitDirs(root);
  if (!dirs) return undefined;
  const head = readConfined(dirs, `${dirs.gitDir}/HEAD`, MAX_GIT_POINTER_BYTES)?.trim();
  if (!head) return undefined;
  const packed = readConfined(dirs, `${dirs.commonDir}/packed-refs`, MAX_GIT_FILE_BYTES)?.split('\n') ?? [];
  const resolve = (ref: string): string | undefined => {
    const loose = (readConfined(dirs, `${dirs.gitDir}/${ref}`, MAX_GIT_POINTER_BYTES) ?? readConfined(dirs, `${dirs.commonDir}/${ref}`, MAX_GIT_POINTER_BYTES))?.trim();
    if (loose && SHA.test(loose)) return loose;
    const sha = packed.find((l) => l.endsWith(` ${ref}`))?.split(' ')[0];
    return sha && SHA.test(sha) ? sha : undefined;
  };
  let branch: string | undefined;
  let commit: string | undefined;
  if (head.startsWith('ref: ')) {
    const ref = head.slice(5).trim();
    // A symbolic ref git would refuse (`../..`, an absolute path) names no branch and is not read.
    if (!isValidRefName(ref)) return undefined;
    if (ref.startsWith('refs/heads/')) branch = ref.slice('refs/heads/'.length);
    commit = resolve(ref);
  } else if (SHA.test(head)) commit = head;
  const tags: string[] = [];
  if (commit) {
    for (const name of looseTags(dirs)) {
      if (isValidRefName(`refs/tags/${name}`) && readConfined(dirs, `${dirs.commonDir}/refs/tags/${name}`, MAX_GIT_POINTER_BYTES)?.trim() === commit) tags.push(name);
    }
    packed.forEach((line, i) => {
      const [sha, ref] = line.split(' ');
      if (!ref?.startsWith('refs/tags/') || !isValidRefName(ref)) return;
      const peeled = packed[i + 1]?.startsWith('^') ? packed[i + 1].slice(1) : undefined;
      if (sha === commit || peeled === commit) tags.push(ref.slice('refs/tags/'.length));
    });
  }
  // `git clone` records the remote's default branch as the symbolic ref origin/HEAD.
  const originHead = readConfined(dirs, `${dirs.commonDir}/refs/remotes/origin/HEAD`, MAX_GIT_POINTER_BYTES)?.trim();
  const remoteRef = originHead?.startsWith('ref: ') ? originHead.slice(5).trim() : undefined;
  const defaultBranch = remoteRef?.startsWith('refs/remotes/origin/') && isValidRefName(remoteRef) ? remoteRef.slice('refs/remotes/origin/'.length) : undefined;
  return { branch, commit, tags, ...(defaultBranch ? { defaultBranch } : {}) };
}

/**
 * Whether git accepts `ref` as a ref name (git-check-ref-format, as `git symbolic-ref` requires of
 * HEAD): under `refs/`, no `..`, no empty or dot-leading component, no `.lock` component, no
 * control characters, spaces or `~^:?*[\`, no `@{`, not ending in `/` or `.`.
 */
export function isValidRefName(ref: string): boolean {
  if (ref.length > 1024 || !ref.startsWith('refs/') || ref.endsWith('/') || ref.endsWith('.')) return false;
  if (ref.includes('..') || ref.includes('@{') || /[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return false;
  return ref.split('/').every((c) => c.length > 0 && !c.startsWith('.') && !c.endsWith('.lock'));
}

/** `root`'s git directories, or undefined when there is none or it lies outside what this checkout may read. */
export function gitDirs(root: string): GitDirs | undefined {
  const realRoot = diskHost.realPath?.(root);
  if (!realRoot) return undefined;
  const dotGit = `${root}/.git`;
  const real = diskHost.realPath?.(dotGit);
  // A `.git` link leaving the repository: git would follow it, this tool does not.
  if (!real || !inside(real, [realRoot])) return undefined;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(real);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) return withCommonDir(real, [realRoot]);
  const pointer = readIn([realRoot], real, MAX_GIT_POINTER_BYTES);
  const target = pointer === undefined ? undefined : /^gitdir:[ \t]*(.+)$/m.exec(pointer)?.[1].trim();
  if (!target) return undefined;
  const gitDir = diskHost.realPath?.(path.resolve(realRoot, target));
  if (!gitDir) return undefined;
  if (inside(gitDir, [realRoot])) return withCommonDir(gitDir, [realRoot]);
  // Outside the repository: only a git directory that names this checkout back, as a linked
  // worktree's (its `gitdir` file) or a submodule's (its `core.worktree`) does.
  if (worktreeOf(gitDir) === real) {
    const common = readIn([gitDir], `${gitDir}/commondir`, MAX_GIT_POINTER_BYTES)?.trim();
    const commonDir = common ? diskHost.realPath?.(path.resolve(gitDir, common)) : undefined;
    // The main repository's git directory holds this one under `worktrees/`.
    if (!commonDir || !inside(gitDir, [`${commonDir}/worktrees`])) return undefined;
    return { gitDir, commonDir, allowed: [realRoot, commonDir] };
  }
  if (submoduleWorktreeOf(gitDir) === realRoot) return { gitDir, commonDir: gitDir, allowed: [realRoot, gitDir] };
  return undefined;
}

/** A git directory inside the repository; a `commondir` pointer is followed only within it. */
function withCommonDir(gitDir: string, allowed: readonly string[]): GitDirs | undefined {
  const common = readIn(allowed, `${gitDir}/commondir`, MAX_GIT_POINTER_BYTES)?.trim();
  if (!common) return { gitDir, commonDir: gitDir, allowed };
  const commonDir = diskHost.realPath?.(path.resolve(gitDir, common));
  return commonDir && inside(commonDir, allowed) ? { gitDir, commonDir, allowed } : undefined;
}

/** The real path of the `.git` file a linked worktree's git directory names (its `gitdir` file). */
function worktreeOf(gitDir: string): string | undefined {
  const back = readIn([gitDir], `${gitDir}/gitdir`, MAX_GIT_POINTER_BYTES)?.trim();
  return back ? diskHost.realPath?.(path.resolve(gitDir, back)) : undefined;
}

/** The real path of the work tree a submodule's git directory names (`core.worktree` in its config). */
function submoduleWorktreeOf(gitDir: string): string | undefined {
  const config = readIn([gitDir], `${gitDir}/config`, MAX_GIT_FILE_BYTES);
  const worktree = config === undefined ? undefined : /^[ \t]*worktree[ \t]*=[ \t]*(\S[^\n]*)$/m.exec(config)?.[1].trim();
  return worktree ? diskHost.realPath?.(path.resolve(gitDir, worktree)) : undefined;
}

/** Names in the common directory's `refs/tags` (loose tags, not nested), at most MAX_LOOSE_TAGS. */
function looseTags(dirs: GitDirs): string[] {
  const real = diskHost.realPath?.(`${dirs.commonDir}/refs/tags`);
  if (!real || !inside(real, dirs.allowed)) return [];
  try {
    const names: string[] = [];
    const dir = fs.opendirSync(real);
    try {
      for (let e = dir.readSync(); e && names.length < MAX_LOOSE_TAGS; e = dir.readSync()) if (e.isFile()) names.push(e.name);
    } finally {
      dir.closeSync();
    }
    return names;
  } catch {
    return [];
  }
}

export function readConfined(dirs: GitDirs, file: string, maxBytes: number): string | undefined {
  return readIn(dirs.allowed, file, maxBytes);
}

/** The text of `file` when its real path lies in one of the `allowed` real folders and it is a regular file of at most `maxBytes`. */
function readIn(allowed: readonly string[], file: string, maxBytes: number): string | undefined {
  const real = diskHost.realPath?.(file);
  if (!real || !inside(real, allowed)) return undefined;
  const text = diskHost.readFile(real, maxBytes);
  return typeof text === 'string' ? text : undefined;
}

export function inside(real: string, dirs: readonly string[]): boolean {
  return dirs.some((d) => real === d || real.startsWith(d.endsWith('/') ? d : `${d}/`));
}
