import { isMap, isScalar, isSeq, isPair, parseAllDocuments, type Document, type Node } from 'yaml';
import { LineIndex, type Range } from './lines';

export type PathSegment = string | number;

export interface YamlProblem {
  message: string;
  range: Range;
}

/** One YAML document of a file, with its plain value and the parsed tree kept for exact ranges. */
export interface YamlDoc {
  readonly file: SourceFile;
  readonly index: number;
  readonly node: Document.Parsed;
  /** Plain JS value; undefined when the document is empty or could not be converted. */
  readonly value: unknown;
  /** Offsets of the document's content (without leading comments / `---`). */
  readonly start: number;
  readonly end: number;
  readonly problems: YamlProblem[];
}

export interface SourceFile {
  /** Absolute path with `/` separators. */
  readonly path: string;
  readonly text: string;
  readonly lines: LineIndex;
  readonly docs: YamlDoc[];
  /** Problems not tied to one document (binary content, size limits). */
  readonly problems: YamlProblem[];
}

/** Larger files are almost certainly generated bundles; parsing them would stall the editor. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** YAML alias expansion bound: stops "billion laughs" documents while allowing normal anchors. */
const MAX_ALIAS_COUNT = 1000;

/**
 * A file is parsed on first access to `docs`, `problems` or `lines`: building the tree only needs
 * each document's identity, which `scanHeaders` reads from the text far faster than a full parse
 * (see docs/benchmarks.md). Everything that needs ranges or values (checks, navigation, rendering)
 * parses the file then, once.
 */
class LazySourceFile implements SourceFile {
  private parsed: { docs: YamlDoc[]; problems: YamlProblem[] } | undefined;
  private lineIndex: LineIndex | undefined;

  constructor(
    readonly path: string,
    readonly text: string,
  ) {}

  get isParsed(): boolean {
    return this.parsed !== undefined;
  }

  get lines(): LineIndex {
    return (this.lineIndex ??= new LineIndex(this.text));
  }

  get docs(): YamlDoc[] {
    return (this.parsed ??= parseText(this)).docs;
  }

  get problems(): YamlProblem[] {
    return (this.parsed ??= parseText(this)).problems;
  }
}

export function parseSourceFile(path: string, text: string): SourceFile {
  return new LazySourceFile(path, text);
}

/** Whether the file's YAML has been parsed already (so reading `docs` costs nothing). */
export function isParsed(file: SourceFile): boolean {
  return !(file instanceof LazySourceFile) || file.isParsed;
}

function parseText(file: SourceFile): { docs: YamlDoc[]; problems: YamlProblem[] } {
  const { text, lines } = file;
  const docs: YamlDoc[] = [];
  const problems: YamlProblem[] = [];
  const result = { docs, problems };
  if (text.length > MAX_FILE_BYTES) {
    problems.push({
      message: `File is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB and was not read; Flux would still apply it.`,
      range: lines.range(0, 0),
    });
    return result;
  }
  if (text.includes('\u0000')) {
    problems.push({ message: 'File contains binary data (NUL bytes) and is not YAML.', range: lines.range(0, 0) });
    return result;
  }
  let parsed: Document.Parsed[];
  try {
    parsed = parseAllDocuments(text, { prettyErrors: false, uniqueKeys: true }) as Document.Parsed[];
  } catch (err) {
    problems.push({ message: `YAML could not be read: ${(err as Error).message}`, range: lines.range(0, 0) });
    return result;
  }
  if (!Array.isArray(parsed)) parsed = [];
  parsed.forEach((node, index) => {
    const docProblems: YamlProblem[] = node.errors.map((e) => ({
      message: e.message.split('\n')[0],
      range: lines.range(e.pos[0], Math.max(e.pos[1], e.pos[0] + 1)),
    }));
    let value: unknown;
    if (docProblems.length === 0) {
      try {
        value = node.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
      } catch (err) {
        docProblems.push({
          message: `YAML could not be expanded: ${(err as Error).message}`,
          range: lines.range(node.range[0], node.range[1]),
        });
      }
    }
    const start = node.contents?.range?.[0] ?? node.range[0];
    docs.push({ file, index, node, value, start, end: node.range[1], problems: docProblems });
  });
  return result;
}

/** The node at a path such as ['spec', 'dependsOn', 1, 'name'], or undefined. */
export function nodeAt(doc: YamlDoc, path: readonly PathSegment[]): Node | undefined {
  let current: unknown = doc.node.contents;
  for (const seg of path) {
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      current = pair?.value;
    } else if (isSeq(current) && typeof seg === 'number') {
      current = current.items[seg];
    } else {
      return undefined;
    }
  }
  return (current ?? undefined) as Node | undefined;
}

/** The key node of the last segment (for "the key `dependsOn`" style diagnostics). */
export function keyAt(doc: YamlDoc, path: readonly PathSegment[]): Node | undefined {
  if (path.length === 0) return undefined;
  const parent = nodeAt(doc, path.slice(0, -1));
  const last = path[path.length - 1];
  if (!isMap(parent)) return undefined;
  const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(last));
  return (pair?.key ?? undefined) as Node | undefined;
}

/** Range of the node at `path`, falling back to the nearest existing ancestor, then the document start. */
export function rangeAt(doc: YamlDoc, path: readonly PathSegment[]): Range {
  for (let n = path.length; n >= 0; n--) {
    const node = nodeAt(doc, path.slice(0, n));
    if (node?.range) {
      // For a missing child, point at the key of the ancestor rather than its whole block.
      if (n < path.length && n > 0) {
        const key = keyAt(doc, path.slice(0, n));
        if (key?.range) return doc.file.lines.range(key.range[0], key.range[1]);
      }
      return doc.file.lines.range(node.range[0], node.range[1]);
    }
  }
  return doc.file.lines.range(doc.start, doc.start);
}

/** 1-based line of the document's first content line (the `flux tree --format json` convention). */
export function docLine(doc: YamlDoc): number {
  return doc.file.lines.position(doc.start).line + 1;
}
