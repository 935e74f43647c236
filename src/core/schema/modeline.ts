/**
 * `# yaml-language-server: $schema=<url>` comments: the Red Hat YAML extension validates, completes
 * and hovers the document such a comment heads against the schema at the URL.
 */
import type { SourceFile, YamlDoc } from '../yaml/document';
import type { Range } from '../yaml/lines';

export const SCHEMA_MODELINE = /^\s*#\s*yaml-language-server:\s*\$schema=(\S+)\s*$/;

export interface Modeline {
  readonly url: string;
  /** The comment's whole line. */
  readonly range: Range;
  /** Offsets of the line, its line break included. */
  readonly start: number;
  readonly end: number;
}

/** The modeline heading `doc`: between the previous document's content (or its `---`) and this one's. */
export function modelineOf(doc: YamlDoc): Modeline | undefined {
  const file = doc.file;
  const prev = doc.index > 0 ? file.docs[doc.index - 1] : undefined;
  let from = prev ? prev.end : 0;
  if (prev) {
    // Comments after the previous content but before this document's `---` are the previous document's.
    const separator = file.text.lastIndexOf('\n---', doc.start);
    if (separator >= from) from = separator + 1;
  }
  return modelineIn(file, from, doc.start);
}

/** The first modeline whose line lies within [from, to). */
export function modelineIn(file: SourceFile, from: number, to: number): Modeline | undefined {
  const first = file.lines.position(from).line;
  const last = file.lines.position(Math.max(from, to)).line;
  for (let line = first; line <= last && line < file.lines.lineCount; line++) {
    const start = file.lines.offset({ line, character: 0 });
    if (start < from || start >= to) continue;
    const end = line + 1 < file.lines.lineCount ? file.lines.offset({ line: line + 1, character: 0 }) : file.text.length;
    const m = SCHEMA_MODELINE.exec(file.text.slice(start, end).replace(/\r?\n$/, ''));
    if (m) return { url: m[1], range: file.lines.range(start, end), start, end };
  }
  return undefined;
}
