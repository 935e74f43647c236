import type { Workspace } from '../workspace/workspace';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';

/**
 * The file tree of a Flux source artifact, as paths inside the artifact ('' is its root).
 * A GitRepository of this workspace is the workspace itself; an ExternalArtifact produced by an
 * ArtifactGenerator is a set of copies ("mounts") of workspace folders and files.
 */
export interface SourceView {
  /** Cache key: equal keys mean equal trees. */
  readonly key: string;
  /** Real path of a file at `vpath`, or undefined. */
  file(vpath: string): string | undefined;
  /** Entries of the folder at `vpath`, or undefined if there is no such folder. */
  listDir(vpath: string): { files: Map<string, string>; dirs: Set<string> } | undefined;
  /** Real folder a virtual folder maps to, for editor navigation (first mount wins). */
  realDir(vpath: string): string | undefined;
  /** Whether a folder exists at `vpath` (cheaper than listDir). */
  hasDir(vpath: string): boolean;
}

/** Normalises `a/./b/../c` and strips leading `./` and `/`; returns undefined when escaping the root. */
export function normalizeVirtual(path: string): string | undefined {
  // Most paths asked for are normal already (the model asks for many; no split for those).
  if (!NOT_NORMAL.test(path)) return path;
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/** A `.` or `..` segment, an empty one, or a leading or trailing slash. */
const NOT_NORMAL = /(?:^|\/)\.{1,2}(?:\/|$)|\/\/|^\/|\/$/;

/**
 * securejoin's rule (source-controller's valuesFiles of a chart in a Git source): `..` at the root
 * stays at the root and an absolute path starts at the root, so the result is always inside.
 */
export function clampVirtual(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

export function joinVirtual(dir: string, rel: string): string | undefined {
  return normalizeVirtual(dir ? `${dir}/${rel}` : rel);
}

const workspaceViews = new WeakMap<Workspace, SourceView>();

/** The workspace root as a source artifact (one instance per workspace). */
export function workspaceView(ws: Workspace): SourceView {
  let view = workspaceViews.get(ws);
  if (!view) workspaceViews.set(ws, (view = makeWorkspaceView(ws, ws.root)));
  return view;
}

const subfolderViews = new WeakMap<Workspace, Map<string, SourceView>>();

/** A workspace folder (relative to the root) as the root of a source artifact. */
export function subfolderView(ws: Workspace, folder: string): SourceView {
  let views = subfolderViews.get(ws);
  if (!views) subfolderViews.set(ws, (views = new Map()));
  let view = views.get(folder);
  if (!view) views.set(folder, (view = makeWorkspaceView(ws, `${ws.root}/${folder}`)));
  return view;
}

function makeWorkspaceView(ws: Workspace, rootDir: string): SourceView {
  const real = (vpath: string) => (vpath ? `${rootDir}/${vpath}` : rootDir);
  return {
    key: `ws:${rootDir}`,
    hasDir: (vpath) => ws.hasDir(real(vpath)),
    file: (vpath) => (ws.hasFile(real(vpath)) ? real(vpath) : undefined),
    listDir(vpath) {
      const info = ws.listDir(real(vpath));
      if (!info) return undefined;
      return {
        files: new Map([...info.files].map((f) => [f, `${real(vpath)}/${f}`])),
        dirs: new Set(info.dirs),
      };
    },
    realDir: (vpath) => (ws.hasDir(real(vpath)) ? real(vpath) : undefined),
  };
}

/** One copy rule of an ArtifactGenerator, already resolved to a workspace location. */
export interface Mount {
  /** Folder inside the artifact ('' for its root). */
  dest: string;
  /** Real folder or file that is copied there. */
  src: string;
  /** Copy a single file to `dest` (a file path) rather than a folder's contents. */
  single: boolean;
  /** Only files whose name matches (a `*.yaml` style last segment), non-recursive. */
  filter?: { test(name: string): boolean };
}

export function mountedView(ws: Workspace, key: string, mounts: readonly Mount[]): SourceView {
  // Later copy rules overwrite earlier ones, as a sequence of `cp` would.
  const ordered = [...mounts].reverse();
  const inside = (vpath: string, dest: string): string | undefined => {
    if (dest === '') return vpath;
    if (vpath === dest) return '';
    return vpath.startsWith(dest + '/') ? vpath.slice(dest.length + 1) : undefined;
  };
  const view: SourceView = {
    key,
    hasDir: (vpath) => view.listDir(vpath) !== undefined,
    file(vpath) {
      for (const m of ordered) {
        if (m.single) {
          if (vpath === m.dest) return m.src;
          continue;
        }
        const rest = inside(vpath, m.dest);
        if (rest === undefined || rest === '') continue;
        if (m.filter && (rest.includes('/') || !m.filter.test(rest))) continue;
        const real = `${m.src}/${rest}`;
        if (ws.hasFile(real)) return real;
      }
      return undefined;
    },
    listDir(vpath) {
      let found = false;
      const files = new Map<string, string>();
      const dirs = new Set<string>();
      for (const m of mounts) {
        if (m.single) {
          const parent = m.dest.includes('/') ? m.dest.slice(0, m.dest.lastIndexOf('/')) : '';
          if (parent === vpath) {
            files.set(m.dest.slice(m.dest.lastIndexOf('/') + 1), m.src);
            found = true;
          } else if (inside(parent, vpath) !== undefined && parent !== vpath) {
            dirs.add(inside(parent, vpath)!.split('/')[0]);
            found = true;
          }
          continue;
        }
        const rest = inside(vpath, m.dest);
        if (rest !== undefined) {
          if (m.filter && rest !== '') continue;
          const info = ws.listDir(rest ? `${m.src}/${rest}` : m.src);
          if (!info) continue;
          found = true;
          for (const f of info.files) {
            if (!m.filter || m.filter.test(f)) files.set(f, `${rest ? `${m.src}/${rest}` : m.src}/${f}`);
          }
          if (!m.filter) for (const d of info.dirs) dirs.add(d);
        } else {
          const below = inside(m.dest, vpath);
          if (below !== undefined && below !== '') {
            dirs.add(below.split('/')[0]);
            found = true;
          }
        }
      }
      return found ? { files, dirs } : undefined;
    },
    realDir(vpath) {
      for (const m of mounts) {
        if (m.single) continue;
        const rest = inside(vpath, m.dest);
        if (rest === undefined) continue;
        const real = rest ? `${m.src}/${rest}` : m.src;
        if (ws.hasDir(real)) return real;
      }
      return undefined;
    },
  };
  return view;
}

export function kustomizationFileInView(view: SourceView, vdir: string): string | undefined {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const real = view.file(vdir ? `${vdir}/${name}` : name);
    if (real) return real;
  }
  return undefined;
}
