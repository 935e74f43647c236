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
import { MAX_FILE_BYTES } from '../core/workspace/scanned';

/**
 * What one build may take from the repository beyond its manifests (generator inputs, patches,
 * chart files, anything else in the source): each file at most `maxFileBytes`, as the model reads
 * manifests, and all of them together at most `maxTotalBytes`, so that a repository holding large
 * files cannot exhaust memory. Files left out are named when the build fails.
 */
export class InputBudget {
  /** Files left out, with why (paths as the build sees them). */
  readonly skipped: string[] = [];
  private total = 0;
  constructor(
    readonly maxFileBytes: number = MAX_FILE_BYTES,
    readonly maxTotalBytes: number = MAX_INPUT_TOTAL_BYTES,
  ) {}

  /** Counts `bytes` of `name` against the total; false (and the file is noted) when over it. */
  take(name: string, bytes: number): boolean {
    if (this.total + bytes > this.maxTotalBytes) {
      this.skipped.push(`${name} (the build's files would exceed ${mb(this.maxTotalBytes)} together)`);
      return false;
    }
    this.total += bytes;
    return true;
  }

  tooLarge(name: string, bytes: number): void {
    this.skipped.push(`${name} (${mb(bytes)}, over the ${mb(this.maxFileBytes)} limit for one file)`);
  }

  /** A note for a failed build's message, when files were left out (they may be what it missed). */
  describe(): string | undefined {
    if (!this.skipped.length) return undefined;
    const shown = this.skipped.slice(0, 5).map((s) => `  ${s}`);
    if (this.skipped.length > 5) shown.push(`  ... and ${this.skipped.length - 5} more`);
    return `These files were not given to the build:\n${shown.join('\n')}`;
  }
}

/** All the files one build is given together (the in-memory set is copied into the module's memory). */
export const MAX_INPUT_TOTAL_BYTES = 256 * 1024 * 1024;

/**
 * The budget of a Kustomization build's file set: the workspace's read budget too (Budgets.readBytes),
 * so that manifests the walk left unread for it do not all come back through the builds.
 */
