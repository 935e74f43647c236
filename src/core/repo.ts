import { Workspace } from './workspace/workspace';
import type { WorkspaceHost } from './workspace/host';
import { buildModel, type BuildOptions, type RepoModel } from './model/graph';

/**
 * A workspace and its model, kept in step: edits re-parse only the changed file, and the graph is
 * rebuilt lazily from the cached parses on the next `model()` call.
 */
export class Repo {
  readonly workspace: Workspace;
  private cached: RepoModel | undefined;

  constructor(root: string, host: WorkspaceHost, private readonly options: BuildOptions = {}) {
    this.workspace = new Workspace(root, host);
    this.workspace.load();
  }

  model(): RepoModel {
    if (!this.cached || this.cached.version !== this.workspace.version) {
      this.cached = buildModel(this.workspace, this.options);
    }
    return this.cached;
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
