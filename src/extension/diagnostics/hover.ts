import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client';
import { plainPosition, toPosix } from '../engineService';
import { toVscodeRange } from './convert';

/** Hover on `${var}`: its value for each Kustomization applying the document, and where it is defined. */
export function hoverProvider(engine: EngineClient): vscode.HoverProvider {
  return {
    async provideHover(document, position) {
      const info = await engine.query('hover', { file: toPosix(document.uri.fsPath), position: plainPosition(position), text: document.getText() }, undefined);
      if (!info) return undefined;
      const md = new vscode.MarkdownString(info.markdown);
      // Built from repository text (escaped by the core): no command links, no HTML.
      md.isTrusted = false;
      md.supportHtml = false;
      return new vscode.Hover(md, toVscodeRange(info.range));
    },
  };
}
