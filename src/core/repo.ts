import { Workspace } from './workspace/workspace';
import type { WorkspaceHost } from './workspace/host';
import { ModelBuilder, type BuildOptions, type RepoModel } from './model/graph';
import { DEFAULT_BUDGETS, type Budgets } from './budgets';
import { attachHelmInstalls } from './helm/install';

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
    return this.workspace.setOverlay(path, text);
  }
}
