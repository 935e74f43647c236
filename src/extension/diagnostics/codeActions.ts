import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import { plainRange, toPosix } from '../engineService';
import { sameDiagnostic, toVscodeRange } from './convert';

/** The engine's quick fixes as WorkspaceEdits, for the diagnostics under the cursor. */
export function codeActionProvider(engine: EngineClient): vscode.CodeActionProvider {
  return {
    async provideCodeActions(document, range, context) {
      const ours = context.diagnostics.filter((d) => d.source === 'gitops-preview');
      // Without a finding here, only an action on the text itself can apply: a `$schema` comment's line.
      if (ours.length === 0 && !/yaml-language-server:\s*\$schema=/.test(document.getText(new vscode.Range(range.start.line, 0, range.end.line + 1, 0)))) return [];
      const fixes = await engine.query('codeActions', { file: toPosix(document.uri.fsPath), range: plainRange(range), text: document.getText() }, []);
      const actions: vscode.CodeAction[] = [];
      for (const fix of fixes) {
        const shown = fix.diagnostic && ours.find((v) => sameDiagnostic(v, fix.diagnostic!));
        if (fix.diagnostic && !shown) continue;
        const action = new vscode.CodeAction(fix.title, shown ? vscode.CodeActionKind.QuickFix : vscode.CodeActionKind.RefactorRewrite);
        const edit = new vscode.WorkspaceEdit();
        for (const e of fix.edits) edit.replace(vscode.Uri.file(e.file), toVscodeRange(e.range), e.newText);
        action.edit = edit;
        if (shown) action.diagnostics = [shown];
        action.isPreferred = fix.preferred;
        actions.push(action);
      }
      return actions;
    },
  };
}
