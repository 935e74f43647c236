/**
 * A commit's tree as a WorkspaceHost: the model and the builds read the repository as it was at
 * that commit exactly as they read the working tree, under the same root path (so builds, paths
 * and findings compare one to one). Nothing touches the working tree or the disk beyond `.git`.
 */
import { createHash } from 'node:crypto';
import { tooLarge, type DirEntry, type FileRead, type WorkspaceHost } from '../../core/workspace/host';
import { GitError } from './limits';
import { readCommit, readTree, type TreeEntry } from './objects';
import type { GitObjectStore } from './store';

/**
 * `root` shows the tree of `commit` at `prefix` (the folder of the repository `root` is, '' for
 * its top). A Git error while reading (a corrupt object, a limit) makes the file or folder
 * unreadable, named with the reason, as a disk error would. `known` gives a text read already for
 * a path (the working tree's): when its blob id is the commit's, it is the file, and the blob is
 * not inflated again.
 */
export function commitHost(store: GitObjectStore, commit: string, root: string, prefix = '', known?: (path: string) => string | undefined): WorkspaceHost {
  const top = readCommit(store, commit).tree;
  const trees = new Map<string, Map<string, TreeEntry> | undefined>();
  const treeAt = (rel: string): Map<string, TreeEntry> | undefined => {
    if (trees.has(rel)) return trees.get(rel);
    let entries: Map<string, TreeEntry> | undefined;
    if (rel === '') {
      entries = new Map(readTree(store, top).map((e) => [e.name, e]));
    } else {
      const slash = rel.lastIndexOf('/');
      const entry = treeAt(slash < 0 ? '' : rel.slice(0, slash))?.get(rel.slice(slash + 1));
      entries = entry?.kind === 'dir' ? new Map(readTree(store, entry.sha).map((e) => [e.name, e])) : undefined;
    }
    trees.set(rel, entries);
    return entries;
  };
  /** The repository path of a host path, or undefined outside `root`. */
  const relOf = (path: string): string | undefined => {
    const inner = path === root ? '' : path.startsWith(`${root}/`) ? path.slice(root.length + 1) : undefined;
    if (inner === undefined) return undefined;
    return [prefix, inner].filter(Boolean).join('/');
  };
  const entryAt = (path: string): TreeEntry | undefined => {
    const rel = relOf(path);
    if (!rel) return undefined;
    const slash = rel.lastIndexOf('/');
    return treeAt(slash < 0 ? '' : rel.slice(0, slash))?.get(rel.slice(slash + 1));
  };
  const unreadable = (err: unknown) => {
    if (!(err instanceof GitError)) throw err;
    return { notRead: 'unreadable' as const, message: `File could not be read from Git (${err.message}); checks skip it.` };
  };
  const blob = (path: string, maxBytes: number): Buffer | number | undefined => {
    const entry = entryAt(path);
    if (entry?.kind !== 'file') return undefined;
    const data = store.readTyped(entry.sha, 'blob');
    return data.length > maxBytes ? data.length : data;
  };
  const sameText = (path: string, maxBytes: number): string | undefined => {
    const text = known?.(path);
    if (text === undefined) return undefined;
    const entry = entryAt(path);
    if (entry?.kind !== 'file') return undefined;
    const bytes = Buffer.from(text, 'utf8');
    return bytes.length <= maxBytes && blobId(bytes) === entry.sha ? text : undefined;
  };
  return {
    readFile(path, maxBytes): FileRead {
      try {
        const same = sameText(path, maxBytes);
        if (same !== undefined) return same;
        const data = blob(path, maxBytes);
        if (typeof data === 'number') return tooLarge(data, maxBytes);
        return data?.toString('utf8');
      } catch (err) {
        return unreadable(err);
      }
    },
    readBytes(path, maxBytes) {
      try {
        return blob(path, maxBytes);
      } catch (err) {
        unreadable(err);
        return undefined;
      }
    },
    readDir(path) {
      const rel = relOf(path);
      try {
        const entries = rel === undefined ? undefined : treeAt(rel);
        return [...(entries?.values() ?? [])].flatMap((e): DirEntry[] => {
          if (e.kind === 'dir' || e.kind === 'file') return [{ name: e.name, isDirectory: e.kind === 'dir' }];
          // A submodule's files are not in this repository's objects (Flux leaves them out unless asked).
          if (e.kind === 'submodule') return [];
          return [{ name: e.name, isDirectory: false, unreadable: 'Symbolic link in the base commit; it is not followed there.' }];
        });
      } catch (err) {
        if (!(err instanceof GitError)) throw err;
        return { notRead: 'unreadable', message: `Folder could not be read from Git (${err.message}); nothing in it was read.` };
      }
    },
  };
}

/** Git's object id of a blob with these bytes (SHA-1 of its header and content). */
function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
