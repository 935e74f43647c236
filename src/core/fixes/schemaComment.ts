/**
 * `# yaml-language-server: $schema=<url>` comments, written so that the Red Hat YAML extension
 * validates a document against a community mirror of a schema: where the document's kind is one
 * this tool validates from the schema the cluster serves (core/schema/catalog.ts), the comment is
 * not needed any more, and an action on its line removes it. Nothing is said where we hold no
 * schema for the kind: the comment is then the only validation the document has.
 */
import type { RepoModel } from '../model/graph';
import { asRecord, asString } from '../model/objects';
import { schemasFor } from '../schema/catalog';
import { SCHEMA_MODELINE } from '../schema/modeline';
import type { Range } from '../yaml/lines';
import type { QuickFix } from './types';

export function schemaCommentFixes(model: RepoModel, filePath: string, range: Range): QuickFix[] {
  const file = model.workspace.files.get(filePath);
  if (!file) return [];
  const out: QuickFix[] = [];
  for (let line = range.start.line; line <= range.end.line && line < file.lines.lineCount; line++) {
    const start = file.lines.offset({ line, character: 0 });
    const end = line + 1 < file.lines.lineCount ? file.lines.offset({ line: line + 1, character: 0 }) : file.text.length;
    if (!SCHEMA_MODELINE.test(file.text.slice(start, end).replace(/\r?\n$/, ''))) continue;
    // The document the comment heads: the one holding its line, else the next one.
    const doc = file.docs.find((d) => end <= d.range[2]);
    const value = asRecord(doc?.value);
    const apiVersion = asString(value?.apiVersion);
    const kind = asString(value?.kind);
    if (!apiVersion || !kind) continue;
    const sources = schemasFor(model, apiVersion, kind);
    if (!sources.length) continue;
    out.push({
      title: `Remove the $schema comment: ${kind} is validated from ${sources[0].origin} (no download needed)`,
      edits: [{ file: file.path, range: file.lines.range(start, end), newText: '' }],
    });
  }
  return out;
}
