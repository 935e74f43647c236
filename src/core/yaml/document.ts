import { isAlias, isMap, isScalar, isSeq, isPair, LineCounter, visit, YAMLParseError, type Document, type Node, type Pair } from 'yaml';
import { composeGo } from './goAliases';
import { LineIndex, type Range } from './lines';
import { quickParse } from './quickParse';
import { quickRange } from './quickRange';
import { MAX_FILE_BYTES } from '../workspace/scanned';

export type PathSegment = string | number;

export interface YamlProblem {
  message: string;
  range: Range;
  /** A read limit was hit (size, document count): the file is valid YAML, only partly read. */
  limit?: boolean;
}

/**
 * One YAML document of a file, with its plain value, and its parsed tree for exact ranges. The
 * tree (a few times the text's size in objects) is kept only where later reads need it on every
 * check (documents with `${`); elsewhere it is parsed again from the file's text when a position is
 * asked for (a diagnostic, a navigation), and the last few files' trees are kept.
 */
export interface YamlDoc {
  readonly file: SourceFile;
  readonly index: number;
  readonly node: Document.Parsed;
  /** The document's range as the parser gives it: start, end of its value, end with trailing comments. */
  readonly range: readonly [number, number, number];
  /** Plain JS value; undefined when the document is empty or could not be converted. */
  readonly value: unknown;
  /** Offsets of the document's content (without leading comments / `---`). */
  readonly start: number;
  readonly end: number;
  readonly problems: YamlProblem[];
  /**
   * Source ranges of the scalars holding `${`, in document order: what the substitution scan reads,
   * kept with the parse so that a restored file needs no tree for it. Undefined: read the tree.
   */
  readonly substitutionScalars?: readonly (readonly [number, number])[];
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


/**
 * Parse options for a repository's YAML: the yaml library's warnings (a mapping used as a key, say)
 * would go to process warnings, printed on the CLI's stderr and the extension host's log.
 */
export const QUIET = { logLevel: 'error' } as const;
/** Aliases per document; resolving each one scans the document's anchors, so many cost quadratic time. */
export const MAX_ALIASES = 1000;
/** Anchors per document that has aliases (the other factor of that scan). */
export const MAX_ANCHORS = 10_000;
/** Nodes aliases may add to a document once expanded ("billion laughs" documents stop here). */
export const MAX_ALIAS_EXPANSION = 100_000;
/** Documents read per file; real multi-document bundles have hundreds, a million empty ones exhaust memory. */
export const MAX_DOCUMENTS = 10_000;

/**
 * What parsing a file's text gives, without the parsed trees: enough to stand for the file's parse
 * in another process (a persisted parse, src/engine/parseCache.ts). Plain data; a function of the
 * text and PARSE_FORMAT alone.
 */
export interface FileParse {
  readonly docs: readonly DocParse[];
  readonly problems: readonly YamlProblem[];
  /** Read by quickParse: the text is inside its subset, where quickRange may stand for the tree. */
  readonly quick?: true;
}

export interface DocParse {
  readonly range: readonly [number, number, number];
  readonly value: unknown;
  readonly start: number;
  readonly end: number;
  readonly problems: readonly YamlProblem[];
  /** The tree is read on most checks (`${` documents, or ones with problems): parsed once and kept. */
  readonly keep: boolean;
  /** YamlDoc.substitutionScalars. */
  readonly substitutionScalars?: readonly (readonly [number, number])[];
}

/** Changes whenever a text's FileParse could change (this file, goAliases.ts, the yaml library): persisted parses of another are not reused. */
export const PARSE_FORMAT = 3;

/**
 * A file is parsed on first access to `docs`, `problems` or `lines`: building the tree only needs
 * each document's identity, which `scanHeaders` reads from the text far faster than a full parse
 * (see docs/benchmarks.md). Everything that needs ranges or values (checks, navigation, rendering)
 * parses the file then, once. A file restored from a FileParse is parsed only when a tree is asked
 * for (a position of a diagnostic, a navigation).
 */
class LazySourceFile implements SourceFile {
  private parsed: { docs: YamlDoc[]; problems: YamlProblem[] } | undefined;
  private lineIndex: LineIndex | undefined;
  private keptTrees: Document.Parsed[] | undefined;
  /** FileParse.quick of its parse. */
  quick = false;

