import * as vscode from 'vscode';
import { objectsOf } from '../../core/model/objects';
import { docLine } from '../../core/yaml/document';
import type { RepoService } from '../repoService';
import { toPosix } from '../repoService';
import type { ClusterConnection } from '../status/connection';

const LENS_KINDS = new Set(['Kustomization', 'HelmRelease']);

/**
 * Reconcile / Reconcile with source / Suspend or Resume above each Flux Kustomization and HelmRelease
 * that the connected cluster has. Built from the cached model and watcher: no request per lens.
 */
export class ReconcileCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly repo: RepoService,
    private readonly connection: ClusterConnection,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const watcher = this.connection.watcher;
    if (!watcher || !this.connection.connected) return [];
    const file = this.repo.repo.workspace.files.get(toPosix(document.uri.fsPath));
    if (!file) return [];
    const model = this.repo.model();
    const lenses: vscode.CodeLens[] = [];
    for (const o of objectsOf(file)) {
      if (!LENS_KINDS.has(o.kind) || o.synthetic) continue;
      const namespace = model.appliedById.get(o.id)?.[0]?.namespace ?? o.namespace ?? 'default';
      const status = watcher.get(o.kind, namespace, o.name);
      if (!status) continue;
      const line = Math.max(0, docLine(o.doc) - 1);
      const range = new vscode.Range(line, 0, line, 0);
      const arg = { kind: o.kind, namespace, name: o.name };
      const suspended = status.state === 'Suspended';
      lenses.push(new vscode.CodeLens(range, { title: `$(pulse) ${status.state}`, command: '', tooltip: status.message ?? status.state }));
      if (!suspended) {
        lenses.push(new vscode.CodeLens(range, { title: 'Reconcile', command: 'gitopsPreview.reconcile', arguments: [arg] }));
        lenses.push(new vscode.CodeLens(range, { title: 'Reconcile with source', command: 'gitopsPreview.reconcileWithSource', arguments: [arg] }));
      }
      lenses.push(
        suspended
          ? new vscode.CodeLens(range, { title: 'Resume', command: 'gitopsPreview.resume', arguments: [arg] })
          : new vscode.CodeLens(range, { title: 'Suspend', command: 'gitopsPreview.suspend', arguments: [arg] }),
      );
    }
    return lenses;
  }
}