export function sourceInputBudget(ws: Workspace): InputBudget {
  return new InputBudget(MAX_FILE_BYTES, Math.min(MAX_INPUT_TOTAL_BYTES, ws.readBytes));
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MB`;
}

/**
 * Bytes of a workspace file: manifests come from the model (editor buffer or disk, as parsed);
 * other files are read byte for byte from disk (or the host's own bytes), bounded by `budget`,
 * unless an editor buffer differs from it. `name` is the file as the build sees it (for the budget's notes).
 */
export function fileContent(ws: Workspace, real: string, within: string = ws.root, budget: InputBudget = new InputBudget(), name: string = real): Buffer | string | undefined {
  if (ws.files.has(real)) {
    const text = ws.readText(real);
    return text === undefined || budget.take(name, text.length) ? text : undefined;
  }
  // A host with its own bytes (a commit's tree) is the only source of the files under its root: the
  // disk holds another version there. A chart in the chart cache is outside the root, on disk.
  const own = ws.hostBytes;
  if (own && ws.isUnderRoot(real)) {
    const read = own(real, budget.maxFileBytes);
    if (typeof read === 'number') budget.tooLarge(name, read);
    else if (read !== undefined && budget.take(name, read.length)) return Buffer.from(read.buffer, read.byteOffset, read.length);
    return undefined;
  }
  let disk: Buffer | undefined;
  try {
    // A file swapped for a link after indexing (a checkout, another tool) must not carry bytes from
    // outside the workspace into the build; nor may a FIFO or device stall it.
    const target = fs.realpathSync(real);
    if (!inside(within, target)) return undefined;
    const read = readBounded(target, budget.maxFileBytes);
    if (read === undefined) return undefined;
    if (typeof read === 'number') {
      budget.tooLarge(name, read);
      return undefined;
    }
    disk = read;
  } catch {
    disk = undefined;
  }
  const text = ws.readText(real);
  const data = disk && (text === undefined || disk.toString('utf8') === text) ? disk : text;
  return data === undefined || budget.take(name, data.length) ? data : undefined;
}

/**
 * A regular file's bytes, or its size when over `maxBytes`; undefined for anything else. Opened
 * without blocking and checked on the open descriptor; the read itself stops past `maxBytes` (a
 * file can grow after the check).
 */
function readBounded(file: string, maxBytes: number): Buffer | number | undefined {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (stat.size > maxBytes) return stat.size;
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let n = 0;
    for (let r; n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
    return n > maxBytes ? n : buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Every file of `view`, from its root; `overrides` replaces the content of some real files (the
 * inferred bootstrap objects of a placeholder gotk-sync.yaml).
 */
export function viewFiles(ws: Workspace, view: SourceView, overrides: ReadonlyMap<string, string>, budget: InputBudget = new InputBudget()): MemFile[] {
  const out: MemFile[] = [];
  for (const { path: vpath, real } of viewListing(view)) {
    const data = overrides.get(real) ?? fileContent(ws, real, ws.root, budget, vpath);
    if (data !== undefined) out.push({ path: vpath, data });
  }
  return out;
}

/** Every file of a view, in viewFiles' order: its path as the build sees it and in the workspace. */
export function viewListing(view: SourceView): { path: string; real: string }[] {
  const out: { path: string; real: string }[] = [];
  const walk = (vdir: string) => {
    const listing = view.listDir(vdir);
    if (!listing) return;
    for (const [name, real] of listing.files) out.push({ path: vdir ? `${vdir}/${name}` : name, real });
    for (const sub of listing.dirs) walk(vdir ? `${vdir}/${sub}` : sub);
  };
  walk('');
  return out;
}

/**
 * A folder from disk (a Helm chart, whose templates the workspace does not index), buffers honoured; `.git` left out.
 * A folder of a commit's tree (a host with its own bytes) is listed from that tree.
 */
export function diskDirFiles(ws: Workspace, dir: string, budget: InputBudget = new InputBudget()): MemFile[] {
  if (ws.hostBytes && ws.isUnderRoot(dir)) return hostDirFiles(ws, dir, budget);
  const out: MemFile[] = [];
  const walk = (abs: string, rel: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const from = path.join(abs, e.name);
      const to = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(from, to);
      else if (e.isFile()) {
        const data = fileContent(ws, from.split(path.sep).join('/'), dir, budget, to);
        if (data !== undefined) out.push({ path: to, data });
      }
    }
  };
  walk(dir, '');
  return out;
}

/** diskDirFiles of a folder of the host's own tree: links and unreadable entries are left out, as the walk does. */
function hostDirFiles(ws: Workspace, dir: string, budget: InputBudget): MemFile[] {
  const out: MemFile[] = [];
  const walk = (abs: string, rel: string) => {
    const { files, dirs } = ws.listHiddenDir(abs);
    for (const name of files.sort()) {
      const to = rel ? `${rel}/${name}` : name;
      const data = fileContent(ws, `${abs}/${name}`, dir, budget, to);
      if (data !== undefined) out.push({ path: to, data });
    }
    for (const name of dirs.sort()) walk(`${abs}/${name}`, rel ? `${rel}/${name}` : name);
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
export function memTree(files: readonly MemFile[], dirs: ReadonlySet<string> = memDirs(files)): SourceTree {
  const byPath = new Map(files.map((f) => [f.path, f]));
  return {
    readFile: (vpath) => {
      const f = byPath.get(vpath);
      return f === undefined ? undefined : typeof f.data === 'string' ? f.data : Buffer.from(f.data).toString('utf8');
    },
    isDir: (vpath) => dirs.has(vpath),
  };
}

/** The folders of a file set (its root included). */
export function memDirs(files: readonly MemFile[]): Set<string> {
  const dirs = new Set<string>(['']);
  for (const f of files) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return dirs;
}