  constructor(
    readonly path: string,
    readonly text: string,
    private readonly onParsed?: (parse: FileParse) => void,
    restored?: FileParse,
  ) {
    if (restored) {
      this.parsed = restore(this, restored);
      this.quick = restored.quick === true;
    }
  }

  get isParsed(): boolean {
    return this.parsed !== undefined;
  }

  get lines(): LineIndex {
    return (this.lineIndex ??= new LineIndex(this.text));
  }

  get docs(): YamlDoc[] {
    return this.parse().docs;
  }

  get problems(): YamlProblem[] {
    return this.parse().problems;
  }

  /** The trees of a restored file's kept documents: parsed on the first read of one, then kept as a parse keeps them. */
  trees(): Document.Parsed[] {
    return (this.keptTrees ??= parseDocuments(this.text, documentLimitOffset(this.text)));
  }

  private parse(): { docs: YamlDoc[]; problems: YamlProblem[] } {
    if (this.parsed) return this.parsed;
    const quick = this.text.length <= MAX_FILE_BYTES ? quickParse(this.text, MAX_DOCUMENTS) : undefined;
    if (quick) {
      this.parsed = restore(this, quick);
      this.quick = true;
      this.onParsed?.(quick);
      return this.parsed;
    }
    const { files, parse } = parseText(this);
    this.parsed = files;
    this.onParsed?.(parse);
    return files;
  }
}

/**
 * A file, parsed on first use; `onParsed` hears its parse (once, when it happens). `restored` is a
 * parse of exactly this text made before (by parseSourceFile's `onParsed`), which stands for it.
 */
export function parseSourceFile(path: string, text: string, options: { onParsed?: (parse: FileParse) => void; restored?: FileParse } = {}): SourceFile {
  return new LazySourceFile(path, text, options.onParsed, options.restored);
}

/** Whether the file's YAML has been parsed already (so reading `docs` costs nothing). */
export function isParsed(file: SourceFile): boolean {
  return !(file instanceof LazySourceFile) || file.isParsed;
}

function restore(file: LazySourceFile, parse: FileParse): { docs: YamlDoc[]; problems: YamlProblem[] } {
  const docs = parse.docs.map((d, index) => new ParsedDoc(file, index, d.keep ? () => file.trees()[index] : undefined, d.range, d.value, d.start, d.end, [...d.problems], d.substitutionScalars));
  return { docs, problems: [...parse.problems] };
}

/** The yaml library's parse of a text, never the quick one: what test/unit/yaml/quickParse.test.ts compares it with. */
export function libraryParse(text: string): FileParse {
  return parseText({ path: '', text, lines: new LineIndex(text), docs: [], problems: [] }).parse;
}

function parseText(file: SourceFile): { files: { docs: YamlDoc[]; problems: YamlProblem[] }; parse: FileParse } {
  const { text, lines } = file;
  const docs: YamlDoc[] = [];
  const problems: YamlProblem[] = [];
  const parses: DocParse[] = [];
  const result = { files: { docs, problems }, parse: { docs: parses, problems } };
  if (text.length > MAX_FILE_BYTES) {
    problems.push({
      message: `File is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB and was not read; Flux would still apply it.`,
      range: lines.range(0, 0),
      limit: true,
    });
    return result;
  }
  if (text.includes('\u0000')) {
    problems.push({ message: 'File contains binary data (NUL bytes) and is not YAML.', range: lines.range(0, 0) });
    return result;
  }
  const cut = documentLimitOffset(text);
  if (cut !== undefined) {
    problems.push({
      message: `File has more than ${MAX_DOCUMENTS.toLocaleString('en-US')} YAML documents; only the first ${MAX_DOCUMENTS.toLocaleString('en-US')} were read.`,
      range: lines.range(cut, cut + 3),
      limit: true,
    });
  }
  let parsed: Document.Parsed[];
  try {
    parsed = parseDocuments(text, cut);
  } catch (err) {
    problems.push({ message: `YAML could not be read: ${(err as Error).message}`, range: lines.range(0, 0) });
    return result;
  }
  parsed.forEach((node, index) => {
    const errors = [...node.errors.map((e) => ({ message: e.message.split('\n')[0], pos: e.pos })), ...duplicateKeys(node, text)].sort((a, b) => a.pos[0] - b.pos[0]);
    const docProblems: YamlProblem[] = errors.map((e) => ({ message: e.message, range: lines.range(e.pos[0], Math.max(e.pos[1], e.pos[0] + 1)) }));
    let value: unknown;
    if (docProblems.length === 0) {
      const aliasProblem = checkAliases(node);
      if (aliasProblem) docProblems.push({ message: aliasProblem.message, range: lines.range(aliasProblem.at[0], Math.max(aliasProblem.at[1], aliasProblem.at[0] + 1)) });
    }
    if (docProblems.length === 0) {
      try {
        // Aliases were bounded above (count, self-reference, expanded size), so the library's own
        // count, which rescans the document per alias, is not needed.
        value = node.toJS({ maxAliasCount: -1 });
      } catch (err) {
        docProblems.push({
          message: `YAML could not be expanded: ${(err as Error).message}`,
          range: lines.range(node.range[0], node.range[1]),
        });
      }
    }
    const start = node.contents?.range?.[0] ?? node.range[0];
    const substituted = text.slice(node.range[0], node.range[2]).includes('${');
    const keep = docProblems.length > 0 || value === undefined || substituted;
    const range = [node.range[0], node.range[1], node.range[2]] as const;
    const substitutionScalars = substituted ? scalarsHolding(node, text, '${') : undefined;
    docs.push(new ParsedDoc(file, index, keep ? () => node : undefined, range, value, start, node.range[1], docProblems, substitutionScalars));
    parses.push({ range, value, start, end: node.range[1], problems: docProblems, keep, substitutionScalars });
  });
  return result;
}

/** Source ranges of a tree's scalars (keys and values) whose text holds `needle`; undefined when too deep to walk. */
function scalarsHolding(node: Document.Parsed, text: string, needle: string): (readonly [number, number])[] | undefined {
  const out: (readonly [number, number])[] = [];
  try {
    visit(node, {
      Scalar(_key, scalar) {
        const range = scalar.range;
        if (range && text.slice(range[0], range[1]).includes(needle)) out.push([range[0], range[1]]);
      },
    });
  } catch {
    // A document nested deeper than the stack allows: its parse already carries a problem.
    return undefined;
  }
  return out;
}

function parseDocuments(text: string, cut: number | undefined): Document.Parsed[] {
  return [...composeGo(cut === undefined ? text : text.slice(0, cut), { ...QUIET, uniqueKeys: false })];
}

class ParsedDoc implements YamlDoc {
  constructor(
    readonly file: SourceFile,
    readonly index: number,
    /** The kept tree (see DocParse.keep); others are parsed again when asked for. */
    private readonly kept: (() => Document.Parsed) | undefined,
    readonly range: readonly [number, number, number],
    readonly value: unknown,
    readonly start: number,
    readonly end: number,
    readonly problems: YamlProblem[],
    readonly substitutionScalars: readonly (readonly [number, number])[] | undefined,
  ) {}

