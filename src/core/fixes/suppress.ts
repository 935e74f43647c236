/**
 * "Ignore this finding" as a quick fix: a `# gitops-preview: ignore <rule> -- <reason>` comment
 * above the finding's line (checks/suppress.ts reads it), or `ignore-document` / `ignore-file`.
 * The comment must leave the YAML as it was: it takes the indentation of the line it stands above,
 * and never goes inside a scalar or flow collection that spans lines (a block scalar would take it
 * as text, a quoted or plain one would end early). Where the finding's line is inside one, the
 * line cannot be ignored; the document and the file still can.
 */
import { isCollection, isScalar, visit } from 'yaml';
import type { Diagnostic } from '../checks/types';
import { DIRECTIVE } from '../checks/suppress';
import type { SourceFile, YamlDoc } from '../yaml/document';
import type { QuickFix, TextEdit } from './types';

/** What the inserted comment says until the user writes why. */
export const REASON_PLACEHOLDER = 'TODO: why this does not apply';

export function suppressionFixes(diagnostic: Diagnostic, file: SourceFile): QuickFix[] {
  // Mistakes in the settings are never silenced by them (checks/suppress.ts).
  if (diagnostic.rule === 'config-invalid' || file.path !== diagnostic.file) return [];
  const line = diagnostic.range.start.line;
  if (line < 0 || line >= file.lines.lineCount) return [];
  const eol = file.text.includes('\r\n') ? '\r\n' : '\n';
  const comment = (scope: string) => `# ${DIRECTIVE} ${scope} ${diagnostic.rule} -- ${REASON_PLACEHOLDER}`;
  const insert = (at: number, text: string): TextEdit => ({ file: file.path, range: { start: { line: at, character: 0 }, end: { line: at, character: 0 } }, newText: `${text}${eol}` });
  const fixes: QuickFix[] = [];
  const doc = file.docs.find((d) => file.lines.position(d.range[0]).line <= line && line <= file.lines.position(d.range[2]).line);
  if (!doc || !insideMultiLineNode(doc, line)) {
    fixes.push({ title: `Ignore ${diagnostic.rule} on this line`, edits: [insert(line, `${indentationOf(file, line)}${comment('ignore')}`)] });
  } else {
    // The document's first line is outside every node of it: a comment there heads the document.
    fixes.push({ title: `Ignore ${diagnostic.rule} in this document`, edits: [insert(file.lines.position(doc.start).line, comment('ignore-document'))] });
  }
  fixes.push({ title: `Ignore ${diagnostic.rule} in this file`, edits: [insert(0, comment('ignore-file'))] });
  return fixes;
}

function indentationOf(file: SourceFile, line: number): string {
  const start = file.lines.offset({ line, character: 0 });
  let end = start;
  while (file.text[end] === ' ' || file.text[end] === '\t') end++;
  return file.text.slice(start, end);
}

/** Whether `line` is a second or later line of a scalar or flow collection of the document. */
function insideMultiLineNode(doc: YamlDoc, line: number): boolean {
  const lines = doc.file.lines;
  let inside = false;
  visit(doc.node, (_key, node) => {
    if (!(isScalar(node) || (isCollection(node) && node.flow)) || !node.range) return undefined;
    const first = lines.position(node.range[0]).line;
    const last = lines.position(Math.max(node.range[0], node.range[1] - 1)).line;
    if (first < line && line <= last) {
      inside = true;
      return visit.BREAK;
    }
    // A block collection holds the line or not; only its nodes can span it.
    return undefined;
  });
  return inside;
}
