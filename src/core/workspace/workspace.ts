import { parseSourceFile, parseYaml, type SourceFile } from '../yaml/document';
import { isNotRead, type FileNotRead, type FileRead, type WorkspaceHost } from './host';
import { DEFAULT_SOURCE_IGNORE, IgnoreMatcher } from './sourceignore';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
import { DEFAULT_BUDGETS, describeBytes } from '../budgets';
import { isManifestFileName, MAX_FILE_BYTES, SKIPPED_DIRS } from './scanned';

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
  /**
   * Files (and linked folders) found but not read, with why: not a regular file, too large, a link
   * leaving the workspace or looping back into it. Reported as diagnostics, never dropped silently.
   */
  readonly notRead = new Map<string, FileNotRead>();
  /** The root with its links resolved: linked entries must resolve inside it. */
  private realRoot = '';
  private ignore = new IgnoreMatcher();
  private _version = 0;
  private _treeVersion = 0;
  private readonly listeners: ((change: WorkspaceChange) => void)[] = [];
  /** Bytes of the texts held parsed in `files`: what the read budget counts. */
  private held = 0;
  /** The first manifest the read budget left unread, and the others. */
  private overBudget: { path: string; others: Set<string> } | undefined;

  /** Called after every change that bumps `version`, so caches keyed on files can drop entries. */
  onChange(listener: (change: WorkspaceChange) => void): void {
    this.listeners.push(listener);
  }

  private bump(change: WorkspaceChange): void {
    this._version++;
    if (change.kind !== 'file') this._treeVersion++;
    for (const l of this.listeners) l(change);
  }

  constructor(
    readonly root: string,
    private readonly host: WorkspaceHost,
    /** Manifest bytes held parsed at most (Budgets.readBytes): past it, files are not read. */
    readonly readBytes: number = DEFAULT_BUDGETS.readBytes,
  ) {}

  get version(): number {
    return this._version;
  }

  /** Changes when files or folders may have appeared or vanished; not when only a file's content changed. */
  get treeVersion(): number {
    return this._treeVersion;
  }

  /** Reads the whole tree; call once, then feed changes through `update`. */
  load(): void {
    this.files.clear();
    this.dirs.clear();
    this.chartDirs.clear();
    this.skippedDirs.clear();
    this.notRead.clear();
    this.held = 0;
    this.overBudget = undefined;
    this.ignore = new IgnoreMatcher();
    this.ignore.add('', DEFAULT_SOURCE_IGNORE);
    this.realRoot = this.host.realPath?.(this.root) ?? this.root;
    this.scan();
    this.bump({ kind: 'all' });
  }

  private rel(path: string): string {
    return path === this.root ? '' : path.slice(this.root.length + 1);
  }

  /**
   * Walks the tree depth-first with an explicit stack (a deep tree must not exhaust the call stack).
   * Folders are entered once per real path, so a link back up (`a -> .`) or two links to one
   * folder cannot multiply the walk, and links resolving outside the workspace are not followed.
   */
  private scan(): void {
    const visited = new Set<string>([this.realRoot]);
    const stack: { dir: string; real: string }[] = [{ dir: this.root, real: this.realRoot }];
    while (stack.length) {
      const { dir, real } = stack.pop()!;
      const subdirs = this.scanDir(dir, real, visited);
      for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
    }
  }

  private scanDir(dir: string, realDir: string, visited: Set<string>): { dir: string; real: string }[] {
    const listed = this.host.readDir(dir);
    if (!Array.isArray(listed)) this.notRead.set(dir, listed);
    const entries = Array.isArray(listed) ? listed : [];
    const sourceIgnore = entries.find((e) => !e.isDirectory && e.name === '.sourceignore');
    if (sourceIgnore) {
      const path = `${dir}/.sourceignore`;
      const read = sourceIgnore.unreadable ? undefined : this.readConfined(path, sourceIgnore.link ? undefined : `${realDir}/.sourceignore`);
      if (typeof read === 'string') this.ignore.add(this.rel(dir), read.split('\n'));
      else if (sourceIgnore.unreadable) this.notRead.set(path, { notRead: 'unreadable', message: sourceIgnore.unreadable });
      else if (isNotRead(read)) this.notRead.set(path, read);
    }
    const isChart = entries.some((e) => !e.isDirectory && e.name === 'Chart.yaml');
    if (isChart) this.chartDirs.add(dir);
    const info: DirInfo = { files: new Set(), dirs: new Set() };
    this.dirs.set(dir, info);
    const subdirs: { dir: string; real: string }[] = [];
    for (const entry of entries) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (SKIPPED_DIRS.has(entry.name) || (isChart && entry.name === 'templates') || this.ignore.ignores(this.rel(path), true)) {
          this.skippedDirs.add(path);
          continue;
        }
        if (entry.unreadable) {
          this.notRead.set(path, { notRead: 'unreadable', message: entry.unreadable });
          continue;
        }
        const real = entry.link ? this.host.realPath?.(path) : `${realDir}/${entry.name}`;
        const refused = this.refuseLinkedDir(real, visited);
        if (refused) {
          this.notRead.set(path, { notRead: 'unreadable', message: refused });
          continue;
        }
        visited.add(real!);
        info.dirs.add(entry.name);
        subdirs.push({ dir: path, real: real! });
      } else {
        if (entry.name === '.sourceignore') continue;
        if (this.ignore.ignores(this.rel(path), false)) continue;
        if (entry.unreadable) {
          if (entry.nameUnreadable || isManifestFileName(entry.name)) this.notRead.set(path, { notRead: 'unreadable', message: entry.unreadable });
          continue;
        }
        info.files.add(entry.name);
        if (!isManifestFileName(entry.name)) continue;
        // Past the budget a file is not read (its size is checked first), but smaller ones after it
        // still are: the Flux objects that make the clusters are small, what spends a budget is not.
        const left = this.readBytes - this.held;
        const read = this.readConfined(path, entry.link ? undefined : `${realDir}/${entry.name}`, Math.min(MAX_FILE_BYTES, left));
        if (isNotRead(read) && read.notRead === 'too-large' && left < MAX_FILE_BYTES && (read.size ?? Infinity) <= MAX_FILE_BYTES) this.leaveOverBudget(path);
        else this.readAndParse(path, read);
      }
    }
    return subdirs;
  }

  /** Why a linked folder is not entered, or undefined when it may be. */
  private refuseLinkedDir(real: string | undefined, visited: Set<string>): string | undefined {
    if (real === undefined) return 'Symbolic link cannot be resolved; it was not followed.';
    if (!this.isUnderRealRoot(real)) return 'Symbolic link leads outside the workspace; it was not followed.';
    if (visited.has(real)) return `Symbolic link to a folder already read (${real === this.realRoot ? 'the workspace root' : real.slice(this.realRoot.length + 1)}); it was not read again.`;
    return undefined;
  }

  private isUnderRealRoot(real: string): boolean {
    return real === this.realRoot || real.startsWith(this.realRoot.endsWith('/') ? this.realRoot : this.realRoot + '/');
  }

  /**
   * Reads a file of the workspace through the host, bounded in size; a file whose real path (given,
   * or resolved here for links) lies outside the workspace is not read.
   */
  private readConfined(path: string, real?: string, maxBytes = MAX_FILE_BYTES): FileRead {
    if (real === undefined && this.host.realPath) {
      real = this.host.realPath(path);
      if (real !== undefined && !this.isUnderRealRoot(real)) return { notRead: 'unreadable', message: 'Symbolic link leads outside the workspace; it was not read.' };
    }
    return this.host.readFile(path, maxBytes);
  }

  private readAndParse(path: string, read: FileRead): void {
    const text = this.overlays.get(path) ?? read;
    if (typeof text !== 'string') {
      this.dropFile(path);
      if (text) this.notRead.set(path, text);
      return;
    }
    const previous = this.files.get(path);
    if (previous && previous.text === text) {
      this.notRead.delete(path);
      return;
    }
    const held = this.held - (previous?.text.length ?? 0);
    if (held + text.length > this.readBytes) {
      this.dropFile(path);
      this.leaveOverBudget(path);
      return;
    }
    this.notRead.delete(path);
    if (this.overBudget?.others.delete(path)) this.describeOverBudget();
    this.held = held + text.length;
    this.files.set(path, (!this.overlays.has(path) && this.host.parsed?.(path, text)) || parseSourceFile(path, text));
  }

  private dropFile(path: string): void {
    const previous = this.files.get(path);
    if (!previous) return;
    this.held -= previous.text.length;
    this.files.delete(path);
  }

  /** `path` is not read for the budget: the first such file says so (describeOverBudget), the others are counted. */
  private leaveOverBudget(path: string): void {
    this.overBudget ??= { path, others: new Set() };
    if (this.overBudget.path !== path) this.overBudget.others.add(path);
    this.describeOverBudget();
  }

  private overBudgetNote(more: number): FileNotRead {
    const others = more ? ` This file and ${more} more manifest file(s) were not read` : ' This file was not read';
    return {
      notRead: 'over-budget',
      message: `The workspace's manifests reached the ${describeBytes(this.readBytes)} read budget (all files together; gitops-preview --max-read-mb raises it).${others}, so checks skip them (Flux would still apply them).`,
    };
  }

  /** Names, at the first file the budget left unread, how many more the walk skipped. */
  private describeOverBudget(): void {
    if (this.overBudget) this.notRead.set(this.overBudget.path, this.overBudgetNote(this.overBudget.others.size));
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
    const read = this.overlays.has(path) ? undefined : this.readConfined(path);
    const exists = this.overlays.has(path) || read !== undefined;
    const info = this.dirs.get(dir)!;
    if (!exists) {
      this.notRead.delete(path);
      if (this.dirs.has(path)) {
        this.load();
        return true;
      }
      const listed = info.files.delete(name);
      const had = this.files.has(path);
      this.dropFile(path);
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
    const notReadBefore = this.notRead.get(path);
    this.readAndParse(path, read);
    if (this.files.get(path) === before && this.notRead.get(path) === notReadBefore && !isNew) return false;
    this.bump(isNew ? { kind: 'all' } : { kind: 'file', path });
    return true;
  }

  /** Editor buffer contents that differ from disk; `undefined` drops the overlay. */
  setOverlay(path: string, text: string | undefined): boolean {
    if (text === undefined) this.overlays.delete(path);
    else this.overlays.set(path, text);
    return this.fileChanged(path);
  }

  /** The host's own bytes of a file under the root, when the host is not the disk (host.ts, readBytes). */
  get hostBytes(): ((path: string, maxBytes: number) => Uint8Array | number | undefined) | undefined {
    const host = this.host;
    return host.readBytes && ((path, maxBytes) => (this.isUnderRoot(path) ? host.readBytes!(path, maxBytes) : undefined));
  }

  /** The SHA-256 (hex) of `text` when the host read exactly it for `path` and knows its digest (WorkspaceHost.digest). */
  knownDigest(path: string, text: string): string | undefined {
    return this.host.digest?.(path, text);
  }

  /** The text the model sees for a file: the editor buffer when there is one, else the disk. */
  readText(path: string, maxBytes = MAX_FILE_BYTES): string | undefined {
    const known = this.overlays.get(path) ?? this.files.get(path)?.text;
    if (known !== undefined || !this.isUnderRoot(path)) return known;
    const read = this.readConfined(path, undefined, maxBytes);
    return typeof read === 'string' ? read : undefined;
  }

  /**
   * A one-document YAML file's value (a kustomization file): the workspace's parse when it read
   * the file as one clean document (on a warm start, restored from the parse cache), else
   * `parseYaml` of its text, which throws what is wrong. Shared: callers copy before changing it.
   */
  yamlValue(real: string): unknown {
    const file = this.files.get(real);
    if (file && file.text === this.readText(real) && file.problems.length === 0 && file.docs.length <= 1 && file.docs.every((d) => d.problems.length === 0)) return file.docs[0]?.value ?? null;
    return parseYaml(this.readText(real) ?? '');
  }

  /**
   * Files and folders of a folder the scan left out (`.sourceignore`d): it hides files from Flux,
   * not from the scripts a person runs before Flux. Links and unreadable entries are left out.
   */
  listHiddenDir(path: string): { files: string[]; dirs: string[] } {
    const listed = this.isUnderRoot(path) ? this.host.readDir(path) : [];
    const out = { files: [] as string[], dirs: [] as string[] };
    for (const e of Array.isArray(listed) ? listed : []) {
      if (e.link || e.unreadable || SKIPPED_DIRS.has(e.name)) continue;
      (e.isDirectory ? out.dirs : out.files).push(e.name);
    }
    return out;
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
