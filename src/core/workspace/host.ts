/**
 * The filesystem as the core sees it. The extension backs it with the disk plus unsaved editor
 * buffers; tests back it with an in-memory map. Synchronous on purpose: the whole model is built
 * from memory-resident text, and a sync host keeps incremental updates free of interleavings.
 */
export interface DirEntry {
  name: string;
  isDirectory: boolean;
}

export interface WorkspaceHost {
  readFile(path: string): string | undefined;
  readDir(path: string): DirEntry[];
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
    readFile: (path) => byPath.get(path),
    readDir: (path) => [...(dirs.get(path) ?? new Map<string, boolean>())].map(([name, isDirectory]) => ({ name, isDirectory })),
  };
}
