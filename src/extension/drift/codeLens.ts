import * as vscode from 'vscode';
import { lensSummary } from '../../core/drift';
import { objectsOf } from '../../core/model/objects';
import { docLine } from '../../core/yaml/document';
import type { RepoService } from '../repoService';
import { toPosix } from '../repoService';
import type { DriftStore } from './store';

const KINDS = new Set(['Kustomization', 'HelmRelease']);

/** "Show Drift" above each Flux Kustomization / HelmRelease, and the last run's summary next to it. */
export class DriftCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly repo: RepoService,
    private readonly store: DriftStore,
  ) {}

  refresh(): void {
    this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const file = this.repo.repo.workspace.files.get(toPosix(document.uri.fsPath));
    if (!file) return [];
    const model = this.repo.model();
    const lenses: vscode.CodeLens[] = [];
    for (const o of objectsOf(file)) {
      if (!KINDS.has(o.kind) || o.synthetic || !o.fluxKind) continue;
      const applied = model.appliedById.get(o.id)?.[0];
      if (!applied) continue;
      const target = { kind: o.kind, namespace: applied.namespace ?? 'flux-system', name: o.name };
      const line = Math.max(0, docLine(o.doc) - 1);
      const range = new vscode.Range(line, 0, line, 0);
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
