/**
 * The filesystem as the core sees it. The extension backs it with the disk plus unsaved editor
 * buffers; tests back it with an in-memory map. Synchronous on purpose: the whole model is built
 * from memory-resident text, and a sync host keeps incremental updates free of interleavings.
 */
import type { SourceFile } from '../yaml/document';

export interface DirEntry {
  name: string;
  isDirectory: boolean;
  /** A symbolic link (to a file or folder, already followed for `isDirectory`): its target must stay inside the workspace. */
  link?: boolean;
  /** Why the entry cannot be read (a FIFO, a device, a broken link, its name); undefined for files and folders. */
  unreadable?: string;
  /**
   * The name itself is why (not UTF-8, or a path longer than the system allows): the entry is
   * reported whatever its kind or name, since no other check will see it.
   */
  nameUnreadable?: true;
}

/** A file that exists but was not read: why, for a diagnostic at the file. */
export interface FileNotRead {
  /** `over-budget`: the workspace's read budget (Budgets.readBytes) was spent before it. */
  readonly notRead: 'unreadable' | 'too-large' | 'over-budget';
  readonly message: string;
  /** Its size in bytes (at least), when too large. */
  readonly size?: number;
}

/** The text of a file, why it was not read, or undefined when there is no such file. */
export type FileRead = string | FileNotRead | undefined;

export interface WorkspaceHost {
  /** Reads a regular file of at most `maxBytes` bytes (checked before reading). */
  readFile(path: string, maxBytes: number): FileRead;
  /** The folder's entries, or why it could not be listed (permission denied, a path too long). */
  readDir(path: string): DirEntry[] | FileNotRead;
  /**
   * A file's exact bytes, or its size when over `maxBytes`; undefined when there is no such file.
   * Hosts not backed by the disk (a commit's tree) give it, and builds then never read the disk.
   */
  readBytes?(path: string, maxBytes: number): Uint8Array | number | undefined;
  /** The path with every symbolic link resolved; undefined when it cannot be resolved. Hosts without links omit it. */
  realPath?(path: string): string | undefined;
  /**
   * The file parsed already with exactly this text elsewhere (a commit's tree: the working tree's
   * parse of a file the change left alone), so it is not parsed again; parsed files never change.
   */
  parsed?(path: string, text: string): SourceFile | undefined;
  /**
   * The SHA-256 (hex) of `text` when it is exactly what this host read for `path` and the digest
   * is known already (the CLI's read-ahead hashes on its otherwise idle main thread); else undefined.
   */
  digest?(path: string, text: string): string | undefined;
}

export function isNotRead(read: FileRead): read is FileNotRead {
  return typeof read === 'object';
}

/** A host over a plain object `{ 'a/b.yaml': 'text' }`, rooted at `root` (used by tests and benchmarks). */
export function memoryHost(root: string, files: Record<string, string>): WorkspaceHost {
  const byPath = new Map<string, string>();
  const dirs = new Map<string, Map<string, boolean>>();
  const addDirEntry = (dir: string, name: string, isDirectory: boolean) => {
    let entries = dirs.get(dir);
    if (!entries) dirs.set(dir, (entries = new Map()));
    entries.set(name, isDirectory);
  };
  dirs.set(root, new Map());
  for (const [rel, text] of Object.entries(files)) {
    const parts = rel.split('/');
    let dir = root;
    for (let i = 0; i < parts.length - 1; i++) {
      addDirEntry(dir, parts[i], true);
      dir = `${dir}/${parts[i]}`;
      if (!dirs.has(dir)) dirs.set(dir, new Map());
    }
    addDirEntry(dir, parts[parts.length - 1], false);
    byPath.set(`${root}/${rel}`, text);
  }
  return {
    readFile(path, maxBytes) {
      const text = byPath.get(path);
      if (text !== undefined && text.length > maxBytes) return tooLarge(text.length, maxBytes);
      return text;
    },
    readDir: (path) => [...(dirs.get(path) ?? new Map<string, boolean>())].map(([name, isDirectory]) => ({ name, isDirectory })),
  };
}

export function tooLarge(size: number, maxBytes: number): FileNotRead {
  const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
  return { notRead: 'too-large', size, message: `File is ${mb(size)}, larger than the ${mb(maxBytes)} read limit; it was not read, so checks skip it (Flux would still apply it).` };
}
