import * as vscode from 'vscode';
import { quickFixes } from '../../core/fixes/index';
import type { Services } from '../extension';
import { toPosix } from '../repoService';
import { sameDiagnostic, toVscodeRange } from './convert';
import type { DiagnosticsState } from './index';

/** Turns the core's pure quick fixes into WorkspaceEdits for the diagnostics under the cursor. */
export function codeActionProvider(services: Services, state: DiagnosticsState): vscode.CodeActionProvider {
  return {
    provideCodeActions(document, _range, context) {
      const ours = context.diagnostics.filter((d) => d.source === 'gitops-preview');
      if (ours.length === 0) return [];
      const model = services.repo.model();
      const actions: vscode.CodeAction[] = [];
      for (const core of state.at(toPosix(document.uri.fsPath))) {
        const shown = ours.find((v) => sameDiagnostic(v, core));
        if (!shown) continue;
        for (const fix of quickFixes(core, model)) {
          const action = new vscode.CodeAction(fix.title, vscode.CodeActionKind.QuickFix);
          const edit = new vscode.WorkspaceEdit();
          for (const e of fix.edits) edit.replace(vscode.Uri.file(e.file), toVscodeRange(e.range), e.newText);
          action.edit = edit;
          action.diagnostics = [shown];
          action.isPreferred = fix.preferred;
          actions.push(action);
        }
      }
      return actions;
    },
  };
}
