import * as vscode from 'vscode';
import type { Services } from '../extension';
import type { RepoModel } from '../../core/model/graph';
import type { SourceFile } from '../../core/yaml/document';
import type { Range } from '../../core/yaml/lines';
import { definitionAt, documentLinks } from '../../core/navigation/definition';
import { referencesAt } from '../../core/navigation/references';
import { toPosix } from '../repoService';

const SELECTOR: vscode.DocumentSelector = [{ language: 'yaml', scheme: 'file' }];

const toRange = (r: Range) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);

/**
 * The model and this document's parse, in step with the editor. RepoService updates buffers on
 * change events, but a provider can run first; a mismatch is fed to the model before answering.
 */
function modelFor(services: Services, document: vscode.TextDocument): { model: RepoModel; file: SourceFile } | undefined {
  const path = toPosix(document.uri.fsPath);
  const repo = services.repo.repo;
  if (!repo.workspace.isUnderRoot(path) || repo.workspace.isIgnored(path)) return undefined;
  const text = document.getText();
  if (repo.workspace.files.get(path)?.text !== text) repo.setBuffer(path, document.isDirty ? text : undefined);
  const model = services.repo.model();
  const file = model.workspace.files.get(path);
  return file && file.text === text ? { model, file } : undefined;
}

export function registerNavigation(context: vscode.ExtensionContext, services: Services): void {
  context.subscriptions.push(
    vscode.languages.registerDefinitionProvider(SELECTOR, {
      provideDefinition(document, position) {
        const at = modelFor(services, document);
        if (!at) return undefined;
        return definitionAt(at.model, at.file, position).map((t) => new vscode.Location(vscode.Uri.file(t.file), toRange(t.range)));
      },
    }),
    vscode.languages.registerDocumentLinkProvider(SELECTOR, {
      provideDocumentLinks(document) {
        const at = modelFor(services, document);
        if (!at) return [];
        return documentLinks(at.model, at.file).map((l) => {
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
      provideReferences(document, position, ctx) {
        const at = modelFor(services, document);
        if (!at) return [];
        return referencesAt(at.model, at.file, position, ctx.includeDeclaration).map((r) => new vscode.Location(vscode.Uri.file(r.file), toRange(r.range)));
      },
    }),
  );
}
