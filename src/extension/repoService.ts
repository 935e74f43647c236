import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import { Repo } from '../core/repo';
import type { BuildOptions, RepoModel } from '../core/model/graph';
import { diskHost, gitCheckout, gitRemotes } from '../node/fsHost';

/**
 * The workspace model for the first workspace folder, kept current from file events and unsaved
 * editor buffers. Every feature reads the model from here and listens to `onDidChangeModel`.
 */
export class RepoService implements vscode.Disposable {
  readonly repo: Repo;
  private readonly emitter = new vscode.EventEmitter<RepoModel>();
  readonly onDidChangeModel = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private pending: NodeJS.Timeout | undefined;

  constructor(readonly root: string, private readonly debounceMs = 150) {
    const options: BuildOptions = {
      remotes: gitRemotes(root),
      checkout: gitCheckout(root),
      sourceRoots: sourceRootsSetting(),
      sha256: (s) => createHash('sha256').update(s).digest('hex'),
    };
    this.repo = new Repo(root, diskHost, options);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('gitopsPreview.sourceRoots')) return;
        options.sourceRoots = sourceRootsSetting();
        this.reload();
      }),
    );
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, '**/*'));
    const onFile = (uri: vscode.Uri) => this.changed(this.repo.fileChanged(toPosix(uri.fsPath)));
    this.disposables.push(
      watcher,
      watcher.onDidCreate(onFile),
      watcher.onDidChange(onFile),
      watcher.onDidDelete(onFile),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.scheme !== 'file' || e.contentChanges.length === 0) return;
        const path = toPosix(e.document.uri.fsPath);
        this.changed(this.repo.setBuffer(path, e.document.isDirty ? e.document.getText() : undefined));
      }),
      vscode.workspace.onDidCloseTextDocument((d) => {
        if (d.uri.scheme === 'file') this.changed(this.repo.setBuffer(toPosix(d.uri.fsPath), undefined));
      }),
      this.emitter,
    );
  }

  model(): RepoModel {
    return this.repo.model();
  }

  /** Re-reads the whole tree (catches changes a file watcher missed) and tells every listener. */
  reload(): void {
    this.repo.workspace.load();
    this.emitter.fire(this.model());
  }

  private changed(modelChanged: boolean): void {
    if (!modelChanged) return;
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = undefined;
      this.emitter.fire(this.model());
    }, this.debounceMs);
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    for (const d of this.disposables) d.dispose();
  }
}

/** `gitopsPreview.sourceRoots`: `Kind/namespace/name` → workspace folder (string values only). */
function sourceRootsSetting(): Record<string, string> {
  const value = vscode.workspace.getConfiguration('gitopsPreview').get<unknown>('sourceRoots', {});
  const out: Record<string, string> = {};
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  }
  return out;
}

export function toPosix(fsPath: string): string {
  return fsPath.split('\\').join('/');
}
