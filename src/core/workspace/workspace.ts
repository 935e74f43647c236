import { parseSourceFile, type SourceFile } from '../yaml/document';
import type { WorkspaceHost } from './host';
import { DEFAULT_SOURCE_IGNORE, IgnoreMatcher } from './sourceignore';
import { KUSTOMIZATION_FILE_NAMES } from '../model/kinds';

/** Folders never read: VCS data, dependencies. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

export function isManifestFileName(name: string): boolean {
  return name.endsWith('.yaml') || name.endsWith('.yml') || name === 'Kustomization';
}

interface DirInfo {
  files: Set<string>;
  dirs: Set<string>;
}

/** What changed in one update: a single file's content, or the tree's shape (everything). */
export type WorkspaceChange = { kind: 'file'; path: string } | { kind: 'all' };

/**
 * Every manifest file under a root, parsed once and kept with exact ranges. Changes to one file
 * (saved or only in an editor buffer) re-parse that file alone; `version` tells the model layer
 * when to rebuild its graph.
 */
export class Workspace {
  readonly files = new Map<string, SourceFile>();
  /** Directory listing of every folder under the root (also folders without manifests). */
  private readonly dirs = new Map<string, DirInfo>();
  /** Folders holding a Helm chart (a `Chart.yaml`); their `templates/` are not Kubernetes YAML. */
  readonly chartDirs = new Set<string>();
  /** Folders left out of the scan (VCS data, dependencies, chart templates, `.sourceignore`d). */
  readonly skippedDirs = new Set<string>();
  private readonly overlays = new Map<string, string>();
  private ignore = new IgnoreMatcher();
  private _version = 0;
  private readonly listeners: ((change: WorkspaceChange) => void)[] = [];

  /** Called after every change that bumps `version`, so caches keyed on files can drop entries. */
  onChange(listener: (change: WorkspaceChange) => void): void {
    this.listeners.push(listener);
  }

  private bump(change: WorkspaceChange): void {
    this._version++;
    for (const l of this.listeners) l(change);
  }

  constructor(
    readonly root: string,
    private readonly host: WorkspaceHost,
  ) {}

  get version(): number {
    return this._version;
  }

  /** Reads the whole tree; call once, then feed changes through `update`. */
  load(): void {
    this.files.clear();
    this.dirs.clear();
    this.chartDirs.clear();
    this.skippedDirs.clear();
    this.ignore = new IgnoreMatcher();
    this.ignore.add('', DEFAULT_SOURCE_IGNORE);
    this.scanDir(this.root);
    this.bump({ kind: 'all' });
  }

  private rel(path: string): string {
    return path === this.root ? '' : path.slice(this.root.length + 1);
  }

