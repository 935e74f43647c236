/**
 * Names of commits as git resolves them (gitrevisions(7)): HEAD, a full or abbreviated object
 * name, and a ref tried as given, then under refs/, refs/tags/, refs/heads/, refs/remotes/ and
 * refs/remotes/<name>/HEAD; loose refs first, then packed-refs; symbolic refs followed.
 */
import { isValidRefName, MAX_GIT_FILE_BYTES, MAX_GIT_POINTER_BYTES, readConfined } from '../gitMetadata';
import { GitError } from './limits';
import { mergeBase } from './mergeBase';
import { peelToCommit } from './objects';
import type { GitObjectStore } from './store';

const HEX = /^[0-9a-f]{4,40}$/;
const HEX40 = /^[0-9a-f]{40}$/;

/** The commit `rev` names; a GitError saying why when it names none or several. */
export function resolveCommit(store: GitObjectStore, rev: string): string {
  checkObjectFormat(store);
  const sha = resolveName(store, rev);
  if (!sha) throw new GitError(`'${rev}' names no commit in this repository`);
  return peelToCommit(store, sha);
}

function resolveName(store: GitObjectStore, rev: string): string | undefined {
  if (rev === 'HEAD' || rev === '@') return refValue(store, 'HEAD');
  for (const ref of [rev, `refs/${rev}`, `refs/tags/${rev}`, `refs/heads/${rev}`, `refs/remotes/${rev}`, `refs/remotes/${rev}/HEAD`]) {
    if (!isValidRefName(ref)) continue;
    const sha = refValue(store, ref);
    if (sha) return sha;
  }
  const hex = rev.toLowerCase();
  if (HEX40.test(hex)) return hex;
  if (HEX.test(hex)) {
    const found = store.withPrefix(hex, 2);
    if (found.length > 1) throw new GitError(`'${rev}' is ambiguous: several objects start with it`);
    return found[0];
  }
  return undefined;
}

/** The object a ref points at, symbolic refs followed (at most 5 deep, as git). */
function refValue(store: GitObjectStore, ref: string): string | undefined {
  for (let depth = 0; depth < 5; depth++) {
    const loose = looseRef(store, ref);
    const value = loose ?? packedRef(store, ref);
    if (!value) return undefined;
    if (!value.startsWith('ref: ')) return HEX40.test(value) ? value : undefined;
    ref = value.slice(5).trim();
    if (!isValidRefName(ref)) return undefined;
  }
  return undefined;
}

function looseRef(store: GitObjectStore, ref: string): string | undefined {
  const { dirs } = store;
  // HEAD and a worktree's own refs live in its git directory; the rest in the common one.
  const text = readConfined(dirs, `${dirs.gitDir}/${ref}`, MAX_GIT_POINTER_BYTES) ?? (ref === 'HEAD' ? undefined : readConfined(dirs, `${dirs.commonDir}/${ref}`, MAX_GIT_POINTER_BYTES));
  return text?.trim() || undefined;
}

function packedRef(store: GitObjectStore, ref: string): string | undefined {
  const text = readConfined(store.dirs, `${store.dirs.commonDir}/packed-refs`, MAX_GIT_FILE_BYTES);
  if (!text) return undefined;
  for (const line of text.split('\n')) {
    if (line.length === 41 + ref.length && line.endsWith(ref) && line[40] === ' ') return line.slice(0, 40);
  }
  return undefined;
}

/** Config values as `section.subsection.key` (lowercased section and key), the last one winning. */
export function gitConfig(store: GitObjectStore): Map<string, string> {
  const text = readConfined(store.dirs, `${store.dirs.commonDir}/config`, MAX_GIT_FILE_BYTES) ?? '';
  const out = new Map<string, string>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const close = line.lastIndexOf(']');
      const inner = line.slice(1, close < 0 ? undefined : close).trim();
      const quote = inner.indexOf('"');
      section = quote < 0 ? inner.toLowerCase() : `${inner.slice(0, quote).trim().toLowerCase()}.${inner.slice(quote + 1, inner.lastIndexOf('"'))}`;
      continue;
    }
    const eq = line.indexOf('=');
    const key = (eq < 0 ? line : line.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? 'true' : line.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    out.set(`${section}.${key}`, value);
  }
  return out;
}

function checkObjectFormat(store: GitObjectStore): void {
  const format = gitConfig(store).get('extensions.objectformat');
  if (format && format.toLowerCase() !== 'sha1') throw new GitError(`the repository uses ${format} object names; only SHA-1 repositories are read`);
}

/** The branch HEAD names (`feature/x`), or undefined when HEAD is detached. */
export function checkedOutBranch(store: GitObjectStore): string | undefined {
  const headRef = looseRef(store, 'HEAD');
  return headRef?.startsWith('ref: refs/heads/') ? headRef.slice('ref: refs/heads/'.length) : undefined;
}

/**
 * The checked-out branch's upstream as a ref (`branch.<b>.remote` and `.merge`:
 * `refs/remotes/origin/main`, or `refs/heads/main` for a local upstream), or undefined.
 */
export function upstreamOf(store: GitObjectStore): string | undefined {
  const branch = checkedOutBranch(store);
  if (!branch) return undefined;
  const config = gitConfig(store);
  const remote = config.get(`branch.${branch}.remote`);
  const merge = config.get(`branch.${branch}.merge`);
  if (!remote || !merge?.startsWith('refs/heads/')) return undefined;
  const ref = remote === '.' ? merge : `refs/remotes/${remote}/${merge.slice('refs/heads/'.length)}`;
  return isValidRefName(ref) ? ref : undefined;
}

/** `origin/main` for `refs/remotes/origin/main`, `main` for `refs/heads/main`. */
export function shortRefName(ref: string): string {
  return ref.replace(/^refs\/(heads|remotes)\//, '');
}

/**
 * The default base: the merge-base of HEAD with the checked-out branch's upstream, else with
 * `main`, `origin/main`, `master` or `origin/master`. Returns the commit and the name it was found by.
 */
export function defaultBase(store: GitObjectStore): { sha: string; name: string } {
  const head = resolveCommit(store, 'HEAD');
  const upstream = upstreamOf(store);
  const candidates = [...(upstream ? [upstream] : []), 'main', 'origin/main', 'master', 'origin/master'];
  for (const name of candidates) {
    let tip: string;
    try {
      tip = resolveCommit(store, name);
    } catch {
      continue;
    }
    const base = mergeBase(store, head, tip);
    if (base) return { sha: base, name: `merge-base of HEAD and ${shortRefName(name)}` };
  }
  throw new GitError('no base to compare with: the branch has no upstream and there is no main or master; give one with --base REF');
}
