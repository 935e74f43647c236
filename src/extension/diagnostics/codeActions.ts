import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import { plainRange, toPosix } from '../engineService';
import { sameDiagnostic, toVscodeRange } from './convert';

/** The engine's quick fixes as WorkspaceEdits, for the diagnostics under the cursor. */
export function codeActionProvider(engine: EngineClient): vscode.CodeActionProvider {
  return {
    async provideCodeActions(document, range, context) {
      const ours = context.diagnostics.filter((d) => d.source === 'gitops-preview');
      if (ours.length === 0) return [];
      const fixes = await engine.query('codeActions', { file: toPosix(document.uri.fsPath), range: plainRange(range), text: document.getText() }, []);
      const actions: vscode.CodeAction[] = [];
      for (const fix of fixes) {
        const shown = ours.find((v) => sameDiagnostic(v, fix.diagnostic));
        if (!shown) continue;
        const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
        const edit = new vscode.WorkspaceEdit();
        for (const e of fix.edits) edit.replace(vscode.Uri.file(e.file), toVscodeRange(e.range), e.newText);
        action.edit = edit;
        action.diagnostics = [shown];
        action.isPreferred = fix.preferred;
        actions.push(action);
      }
      return actions;
    },
  };
}
