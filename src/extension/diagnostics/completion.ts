import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import { plainPosition, toPosix } from '../engineService';

/** Field names and enum values from the schema the cluster serves for the document (the engine decides). */
export function completionProvider(engine: EngineClient): vscode.CompletionItemProvider {
  return {
    async provideCompletionItems(document, position) {
      const items = await engine.query('completion', { file: toPosix(document.uri.fsPath), position: plainPosition(position), text: document.getText() }, []);
      return items.map((c) => {
        const item = new vscode.CompletionItem(c.label, c.kind === 'field' ? vscode.CompletionItemKind.Field : vscode.CompletionItemKind.EnumMember);
        item.detail = c.detail;
        // Plain text: a description comes from a CRD, which may be repository text.
        if (c.documentation) item.documentation = c.documentation;
        // A snippet's lines are re-indented by the editor to the line being completed.
        item.insertText = c.snippet ? new vscode.SnippetString(c.snippet) : c.insertText;
        // Required fields first.
        item.sortText = `${c.required ? '0' : '1'}${c.label}`;
        return item;
      });
    },
  };
}
