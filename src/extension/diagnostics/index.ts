import * as vscode from 'vscode';
import type { FileDiagnostics } from '../../engine/protocol';
import type { Services } from '../extension';
import { codeActionProvider } from './codeActions';
import { completionProvider } from './completion';
import { hoverProvider } from './hover';
import { toVscodeDiagnostic } from './convert';

const YAML_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', language: 'yaml' },
  { scheme: 'file', pattern: '**/*.{yaml,yml}' },
];

/** Problems panel entries (rule id as code), quick fixes, `${var}` and schema hovers, schema completion; the engine sends only files that changed. */
export function registerDiagnostics(context: vscode.ExtensionContext, services: Services): void {
  const collection = vscode.languages.createDiagnosticCollection('gitops-preview');
  const publish = (files: FileDiagnostics[]) => {
    for (const f of files) {
      const uri = vscode.Uri.file(f.file);
      if (f.diagnostics.length) collection.set(uri, f.diagnostics.map(toVscodeDiagnostic));
      else collection.delete(uri);
    }
  };
  context.subscriptions.push(
    collection,
    services.engine.onDidPublishDiagnostics(publish),
    vscode.languages.registerCodeActionsProvider(YAML_SELECTOR, codeActionProvider(services.engine.client), {
      providedCodeActionKinds: [vscode.CodeActionKind.QuickFix, vscode.CodeActionKind.RefactorRewrite],
    }),
    vscode.languages.registerHoverProvider(YAML_SELECTOR, hoverProvider(services.engine.client)),
    vscode.languages.registerCompletionItemProvider(YAML_SELECTOR, completionProvider(services.engine.client), ' ', ':'),
  );
}
