import * as vscode from 'vscode';
import { lensSummary } from '../../core/drift';
import type { EngineClient } from '../../engine/client';
import { toPosix } from '../engineService';
import type { DriftStore } from './store';

/** "Show Drift" above each applied Flux Kustomization / HelmRelease, and the last run's summary next to it. */
export class DriftCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly engine: EngineClient,
    private readonly store: DriftStore,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const targets = await this.engine.query('fileTargets', { file: toPosix(document.uri.fsPath) }, []);
    const lenses: vscode.CodeLens[] = [];
    for (const t of targets) {
      if (!t.applied) continue;
      const target = { kind: t.kind, namespace: t.namespace, name: t.name };
      const range = new vscode.Range(t.line, 0, t.line, 0);
      lenses.push(new vscode.CodeLens(range, { title: '$(git-compare) Show Drift', command: 'gitopsPreview.showDrift', arguments: [target] }));
      for (const run of this.store.forTarget(target)) {
        const prefix = run.report.mode === 'helm-desired' ? 'desired vs deployed: ' : '';
        const text = prefix + lensSummary(run.report).replace(/^drift: /, run.report.mode === 'helm-desired' ? '' : 'drift: ');
        lenses.push(new vscode.CodeLens(range, { title: text, command: 'gitopsPreview.focusDrift', tooltip: 'Open the drift view' }));
      }
    }
    return lenses;
  }
}
