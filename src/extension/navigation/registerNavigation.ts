import * as vscode from 'vscode';
import type { Services } from '../extension';
import type { Range } from '../../engine/protocol';
import { plainPosition, toPosix } from '../engineService';

const SELECTOR: vscode.DocumentSelector = [{ language: 'yaml', scheme: 'file' }];

const toRange = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

/** Go to Definition, document links and Find All References, answered by the engine from the editor's text. */
export function registerNavigation(context: vscode.ExtensionContext, services: Services): void {
  const engine = services.engine.client;
  const at = (document: vscode.TextDocument) => ({ file: toPosix(document.uri.fsPath), text: document.getText() });
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(SELECTOR, {
      async provideDefinition(document, position) {
        const targets = await engine.query('definition', { ...at(document), position: plainPosition(position) }, []);
        return targets.map((t) => new vscode.Location(vscode.Uri.file(t.file), toRange(t.range)));
      },
    }),
    vscode.languages.registerDocumentLinkProvider(SELECTOR, {
      async provideDocumentLinks(document) {
        const links = await engine.query('documentLinks', at(document), []);
        return links.map((l) => {
          let target: vscode.Uri;
          if (l.target.folder) {
            // A folder Flux generates a kustomization for: show it in the Explorer rather than open one file.
            const args = encodeURIComponent(JSON.stringify([vscode.Uri.file(l.target.folder)]));
            target = vscode.Uri.parse(`command:revealInExplorer?${args}`);
          } else {
            const { line, character } = l.target.range.start;
            target = vscode.Uri.file(l.target.file).with({ fragment: `L${line + 1},${character + 1}` });
          }
          const link = new vscode.DocumentLink(toRange(l.range), target);
          link.tooltip = l.tooltip;
          return link;
        });
      },
    }),
    vscode.languages.registerReferenceProvider(SELECTOR, {
      async provideReferences(document, position, ctx) {
        const refs = await engine.query('references', { ...at(document), position: plainPosition(position), includeDeclaration: ctx.includeDeclaration }, []);
        return refs.map((r) => new vscode.Location(vscode.Uri.file(r.file), toRange(r.range)));
      },
    }),
  );
}
