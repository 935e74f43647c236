import { Workspace } from './workspace/workspace';
import type { WorkspaceHost } from './workspace/host';
import { ModelBuilder, type BuildOptions, type RepoModel } from './model/graph';
import { DEFAULT_BUDGETS, type Budgets } from './budgets';
import { attachHelmInstalls } from './helm/install';
import type { SourceFile } from './yaml/document';

/**
 * A workspace and its model, kept in step: edits re-parse only the changed file, and the graph is
 * rebuilt lazily from the cached parses on the next `model()` call.
 */
export class Repo {
  readonly workspace: Workspace;
  private cached: RepoModel | undefined;
  private readonly builder: ModelBuilder;

  constructor(
    root: string,
    host: WorkspaceHost,
    private readonly options: BuildOptions = {},
    budgets: Pick<Budgets, 'readBytes'> = DEFAULT_BUDGETS,
  ) {
    this.workspace = new Workspace(root, host, budgets.readBytes);
    this.builder = new ModelBuilder(this.workspace, options);
    this.workspace.load();
  }

  /** Bumped when the model must be rebuilt although no file changed (new Kustomization builds arrived). */
  private generation = 0;
  private cachedGeneration = 0;

  model(): RepoModel {
    if (!this.cached || this.cached.version !== this.workspace.version || this.cachedGeneration !== this.generation) {
      // HelmRelease installs are the engine's answers for this model, not part of its structure.
      this.cached = attachHelmInstalls(this.builder.build(), this.options.helmInstalls);
      this.cachedGeneration = this.generation;
    }
    return this.cached;
  }

  /** Changes with every file change and every rebuild `invalidate` asks for. */
  get version(): number {
    return this.workspace.version + this.generation;
  }

  /** The next `model()` rebuilds (what the model is built from changed outside the files). */
  invalidate(): void {
    this.generation++;
  }

  /** A file changed on disk (created, saved, deleted). Returns true when the model changed. */
  fileChanged(path: string): boolean {
    return this.workspace.fileChanged(path);
  }

  /** An editor buffer changed (`undefined` when it was closed or saved). */
  setBuffer(path: string, text: string | undefined): boolean {
    const version = this.workspace.version;
    const tree = this.workspace.treeVersion;
    const before = this.workspace.files.get(path);
    const changed = this.workspace.setOverlay(path, text);
    if (changed) this.noteEdit(path, before, version, tree);
    return changed;
  }

  /**
   * Since the last model was built, nothing but buffers of files it read changed (no other file,
   * no folder, no rebuild asked for): up to which workspace version, and each edited file as that
   * model read it.
   */
  private edits: { model: RepoModel; version: number; before: Map<string, SourceFile> } | undefined;

  private noteEdit(path: string, before: SourceFile | undefined, version: number, tree: number): void {
    const model = this.cached;
    const ws = this.workspace;
    let edits = this.edits;
    if (model?.version === version && this.cachedGeneration === this.generation) edits = { model, version, before: new Map() };
    const valid = edits && edits.model === model && edits.version === version && before && ws.files.has(path) && ws.treeVersion === tree && ws.version === version + 1;
    if (!valid) {
      this.edits = undefined;
      return;
    }
    if (!edits!.before.has(path)) edits!.before.set(path, before);
    edits!.version = ws.version;
    this.edits = edits;
  }

  /**
   * The model as last built, without the rebuild `model()` may do, when since then at most the
   * buffer of `path` changed; with `before`, the file as that model read it, when it did.
   * Undefined when anything else changed.
   */
  lastModel(path: string): { model: RepoModel; before?: SourceFile } | undefined {
    const model = this.cached;
    if (!model || this.cachedGeneration !== this.generation) return undefined;
    if (model.version === this.workspace.version) return { model };
    const edits = this.edits;
    if (edits?.model !== model || edits.version !== this.workspace.version || edits.before.size !== 1 || !edits.before.has(path)) return undefined;
    return { model, before: edits.before.get(path) };
  }
}