  private scanDir(dir: string): void {
    const entries = this.host.readDir(dir);
    const sourceIgnore = entries.find((e) => !e.isDirectory && e.name === '.sourceignore');
    if (sourceIgnore) {
      const text = this.host.readFile(`${dir}/.sourceignore`);
      if (text !== undefined) this.ignore.add(this.rel(dir), text.split('\n'));
    }
    const isChart = entries.some((e) => !e.isDirectory && e.name === 'Chart.yaml');
    if (isChart) this.chartDirs.add(dir);
    const info: DirInfo = { files: new Set(), dirs: new Set() };
    this.dirs.set(dir, info);
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (SKIPPED_DIRS.has(entry.name) || (isChart && entry.name === 'templates') || this.ignore.ignores(this.rel(path), true)) {
          this.skippedDirs.add(path);
          continue;
        }
        info.dirs.add(entry.name);
        this.scanDir(path);
      } else {
        if (this.ignore.ignores(this.rel(path), false)) continue;
        info.files.add(entry.name);
        if (isManifestFileName(entry.name)) this.readAndParse(path);
      }
    }
  }

  private readAndParse(path: string): void {
    const text = this.overlays.get(path) ?? this.host.readFile(path);
    if (text === undefined) {
      this.files.delete(path);
      return;
    }
    const previous = this.files.get(path);
    if (previous && previous.text === text) return;
    this.files.set(path, parseSourceFile(path, text));
  }

  /**
   * A file was created, changed on disk or deleted. Returns true when the model must be rebuilt.
   * Directory-level changes (new folder, `.sourceignore`, `Chart.yaml`) fall back to a full reload.
   */
  fileChanged(path: string): boolean {
    // Checked first: `.git/index.lock` or a chart template must never cost a reload or a parse.
    if (this.isIgnored(path)) return false;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const dir = path.slice(0, path.lastIndexOf('/'));
    if (name === '.sourceignore' || name === 'Chart.yaml' || !this.dirs.has(dir)) {
      this.load();
      return true;
    }
    const exists = this.overlays.has(path) || this.host.readFile(path) !== undefined;
    const info = this.dirs.get(dir)!;
    if (!exists) {
      if (this.dirs.has(path)) {
        this.load();
        return true;
      }
      const listed = info.files.delete(name);
      const had = this.files.delete(path);
      if (listed || had) this.bump({ kind: 'all' });
      return had;
    }
    const isNew = !info.files.has(name);
    info.files.add(name);
    if (!isManifestFileName(name)) {
      if (isNew) this.bump({ kind: 'all' });
      return false;
    }
    const before = this.files.get(path);
    this.readAndParse(path);
    if (this.files.get(path) === before && !isNew) return false;
    this.bump(isNew ? { kind: 'all' } : { kind: 'file', path });
    return true;
  }

  /** Editor buffer contents that differ from disk; `undefined` drops the overlay. */
  setOverlay(path: string, text: string | undefined): boolean {
    if (text === undefined) this.overlays.delete(path);
    else this.overlays.set(path, text);
    return this.fileChanged(path);
  }

  /** The text the model sees for a file: the editor buffer when there is one, else the disk. */
  readText(path: string): string | undefined {
    return this.overlays.get(path) ?? this.files.get(path)?.text ?? this.host.readFile(path);
  }

  isUnderRoot(path: string): boolean {
    return path === this.root || path.startsWith(this.root + '/');
  }

  isIgnored(path: string): boolean {
    if (!this.isUnderRoot(path)) return true;
    const rel = this.rel(path);
    const parts = rel.split('/');
    if (parts.some((p) => SKIPPED_DIRS.has(p))) return true;
    for (let i = 1; i < parts.length; i++) {
      const dir = `${this.root}/${parts.slice(0, i).join('/')}`;
      if (parts[i] === 'templates' && this.chartDirs.has(dir)) return true;
    }
    return this.ignore.ignores(rel, false);
  }

  /** Whether a folder exists in the (source-ignored) tree. */
  hasDir(path: string): boolean {
    return this.dirs.has(path);
  }

  hasFile(path: string): boolean {
    const dir = this.dirs.get(path.slice(0, path.lastIndexOf('/')));
    return !!dir && dir.files.has(path.slice(path.lastIndexOf('/') + 1));
  }

  listDir(path: string): { files: ReadonlySet<string>; dirs: ReadonlySet<string> } | undefined {
    return this.dirs.get(path);
  }

  kustomizationFileIn(dir: string): string | undefined {
    const info = this.dirs.get(dir);
    if (!info) return undefined;
    const name = KUSTOMIZATION_FILE_NAMES.find((n) => info.files.has(n));
    return name ? `${dir}/${name}` : undefined;
  }

  /** Chart folder that contains `path`, if any. */
  chartDirOf(path: string): string | undefined {
    if (this.chartDirs.size === 0) return undefined;
    for (let dir = path; dir.length > this.root.length; dir = dir.slice(0, dir.lastIndexOf('/'))) {
      if (this.chartDirs.has(dir)) return dir;
    }
    return undefined;
  }
}
