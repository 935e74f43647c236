/**
 * The files a build sees, as an in-memory file set for the WebAssembly modules: exactly the source
 * artifact's files (a SourceView over the workspace, .sourceignore applied), unsaved editor buffers
 * included, nothing else. Paths are relative to the set's root.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SourceTree } from '../core/flux/confine';
import type { MemFile } from '../engine/wasm/protocol';
import type { SourceView } from '../core/model/view';
import type { Workspace } from '../core/workspace/workspace';

/**
 * Bytes of a workspace file: manifests come from the model (editor buffer or disk, as parsed);
 * other files are read byte for byte from disk unless an editor buffer differs from it.
 */
export function fileContent(ws: Workspace, real: string, within: string = ws.root): Buffer | string | undefined {
  if (ws.files.has(real)) return ws.readText(real);
  let disk: Buffer | undefined;
  try {
    // A file swapped for a link after indexing (a checkout, another tool) must not carry bytes from
    // outside the workspace into the build; nor may a FIFO or device stall it.
    const target = fs.realpathSync(real);
    if (!inside(within, target) || !fs.statSync(target).isFile()) return undefined;
    disk = fs.readFileSync(target);
  } catch {
    disk = undefined;
  }
  const text = ws.readText(real);
  if (disk && (text === undefined || disk.toString('utf8') === text)) return disk;
  return text;
}

/**
 * Every file of `view`, from its root; `overrides` replaces the content of some real files (the
 * inferred bootstrap objects of a placeholder gotk-sync.yaml).
 */
export function viewFiles(ws: Workspace, view: SourceView, overrides: ReadonlyMap<string, string>): MemFile[] {
  const out: MemFile[] = [];
  const walk = (vdir: string) => {
    const listing = view.listDir(vdir);
    if (!listing) return;
    for (const [name, real] of listing.files) {
      const data = overrides.get(real) ?? fileContent(ws, real);
      if (data !== undefined) out.push({ path: vdir ? `${vdir}/${name}` : name, data });
    }
    for (const sub of listing.dirs) walk(vdir ? `${vdir}/${sub}` : sub);
  };
  walk('');
  return out;
}

/** A folder from disk (a Helm chart, whose templates the workspace does not index), buffers honoured; `.git` left out. */
export function diskDirFiles(ws: Workspace, dir: string): MemFile[] {
  const out: MemFile[] = [];
  const walk = (abs: string, rel: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const from = path.join(abs, e.name);
      const to = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(from, to);
      else if (e.isFile()) {
        const data = fileContent(ws, from.split(path.sep).join('/'), dir);
        if (data !== undefined) out.push({ path: to, data });
      }
    }
  };
  walk(dir, '');
  return out;
}

export async function removeDir(dir: string): Promise<void> {
  await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/** `target` (a real path) lies in the folder `dir` (as written; links resolved here). */
function inside(dir: string, target: string): boolean {
  let root: string;
  try {
    root = fs.realpathSync(dir);
  } catch {
    return false;
  }
  return target === root || target.startsWith(root + path.sep);
}

/** An in-memory file set seen as a source tree (for the confinement check of a kustomize build). */
export function memTree(files: readonly MemFile[]): SourceTree {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const dirs = new Set<string>(['']);
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return {
    readFile: (vpath) => {
      const f = byPath.get(vpath);
      return f === undefined ? undefined : typeof f.data === 'string' ? f.data : Buffer.from(f.data).toString('utf8');
    },
    isDir: (vpath) => dirs.has(vpath),
  };
}