  get node(): Document.Parsed {
    return this.kept?.() ?? reparsed(this.file)[this.index];
  }
}

/** Trees parsed again for positions, of the last few files (a check reports several per file). */
const REPARSED_FILES = 32;
const reparsedTrees = new Map<SourceFile, Document.Parsed[]>();

function reparsed(file: SourceFile): Document.Parsed[] {
  let trees = reparsedTrees.get(file);
  if (trees) {
    reparsedTrees.delete(file);
  } else {
    // The same text and limits as the first parse, so the same documents with the same ranges.
    trees = parseDocuments(file.text, documentLimitOffset(file.text));
    if (reparsedTrees.size >= REPARSED_FILES) reparsedTrees.delete(reparsedTrees.keys().next().value!);
  }
  reparsedTrees.set(file, trees);
  return trees;
}

/** Offset of the `---` that would start document MAX_DOCUMENTS + 1, or undefined when there are fewer. */
function documentLimitOffset(text: string): number | undefined {
  // `---` at the start of a line followed by a blank always starts a document (YAML forbids it inside scalars).
  const marker = /^---(?=[ \t\r\n]|$)/gm;
  let count = text.startsWith('---') ? 0 : 1;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    if (++count > MAX_DOCUMENTS) return m.index;
  }
  return undefined;
}

