/**
 * Copies a source artifact (a SourceView over the workspace) into a private temp dir, so builds
 * never write into the user's folders and see unsaved editor buffers.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Workspace } from '../core/workspace/workspace';
import type { SourceView } from '../core/model/view';
import type { SourceTree } from '../core/render/confine';

export async function makeTempDir(prefix: string): Promise<string> {
  return fs.promises.mkdtemp(path.join(os.tmpdir(), `gitops-preview-${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Bytes of a workspace file: manifests come from the model (editor buffer or disk, as parsed);
 * other files are copied byte for byte from disk unless an editor buffer differs from it.
 */
export function fileContent(ws: Workspace, real: string): Buffer | string | undefined {
  if (ws.files.has(real)) return ws.readText(real);
  let disk: Buffer | undefined;
  try {
    disk = fs.readFileSync(real);
  } catch {
    disk = undefined;
  }
  const text = ws.readText(real);
  if (disk && (text === undefined || disk.toString('utf8') === text)) return disk;
  return text;
}

/**
 * Symbolic links in the workspace: source-controller's artifacts hold regular files and folders
 * only, and a link may point anywhere on this machine, so nothing is staged through one.
 */
export class LinkGuard {
  private readonly realRoot: string | undefined;
  private readonly dirs = new Map<string, boolean>();
  /** Links met, with where they point (outside the workspace or not), for the render's warnings. */
  readonly skipped = new Map<string, string>();

  constructor(private readonly root: string) {
    try {
      this.realRoot = fs.realpathSync(root);
    } catch {
      this.realRoot = undefined;
    }
  }

  /** Whether `real` (a workspace path) is reached through no symbolic link; a path not on disk (an unsaved buffer) counts as its folder. */
  linkFree(real: string): boolean {
    const rel = path.relative(this.root, real);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return this.note(real, false);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(real);
    } catch {
      st = undefined;
    }
    if (st?.isSymbolicLink()) return this.note(real, false);
    if (st && !st.isFile() && !st.isDirectory()) return false;
    return this.dirLinkFree(st?.isDirectory() ? real : path.dirname(real));
  }

  private dirLinkFree(dir: string): boolean {
    const known = this.dirs.get(dir);
    if (known !== undefined) return known;
    const rel = path.relative(this.root, dir);
    let free: boolean;
    // A root that is not on disk (a workspace held in memory) has nothing below it to link.
    if (rel === '') free = true;
    else if (rel.startsWith('..') || path.isAbsolute(rel)) free = false;
    else {
      let real: string | undefined;
      try {
        real = fs.realpathSync(dir);
      } catch {
        real = undefined; // not on disk: as good as its parent
      }
      free = real === undefined ? this.dirLinkFree(path.dirname(dir)) : real === path.join(this.realRoot ?? '\0', rel);
      if (!free && real !== undefined) this.note(dir, false);
    }
    this.dirs.set(dir, free);
    return free;
  }

  private note(p: string, result: boolean): boolean {
    if (!this.skipped.has(p)) {
      let target = '';
      try {
        target = fs.realpathSync(p);
      } catch {
        target = '(unresolvable)';
      }
      const outside = this.realRoot === undefined || (target !== this.realRoot && !target.startsWith(this.realRoot + path.sep));
      this.skipped.set(p, outside ? `points outside the workspace (${target})` : 'is a symbolic link');
    }
    return result;
  }

  /** Render warnings for the links met. */
  warnings(): string[] {
    if (this.skipped.size === 0) return [];
    const rel = (p: string) => path.relative(this.root, p).split(path.sep).join('/');
    const list = [...this.skipped].slice(0, 5).map(([p, why]) => `'${rel(p)}' ${why}`);
    if (this.skipped.size > 5) list.push(`and ${this.skipped.size - 5} more`);
    return [`Symbolic links are not part of a Flux source artifact and were left out of the build: ${list.join('; ')}.`];
  }
}

/**
 * Writes every file of `view` (from its root) below `dest`, regular files only; `overrides`
 * replaces the content of some real files (the inferred bootstrap objects of a placeholder
 * gotk-sync.yaml). Returns the number of files written.
 */
export async function stageView(ws: Workspace, view: SourceView, dest: string, overrides: ReadonlyMap<string, string>, links: LinkGuard, signal?: AbortSignal): Promise<number> {
  const jobs: { target: string; real: string }[] = [];
  const dirs: string[] = [dest];
  const walk = (vdir: string) => {
    const listing = view.listDir(vdir);
    if (!listing) return;
    const base = vdir ? path.join(dest, vdir) : dest;
    if (vdir) dirs.push(base);
    for (const [name, real] of listing.files) if (overrides.has(real) || links.linkFree(real)) jobs.push({ target: path.join(base, name), real });
    for (const sub of listing.dirs) walk(vdir ? `${vdir}/${sub}` : sub);
  };
  walk('');
  for (const d of dirs) await fs.promises.mkdir(d, { recursive: true });
  const BATCH = 32;
  let written = 0;
  for (let i = 0; i < jobs.length; i += BATCH) {
    if (signal?.aborted) throw new Error('cancelled');
    await Promise.all(
      jobs.slice(i, i + BATCH).map(async ({ target, real }) => {
        const content = overrides.get(real) ?? fileContent(ws, real);
        if (content === undefined) return;
        // 'wx': never write through something already at the target.
        await fs.promises.writeFile(target, content, { flag: 'wx' });
        written++;
      }),
    );
  }
  return written;
}

/** Copies a folder from disk (a Helm chart, whose templates the workspace does not index): regular files only, buffers honoured. */
export async function stageDiskDir(ws: Workspace, src: string, dest: string): Promise<void> {
  await fs.promises.mkdir(dest, { recursive: true });
  const entries = await fs.promises.readdir(src, { withFileTypes: true });
  for (const e of entries) {
    if (e.name === '.git') continue;
    const from = path.join(src, e.name);
    const to = path.join(dest, e.name);
    // Dirent types come from lstat: a symbolic link is neither a directory nor a file here.
    if (e.isDirectory()) await stageDiskDir(ws, from, to);
    else if (e.isFile()) {
      const content = fileContent(ws, from.split(path.sep).join('/'));
      if (content !== undefined) await fs.promises.writeFile(to, content, { flag: 'wx' });
    }
  }
}

/** A staged copy as the confinement check reads it: regular files and folders below `root`, never through a link. */
export function stagedTree(root: string): SourceTree {
  const at = (vpath: string) => (vpath ? path.join(root, ...vpath.split('/')) : root);
  const stat = (vpath: string) => {
    try {
      return fs.lstatSync(at(vpath));
    } catch {
      return undefined;
    }
  };
  return {
    readFile(vpath) {
      if (!stat(vpath)?.isFile()) return undefined;
      try {
        return fs.readFileSync(at(vpath), 'utf8');
      } catch {
        return undefined;
      }
    },
    isDir: (vpath) => stat(vpath)?.isDirectory() === true,
  };
}
