import * as vscode from 'vscode';
import { checkModel, type Diagnostic } from '../../core/checks/index';
import type { RepoModel } from '../../core/model/graph';
import type { Services } from '../extension';
import { toPosix } from '../repoService';
import { codeActionProvider } from './codeActions';
import { hoverProvider } from './hover';
import { toVscodeDiagnostic } from './convert';

const YAML_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', language: 'yaml' },
  { scheme: 'file', pattern: '**/*.{yaml,yml}' },
];

/** Latest check results, shared by the Problems panel, quick fixes and tests. */
export class DiagnosticsState {
  byFile = new Map<string, Diagnostic[]>();
  private published = new Map<string, string>();

  constructor(private readonly collection: vscode.DiagnosticCollection, private readonly output: vscode.OutputChannel) {}

  /** Re-checks the model and republishes only the files whose diagnostics changed. */
  update(model: RepoModel): void {
    const result = checkModel(model);
    for (const f of result.failures) this.output.appendLine(`[checks] internal error in ${f.rules}: ${f.message}`);
    const byFile = new Map<string, Diagnostic[]>();
    for (const d of result.diagnostics) {
      const list = byFile.get(d.file);
      if (list) list.push(d);
      else byFile.set(d.file, [d]);
    }
    this.byFile = byFile;
    for (const file of this.published.keys()) {
      if (!byFile.has(file)) {
        this.collection.delete(vscode.Uri.file(file));
        this.published.delete(file);
      }
    }
    for (const [file, list] of byFile) {
      const key = JSON.stringify(list.map((d) => [d.rule, d.severity, d.range, d.message, d.related]));
      if (this.published.get(file) === key) continue;
      this.published.set(file, key);
      this.collection.set(vscode.Uri.file(file), list.map(toVscodeDiagnostic));
    }
  }

  at(file: string): Diagnostic[] {
    return this.byFile.get(file) ?? [];
  }
}

/** Problems panel entries (rule id as code), quick fixes and `${var}` hovers. */
export function registerDiagnostics(context: vscode.ExtensionContext, services: Services): void {
  const collection = vscode.languages.createDiagnosticCollection('gitops-preview');
  const state = new DiagnosticsState(collection, services.output);
  const run = (model: RepoModel) => {
    try {
      state.update(model);
    } catch (err) {
      services.output.appendLine(`[checks] failed: ${(err as Error).stack ?? err}`);
    }
  };
  context.subscriptions.push(
    collection,
    services.repo.onDidChangeModel(run),
    vscode.languages.registerCodeActionsProvider(YAML_SELECTOR, codeActionProvider(services, state), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
    }),
    vscode.languages.registerHoverProvider(YAML_SELECTOR, hoverProvider(services)),
  );
  run(services.repo.model());
}

export { toPosix };