/**
 * `parse(text, QUIET)` of the yaml library (the value of a single document; throws its first error,
 * a duplicate key included), with duplicate keys found in linear time: for values parsed outside a
 * workspace file (a kustomization.yaml, a values key of a ConfigMap, kustomize's output).
 */
export function parseYaml(text: string): unknown {
  const quick = text.length <= MAX_FILE_BYTES ? quickParse(text, 1) : undefined;
  if (quick?.docs.length === 1) return quick.docs[0].value;
  const lineCounter = new LineCounter();
  const [doc, more] = composeGo(text, { ...QUIET, uniqueKeys: false }, lineCounter.addNewLine, true);
  if (more) doc.errors.push(new YAMLParseError(more.range.slice(0, 2) as [number, number], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
  // Which error comes first when there are several may differ from the library's order; that a
  // text with a duplicate key or another error throws does not.
  const duplicate = duplicateKeys(doc, text)[0];
  if (duplicate && !(doc.errors[0]?.pos[0] <= duplicate.pos[0])) {
    const { line, col } = lineCounter.linePos(duplicate.pos[0]);
    throw new YAMLParseError(duplicate.pos, 'DUPLICATE_KEY', `${duplicate.message} at line ${line}, column ${col}:`);
  }
  const error = doc.errors[0];
  if (error) {
    // The first line of the library's pretty form (its context lines are not kept).
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new YAMLParseError(error.pos, error.code, `${error.message} at line ${line}, column ${col}:`);
  }
  return doc.toJS();
}

/**
 * `Map keys must be unique`, where the library's `uniqueKeys` would report it, but with a Set per
 * map: the library compares each key with every key before it, so one map of 100,000 keys took
 * minutes. Scalar keys are equal by value (NaN never), other keys only to themselves. Iterative.
 */
function duplicateKeys(doc: Document.Parsed, text: string): { message: string; pos: [number, number] }[] {
  const out: { message: string; pos: [number, number] }[] = [];
  const stack: unknown[] = doc.contents ? [doc.contents] : [];
  while (stack.length) {
    const node = stack.pop();
    if (isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = pair.key;
        if (isScalar(key) && !Number.isNaN(key.value)) {
          let at = key.range?.[0] ?? 0;
          // An empty key is placed before the blanks that precede its `:`; the library reports the `:`.
          if (key.range?.[1] === at) while (at < text.length && ' \t\r\n'.includes(text[at])) at++;
          if (seen.has(key.value)) out.push({ message: 'Map keys must be unique', pos: [at, at + 1] });
          else seen.add(key.value);
        }
        if (key) stack.push(key);
        if (pair.value) stack.push(pair.value);
      }
    } else if (isSeq(node)) for (const item of node.items) stack.push(item);
  }
  return out;
}

type Walked = Node | Pair | { exit: Node };

/**
 * Bounds what aliases can do before the document is converted: too many of them (the library's
 * resolution is quadratic), an alias inside the node it names (a cyclic value that would send every
 * later walk into infinite recursion), or an expansion past MAX_ALIAS_EXPANSION. Iterative and
 * linear in the document's nodes.
 */
function checkAliases(doc: Document.Parsed): { message: string; at: [number, number] } | undefined {
  const latest = new Map<string, Node>();
  const open = new Set<Node>();
  const size = new Map<Node, number>();
  let aliases = 0;
  let anchors = 0;
  let written = 0;
  let firstAlias: [number, number] | undefined;
  const stack: Walked[] = doc.contents ? [doc.contents as Node] : [];
  while (stack.length) {
    const item = stack.pop()!;
    if ('exit' in item) {
      open.delete(item.exit);
      let total = 1;
      for (const child of (item.exit as unknown as { items: unknown[] }).items) {
        if (isPair(child)) total += (child.key ? size.get(child.key as Node) ?? 1 : 0) + (child.value ? size.get(child.value as Node) ?? 1 : 0);
        else total += size.get(child as Node) ?? 1;
      }
      size.set(item.exit, total);
      if (total > written + MAX_ALIAS_EXPANSION) {
        return { message: `Aliases expand this document by more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} nodes (an alias bomb); it was not read.`, at: (item.exit.range ?? [0, 0]) as [number, number] };
      }
      continue;
    }
    if (isPair(item)) {
      if (item.value) stack.push(item.value as Node);
      if (item.key) stack.push(item.key as Node);
      continue;
    }
    const range = (item.range ?? [0, 0]) as [number, number];
    written++;
    if (isAlias(item)) {
      aliases++;
      firstAlias ??= range;
      if (aliases > MAX_ALIASES) return { message: `More than ${MAX_ALIASES} YAML aliases in one document; it was not read.`, at: range };
      const target = latest.get(item.source);
      if (target && open.has(target)) return { message: `Alias *${item.source} refers to a node that contains it (a self-referencing alias); the document cannot be expanded.`, at: range };
      size.set(item, target ? size.get(target) ?? 1 : 1);
      continue;
    }
    if (item.anchor) {
      latest.set(item.anchor, item);
      anchors++;
    }
    if (isMap(item) || isSeq(item)) {
      open.add(item);
      stack.push({ exit: item });
      for (let i = item.items.length - 1; i >= 0; i--) stack.push(item.items[i] as Walked);
    }
  }
  if (aliases > 0 && anchors > MAX_ANCHORS) return { message: `More than ${MAX_ANCHORS.toLocaleString('en-US')} YAML anchors in a document with aliases; it was not read.`, at: firstAlias! };
  return undefined;
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

const rangesAt = new WeakMap<YamlDoc, Map<string, Range>>();

/** Range of the node at `path`, falling back to the nearest existing ancestor, then the document start. */
export function rangeAt(doc: YamlDoc, path: readonly PathSegment[]): Range {
  // Memoised per document: checks ask again on every model rebuild, and the tree may need a parse.
  let ranges = rangesAt.get(doc);
  if (!ranges) rangesAt.set(doc, (ranges = new Map()));
  const key = JSON.stringify(path);
  let range = ranges.get(key);
  if (!range) ranges.set(key, (range = findRange(doc, path)));
  return range;
}

function findRange(doc: YamlDoc, path: readonly PathSegment[]): Range {
  // From the text where the quick reader read the file: its tree would be a second, slower parse.
  if (doc.file instanceof LazySourceFile && doc.file.quick) {
    const quick = quickRange(doc.file.text, doc.start, doc.end, path);
    if (quick) return doc.file.lines.range(quick[0], quick[1]);
  }
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
