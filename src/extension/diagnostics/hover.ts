import * as vscode from 'vscode';
import { describeSubstitution } from '../../core/substitution/describe';
import type { Services } from '../extension';
import { toPosix } from '../repoService';

/** Hover on `${var}`: its value for each Kustomization applying the document, and where it is defined. */
export function hoverProvider(services: Services): vscode.HoverProvider {
  return {
    provideHover(document, position) {
      const model = services.repo.model();
      const file = model.workspace.files.get(toPosix(document.uri.fsPath));
      // The model trails the buffer by the debounce; offsets are only valid for the same text.
      if (!file || file.text !== document.getText()) return undefined;
      const info = describeSubstitution(model, file.path, document.offsetAt(position));
      if (!info) return undefined;
      const md = new vscode.MarkdownString(info.markdown);
      md.isTrusted = false;
      return new vscode.Hover(md, new vscode.Range(document.positionAt(info.start), document.positionAt(info.end)));
    },
  };
}
