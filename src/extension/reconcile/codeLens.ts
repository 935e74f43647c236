import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import { toPosix } from '../engineService';
import type { ClusterConnection } from '../cluster/connection';

/**
 * Reconcile / Reconcile with source / Suspend or Resume above each Flux Kustomization and HelmRelease
 * that the connected cluster has. Built from the engine's targets and the watcher cache: no request per lens.
 */
export class ReconcileCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly engine: EngineClient,
    private readonly connection: ClusterConnection,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const watcher = this.connection.watcher;
    if (!watcher || !this.connection.connected) return [];
    const targets = await this.engine.query('fileTargets', { file: toPosix(document.uri.fsPath) }, []);
    const lenses: vscode.CodeLens[] = [];
    for (const t of targets) {
      const status = watcher.get(t.kind, t.namespace, t.name);
      if (!status) continue;
      const range = new vscode.Range(t.line, 0, t.line, 0);
      const arg = { kind: t.kind, namespace: t.namespace, name: t.name };
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
