import { MAX_ALIASES, MAX_ALIAS_EXPANSION, MAX_ANCHORS, type DocParse, type FileParse } from './document';

/**
 * A FileParse read straight from the text, for the part of YAML that Kubernetes manifests are
 * written in: block maps and sequences, single-line plain and quoted scalars, literal and folded
 * block scalars, one-line flow collections, comments, `---`. It gives what the yaml library's parse
 * in document.ts gives (values, document ranges, the ranges of `${` scalars), several times faster,
 * or undefined at the first thing it does not know (anchors, tags, multi-line plain or quoted
 * scalars, `|+`, a duplicate key, anything the library would report), and the library parses the
 * text then. test/unit/yaml/quickParse.test.ts holds the two parses equal over the shared corpora.
 */
export function quickParse(text: string, maxDocuments: number): FileParse | undefined {
  if (text.length === 0 || text.includes('\r') || text.includes('\u0000') || text.charCodeAt(0) === 0xfeff) return undefined;
  try {
    return new QuickReader(text).read(maxDocuments);
  } catch (err) {
    // Giving up (or nesting deeper than the stack): the library's parse answers.
    if (err === GIVE_UP || err instanceof RangeError) return undefined;
    throw err;
  }
}

const GIVE_UP = new Error('not in the quick subset');


interface Anchor {
  value: unknown;
  /** Nodes of the named node (counted as `nodes`). */
  size: number;
  /** Being read: an alias to it now would be inside it. */
  open: boolean;
}

/** The library's folding of a multi-line plain or single-quoted scalar's lines. */
function unfold(source: string): string {
  const lines = source.split('\n');
  let out = lines[0].replace(/[ \t]+$/, '');
  let sep = ' ';
  for (let i = 1; i < lines.length; i++) {
    const line = i === lines.length - 1 ? lines[i].replace(/^[ \t]+/, '') : lines[i].replace(/^[ \t]+|[ \t]+$/g, '');
    if (i < lines.length - 1 && line === '') {
      if (sep === '\n') out += sep;
      else sep = '\n';
    } else {
      out += sep + line;
      sep = ' ';
    }
  }
  return out;
}

function giveUp(): never {
  throw GIVE_UP;
}

const enum Kind {
  Blank,
  Comment,
  Content,
  /** A tab where indentation is read: the library's rules for it are not followed here. */
  Tab,
}

const SPACE = 32;
const HASH = 35;
const COLON = 58;
const DASH = 45;

/** What ends a document's value, for where its trailing comments go (see trailing()). */
const enum Tail {
  Scalar,
  /** A key or `-` with nothing after it. */
  Empty,
  Block,
}

class QuickReader {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly indents: number[] = [];
  private readonly kinds: Kind[] = [];
  /** Lines of the document being read: [first, end). */
  private docEnd = 0;
  /** The last line holding the value (for a block scalar, its last non-empty line). */
  private lastLine = 0;
  /** Indents of the block collections the document's last value closes, innermost first. */
  private tailIndents: number[] = [];
  private tail = Tail.Scalar;
  /** Whether a Tail.Empty line has a comment after its key or `-`. */
  private emptyWithComment = false;
  private readonly anchors = new Map<string, Anchor>();
  /** Whether the last plainEnd stopped at a comment. */
  private commented = false;
  private anchorCount = 0;
  private aliases = 0;
  /** Nodes read (at least as many as the library's tree has): what an alias adds. */
  private nodes = 0;
  /** Nodes the document's aliases add to it once expanded. */
  private expansion = 0;
  /** Source ranges of scalars holding `${`, or undefined when the document holds none. */
  private substitutions: [number, number][] | undefined;

  constructor(private readonly text: string) {
    const { starts, ends, indents, kinds } = this;
    let at = 0;
    while (at <= text.length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      let i = at;
      while (i < end && text.charCodeAt(i) === SPACE) i++;
      starts.push(at);
      ends.push(end);
      indents.push(i - at);
      const c = text.charCodeAt(i);
      kinds.push(i === end ? Kind.Blank : c === HASH ? Kind.Comment : c === 9 ? Kind.Tab : Kind.Content);
      if (end === text.length) break;
      at = end + 1;
    }
  }

  read(maxDocuments: number): FileParse {
    const { text, starts, ends, kinds } = this;
    const count = starts.length;
    const markers: number[] = [];
    for (let li = 0; li < count; li++) {
      if (kinds[li] !== Kind.Content || this.indents[li] !== 0) continue;
      const s = starts[li];
      const c = text.charCodeAt(s);
      if (c === 37 /* % */) giveUp();
      if ((c === DASH || c === 46) /* - . */ && text.startsWith(c === DASH ? '---' : '...', s) && (s + 3 === ends[li] || isBlank(text.charCodeAt(s + 3)))) {
        if (c === 46) giveUp();
        // Only a comment may follow the marker (not `--- |`, `--- !tag`, ...).
        let i = s + 3;
        while (i < ends[li] && isBlank(text.charCodeAt(i))) i++;
        if (i < ends[li] && text.charCodeAt(i) !== HASH) giveUp();
        markers.push(li);
      }
    }
    const docs: DocParse[] = [];
    // The lines before the first marker are a document when they hold content.
    const regions: [number, number, number | undefined][] = [];
    const firstEnd = markers.length ? markers[0] : count;
    if (this.firstContent(0, firstEnd) !== undefined) regions.push([0, firstEnd, undefined]);
    else if (markers.length === 0) giveUp();
    markers.forEach((m, k) => regions.push([m + 1, k + 1 < markers.length ? markers[k + 1] : count, m]));
    if (regions.length > maxDocuments) giveUp();
    for (const [first, end, marker] of regions) docs.push(this.document(first, end, marker));
    return { docs, problems: [], quick: true };
  }

  private firstContent(from: number, to: number): number | undefined {
    for (let li = from; li < to; li++) {
      const kind = this.kinds[li];
      if (kind === Kind.Content) return li;
      if (kind === Kind.Tab) giveUp();
    }
    return undefined;
  }

  private document(first: number, end: number, marker: number | undefined): DocParse {
    const { text, starts, ends } = this;
    const f = this.firstContent(first, end);
    if (f === undefined) giveUp(); // an empty document: its ranges are the library's to say
    this.docEnd = end;
    const regionStart = marker === undefined ? starts[first] : starts[marker];
    const boundary = end < starts.length ? starts[end] : text.length;
    this.substitutions = text.slice(regionStart, boundary).includes('${') ? [] : undefined;
    this.lastLine = f;
    this.tailIndents = [];
    this.anchors.clear();
    this.anchorCount = this.aliases = this.nodes = this.expansion = 0;
    const col = this.indents[f];
    const start = starts[f] + col;
    const c = text.charCodeAt(start);
    let value: unknown;
    if (c === 91 || c === 123 /* [ { */) {
      const [v, at] = this.flow(start, ends[f]);
      this.endOfLine(at, ends[f]);
      value = v;
      this.tail = Tail.Scalar;
    } else value = this.block(f, col, -1);
    const rest = this.nextContent(this.lastLine + 1);
    if (rest !== undefined) giveUp();
    const range0 = marker === undefined ? starts[f] : starts[marker];
    // A key or `-` with nothing after it ends before its line's break, unless a comment follows it.
    const contentEnd = this.tail === Tail.Empty && !this.emptyWithComment ? ends[this.lastLine] : this.lineEnd(this.lastLine);
    const [contentEndWithTrailing, docEnd] = this.trailing(contentEnd, boundary);
    const range = [range0, contentEndWithTrailing, docEnd] as const;
    const substituted = this.substitutions !== undefined && text.slice(range0, docEnd).includes('${');
    return {
      range,
      value,
      start,
      end: contentEndWithTrailing,
      problems: [],
      keep: substituted,
      substitutionScalars: substituted ? this.substitutions : undefined,
    };
  }

  /**
   * Where the document's value ends, given the lines after its last one: blank lines and comments
   * belong to the innermost block collection the value closes whose indent is above 0 and at or
   * below some comment's column (then the value runs to the document's end), else to the document.
   */
  private trailing(contentEnd: number, boundary: number): [number, number] {
    let from = this.lastLine + 1;
    if (this.tail === Tail.Empty) {
      // Blank lines after an empty value without a comment belong to no node; the rest is the library's.
      for (let li = from; li < this.docEnd; li++) if (this.emptyWithComment || this.kinds[li] !== Kind.Blank) giveUp();
      return [contentEnd, contentEnd];
    }
    if (this.tail === Tail.Scalar && this.tailIndents.length) {
      // Comments indented past the collection that holds the last value on its line belong to that value.
      let absorbed = -1;
      for (let li = from; li < this.docEnd; li++) {
        if (this.kinds[li] !== Kind.Comment) continue;
        if (this.indents[li] > this.tailIndents[0]) absorbed = li;
        else break;
      }
      if (absorbed >= 0) {
        contentEnd = this.lineEnd(absorbed);
        from = absorbed + 1;
      }
    }
    let comment = -1;
    let spaced = false;
    for (let li = from; li < this.docEnd; li++) {
      if (this.kinds[li] === Kind.Comment) comment = Math.max(comment, this.indents[li]);
      else if (this.ends[li] > this.starts[li]) spaced = true;
    }
    if (this.tail === Tail.Block && spaced) giveUp();
    if (comment >= 0 && this.tailIndents.some((indent) => indent > 0 && comment >= indent)) return [boundary, boundary];
    return [contentEnd, boundary];
  }

  private lineEnd(li: number): number {
    return this.ends[li] < this.text.length ? this.ends[li] + 1 : this.ends[li];
  }

  private nextContent(from: number): number | undefined {
    return this.firstContent(from, this.docEnd);
  }

  /** A block collection starting at line `li`, column `col`. */
  private block(li: number, col: number, parent: number): unknown {
    if (this.isItem(li, col)) return this.seq(li, col);
    const at = this.starts[li] + col;
    if (this.keyEnd(at, this.ends[li]) !== undefined) return this.map(li, col);
    // A scalar on the lines below its key or `-` (the document's own value is the library's).
    if (parent < 0) giveUp();
    this.lastLine = li;
    return this.inline(li, at, parent, false);
  }

  private isItem(li: number, col: number): boolean {
    const at = this.starts[li] + col;
    return this.text.charCodeAt(at) === DASH && (at + 1 === this.ends[li] || isBlank(this.text.charCodeAt(at + 1)));
  }

  private seq(li: number, col: number): unknown[] {
    const { text, starts, ends } = this;
    const out: unknown[] = [];
    this.nodes++;
    for (;;) {
      const lineEnd = ends[li];
      let at = starts[li] + col + 1;
      while (at < lineEnd && text.charCodeAt(at) === SPACE) at++;
      this.lastLine = li;
      if (at === lineEnd || text.charCodeAt(at) === HASH) {
        if (at < lineEnd && text.charCodeAt(at - 1) !== SPACE) giveUp();
        out.push(this.nested(li, col, false, at < lineEnd));
      } else {
        const itemCol = at - starts[li];
        if (this.isItem(li, itemCol)) giveUp(); // `- - a`
        if (this.keyEnd(at, lineEnd) !== undefined) out.push(this.map(li, itemCol));
        else out.push(this.inline(li, at, col, false));
      }
      const next = this.nextContent(this.lastLine + 1);
      if (next === undefined || this.indents[next] < col) break;
      if (this.indents[next] > col) giveUp();
      if (!this.isItem(next, col)) break; // the map around this sequence goes on
      li = next;
    }
    this.tailIndents.push(col);
    return out;
  }

  private map(li: number, col: number): Record<string, unknown> {
    const { text, starts, ends } = this;
    const out: Record<string, unknown> = {};
    const keys = new Set<unknown>();
    this.nodes++;
    for (;;) {
      this.nodes++;
      const lineEnd = ends[li];
      const keyStart = starts[li] + col;
      const colon = this.keyEnd(keyStart, lineEnd);
      if (colon === undefined) giveUp();
      const key = this.key(keyStart, colon);
      if (!Number.isNaN(key)) {
        if (keys.has(key)) giveUp(); // the full parse reports it
        keys.add(key);
      }
      const name = key === null ? '' : String(key);
      let at = colon + 1;
      while (at < lineEnd && text.charCodeAt(at) === SPACE) at++;
      this.lastLine = li;
      let value: unknown;
      if (at === lineEnd || text.charCodeAt(at) === HASH) value = this.nested(li, col, true, at < lineEnd);
      else value = this.inline(li, at, col, true);
      if (name === '__proto__') Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
      else out[name] = value;
      const next = this.nextContent(this.lastLine + 1);
      if (next === undefined || this.indents[next] < col) break;
      if (this.indents[next] > col || this.isItem(next, col)) giveUp();
      li = next;
    }
    this.tailIndents.push(col);
    return out;
  }

  /** The value on the lines after a key or `-` with nothing after it on its line. */
  private nested(li: number, col: number, inMap: boolean, comment: boolean): unknown {
    const next = this.nextContent(li + 1);
    if (next !== undefined && this.indents[next] > col) return this.block(next, this.indents[next], col);
    if (inMap && next !== undefined && this.indents[next] === col && this.isItem(next, col)) return this.seq(next, col);
    this.nodes++;
    this.emptyWithComment = comment;
    this.tail = Tail.Empty;
    this.tailIndents = [];
    return null;
  }

  /**
   * The offset of the `:` that ends the implicit key starting at `at`, or undefined when the line
   * holds no key there.
   */
  private keyEnd(at: number, lineEnd: number): number | undefined {
    const { text } = this;
    const c = text.charCodeAt(at);
    if (c === 34 || c === 39 /* " ' */) {
      const close = this.quotedEnd(at, lineEnd);
      if (close === undefined) return undefined;
      let i = close;
      while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
      return text.charCodeAt(i) === COLON && (i + 1 === lineEnd || text.charCodeAt(i + 1) === SPACE) ? i : undefined;
    }
    if (!plainStart(text, at, lineEnd)) return undefined;
    for (let i = at + 1; i < lineEnd; i++) {
      const d = text.charCodeAt(i);
      if (d === COLON && (i + 1 === lineEnd || text.charCodeAt(i + 1) === SPACE)) return i - at > 1000 ? giveUp() : i;
      if (d === HASH && text.charCodeAt(i - 1) === SPACE) return undefined;
      if (d === 9) giveUp();
    }
    return undefined;
  }

  private key(at: number, colon: number): unknown {
    const { text } = this;
    const c = text.charCodeAt(at);
    let end: number;
    let value: unknown;
    if (c === 34 || c === 39) {
      end = this.quotedEnd(at, colon)!;
      value = this.quoted(at, end);
    } else {
      end = colon;
      while (text.charCodeAt(end - 1) === SPACE) end--;
      const source = text.slice(at, end);
      if (source === '<<') giveUp();
      value = resolvePlain(source);
    }
    this.noteSubstitution(at, end);
    return value;
  }

  /** A value that starts on its key's (or `-`'s) line at `at`; `col` is the collection's indent. */
  private inline(li: number, at: number, col: number, inMap: boolean): unknown {
    const { text } = this;
    const lineEnd = this.ends[li];
    const c = text.charCodeAt(at);
    this.tail = Tail.Scalar;
    this.tailIndents = [];
    this.nodes++;
    if (c === 38 /* & */) return this.anchored(li, at, col, inMap);
    if (c === 42 /* * */) {
      const end = this.nameEnd(at + 1, lineEnd);
      this.endOfLine(end, lineEnd);
      const anchor = this.anchors.get(text.slice(at + 1, end));
      // An unknown name, or an alias inside the node it names (a cycle): the library reports them.
      if (!anchor || anchor.open) giveUp();
      if (++this.aliases > MAX_ALIASES) giveUp();
      this.expansion += anchor.size;
      // Half document.ts's bound (nodes are counted here at least as often as the library's tree
      // has them), so a document read here is one the full parse reads without a problem. Read at
      // call time: document.ts imports this module.
      if (this.expansion > MAX_ALIAS_EXPANSION / 2) giveUp();
      return anchor.value;
    }
    if (c === 34 || c === 39) {
      let close = this.quotedEnd(at, lineEnd);
      let last = li;
      if (close === undefined) [close, last] = this.multiLineQuoted(li, at, col);
      this.endOfLine(close, this.ends[last]);
      this.lastLine = last;
      this.noteSubstitution(at, close);
      return this.quoted(at, close);
    }
    if (c === 124 || c === 62 /* | > */) return this.blockScalar(li, at, col);
    if (c === 91 || c === 123) {
      const [value, end] = this.flow(at, lineEnd);
      this.endOfLine(end, lineEnd);
      return value;
    }
    if (!plainStart(text, at, lineEnd)) giveUp();
    let end = this.plainEnd(at + 1, lineEnd);
    let value = text.slice(at, end);
    // Lines indented past the collection go on the scalar: folded, blank lines kept as breaks.
    let breaks = 0;
    for (let lj = li + 1; lj < this.docEnd; lj++) {
      const kind = this.kinds[lj];
      if (kind === Kind.Blank) {
        breaks++;
        continue;
      }
      if (kind !== Kind.Content || this.indents[lj] <= col || this.commented) break;
      const from = this.starts[lj] + this.indents[lj];
      // Any character but `: ` starts a continuation line (`- x` too), and a lone `-` is the library's.
      if ((text.charCodeAt(from) === COLON || text.charCodeAt(from) === DASH) && (from + 1 === this.ends[lj] || text.charCodeAt(from + 1) === SPACE)) {
        if (text.charCodeAt(from) === COLON || from + 1 === this.ends[lj]) giveUp();
      }
      end = this.plainEnd(from + 1, this.ends[lj]);
      value += (breaks ? '\n'.repeat(breaks) : ' ') + text.slice(from, end);
      breaks = 0;
      this.lastLine = lj;
    }
    this.noteSubstitution(at, end);
    return resolvePlain(value);
  }

  /** The end of a plain scalar's text on one line, from `from` (after its first character): before a comment and trailing spaces. */
  private plainEnd(from: number, lineEnd: number): number {
    const { text } = this;
    let end = lineEnd;
    this.commented = false;
    for (let i = from; i < lineEnd; i++) {
      const d = text.charCodeAt(i);
      if (d === HASH && text.charCodeAt(i - 1) === SPACE) {
        end = i;
        this.commented = true;
        break;
      }
      if (d === COLON && (i + 1 === lineEnd || text.charCodeAt(i + 1) === SPACE)) giveUp(); // `a: b: c`
      if (d === 9) giveUp();
    }
    while (text.charCodeAt(end - 1) === SPACE) end--;
    return end;
  }

  /** `&name` at `at`, then the node it names: on this line, or below it. */
  private anchored(li: number, at: number, col: number, inMap: boolean): unknown {
    const { text } = this;
    const lineEnd = this.ends[li];
    const end = this.nameEnd(at + 1, lineEnd);
    const name = text.slice(at + 1, end);
    if (++this.anchorCount > MAX_ANCHORS) giveUp();
    const anchor: Anchor = { value: undefined, size: 0, open: true };
    const before = this.nodes;
    this.anchors.set(name, anchor);
    let i = end;
    while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
    let value: unknown;
    if (i === lineEnd || text.charCodeAt(i) === HASH) {
      this.endOfLine(end, lineEnd);
      value = this.nested(li, col, inMap, i < lineEnd);
      if (this.tail === Tail.Empty) giveUp(); // an anchored empty node
    } else {
      // `- &a key: value` names the key, not the map.
      if (this.keyEnd(i, lineEnd) !== undefined) giveUp();
      const c = text.charCodeAt(i);
      if (c === 38 || c === 42) giveUp();
      value = this.inline(li, i, col, inMap);
    }
    anchor.value = value;
    anchor.size = this.nodes - before;
    anchor.open = false;
    return value;
  }

  /** The end of an anchor or alias name at `from`: go-yaml's characters, then a space or the line's end. */
  private nameEnd(from: number, lineEnd: number): number {
    const { text } = this;
    let i = from;
    for (; i < lineEnd; i++) {
      const c = text.charCodeAt(i);
      if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)) break;
    }
    if (i === from || (i < lineEnd && text.charCodeAt(i) !== SPACE)) giveUp();
    return i;
  }

  /** The close of a quoted scalar that goes on past its first line, and the line it closes on. */
  private multiLineQuoted(li: number, at: number, col: number): [number, number] {
    const { text } = this;
    const quote = text.charCodeAt(at);
    for (let lj = li + 1; lj < this.docEnd; lj++) {
      const kind = this.kinds[lj];
      if (kind === Kind.Tab || (kind !== Kind.Blank && this.indents[lj] <= col)) giveUp();
      // A line ending in `\` of a double-quoted scalar escapes its break; the next line starts afresh.
      for (let i = this.starts[lj]; i < this.ends[lj]; i++) {
        const d = text.charCodeAt(i);
        if (d === 9) giveUp();
        if (quote === 34 && d === 92) i++;
        else if (d === quote) {
          if (quote === 39 && text.charCodeAt(i + 1) === 39 && i + 1 < this.ends[lj]) i++;
          else return [i + 1, lj];
        }
      }
    }
    return giveUp();
  }

  /** Only spaces, then a comment or the line's end, after `at`. */
  private endOfLine(at: number, lineEnd: number): void {
    const { text } = this;
    let i = at;
    while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
    if (i < lineEnd && (text.charCodeAt(i) !== HASH || i === at)) giveUp();
  }

  private noteSubstitution(from: number, to: number): void {
    if (this.substitutions && this.text.slice(from, to).includes('${')) this.substitutions.push([from, to]);
  }

  /** The offset after the closing quote of the quoted scalar at `at`, when it closes before `lineEnd`. */
  private quotedEnd(at: number, lineEnd: number): number | undefined {
    const { text } = this;
    const quote = text.charCodeAt(at);
    for (let i = at + 1; i < lineEnd; i++) {
      const d = text.charCodeAt(i);
      if (quote === 34 && d === 92 /* \ */) i++;
      else if (d === quote) {
        if (quote === 39 && text.charCodeAt(i + 1) === 39 && i + 1 < lineEnd) i++;
        else return i + 1;
      }
    }
    return undefined;
  }

  private quoted(at: number, end: number): string {
    const { text } = this;
    const body = text.slice(at + 1, end - 1);
    if (text.charCodeAt(at) === 39) {
      const unfolded = body.includes('\n') ? unfold(body) : body;
      return unfolded.includes("''") ? unfolded.replace(/''/g, "'") : unfolded;
    }
    if (!body.includes('\\') && !body.includes('\n')) return body;
    let out = '';
    for (let i = 0; i < body.length; i++) {
      const ch = body[i];
      if (ch === '\n') {
        // One break folds to a space, n breaks to n - 1 newlines; the next line's indentation goes.
        let fold = '';
        while (body[i + 1] === ' ' || body[i + 1] === '\n') {
          if (body[++i] === '\n') fold += '\n';
        }
        out += fold || ' ';
      } else if (ch === ' ') {
        // Spaces before a break go.
        let j = i;
        while (body[j + 1] === ' ') j++;
        if (body[j + 1] !== '\n') out += body.slice(i, j + 1);
        i = j;
      } else if (ch !== '\\') out += ch;
      else {
        const next = body[++i];
        const simple = ESCAPES[next];
        if (simple !== undefined) out += simple;
        else if (next === '\n') {
          while (body[i + 1] === ' ') i++;
        } else if (next === 'x' || next === 'u' || next === 'U') {
          const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
          const hex = body.substr(i + 1, length);
          if (hex.length !== length || !/^[0-9a-fA-F]+$/.test(hex)) giveUp();
          const code = parseInt(hex, 16);
          if (code > 0x10ffff) giveUp();
          out += String.fromCodePoint(code);
          i += length;
        } else giveUp();
      }
    }
    return out;
  }

  /** A literal (`|`) or folded (`>`) block scalar whose header is at `at`; its lines are above `col`. */
  private blockScalar(li: number, at: number, col: number): string {
    const { text, starts, ends, indents, kinds } = this;
    const folded = text.charCodeAt(at) === 62;
    let i = at + 1;
    let strip = false;
    if (text.charCodeAt(i) === DASH) {
      strip = true;
      i++;
    }
    // `|+`, an indentation indicator, and anything else before the comment are the library's.
    this.endOfLine(i, ends[li]);
    const lines: string[] = [];
    let contentIndent = -1;
    let last = -1;
    let lj = li + 1;
    let leadingBlank = 0;
    for (; lj < this.docEnd; lj++) {
      const width = ends[lj] - starts[lj];
      if (kinds[lj] === Kind.Blank) {
        if (contentIndent < 0) {
          leadingBlank = Math.max(leadingBlank, width);
          lines.push('');
        } else if (width > contentIndent) giveUp();
        else lines.push('');
        continue;
      }
      if (kinds[lj] === Kind.Tab && contentIndent < 0) giveUp();
      const indent = indents[lj];
      if (contentIndent < 0) {
        if (indent <= col || leadingBlank > indent) giveUp(); // empty, or a leading blank line wider than the text
        contentIndent = indent;
      } else if (indent < contentIndent) {
        if (kinds[lj] === Kind.Tab) giveUp();
        break;
      }
      const line = text.slice(starts[lj] + contentIndent, ends[lj]);
      if (folded && (line.charCodeAt(0) === SPACE || line.charCodeAt(0) === 9)) giveUp(); // more-indented lines fold their own way
      lines.push(line);
      last = lj;
    }
    if (last < 0) giveUp();
    lines.length = last - li;
    this.lastLine = last;
    this.tail = Tail.Block;
    this.noteSubstitution(at, this.lineEnd(last));
    let value: string;
    if (!folded) value = lines.join('\n');
    else {
      value = '';
      let breaks = 0;
      let started = false;
      for (const line of lines) {
        if (line === '') {
          breaks++;
          continue;
        }
        if (!started) value += '\n'.repeat(breaks);
        else value += breaks === 0 ? ' ' : '\n'.repeat(breaks);
        value += line;
        breaks = 0;
        started = true;
      }
    }
    return strip ? value : value + '\n';
  }

  /** A flow collection on one line: its value and the offset after it. */
  private flow(at: number, lineEnd: number): [unknown, number] {
    const { text } = this;
    const open = text.charCodeAt(at);
    const close = open === 91 ? 93 : 125;
    const items: unknown[] = [];
    const map: Record<string, unknown> = {};
    const keys = new Set<unknown>();
    let i = this.skipSpaces(at + 1, lineEnd);
    if (text.charCodeAt(i) === close) return [open === 91 ? items : map, i + 1];
    for (;;) {
      if (open === 91) {
        const [value, end] = this.flowItem(i, lineEnd);
        items.push(value);
        i = end;
      } else {
        const [key, end] = this.flowItem(i, lineEnd);
        if (key !== null && typeof key === 'object') giveUp();
        if (!Number.isNaN(key)) {
          if (keys.has(key)) giveUp();
          keys.add(key);
        }
        i = this.skipSpaces(end, lineEnd);
        if (text.charCodeAt(i) !== COLON) giveUp(); // `{a}`
        i = this.skipSpaces(i + 1, lineEnd);
        const c = text.charCodeAt(i);
        if (c === 44 || c === close) giveUp(); // `{a: }`
        const [value, valueEnd] = this.flowItem(i, lineEnd);
        const name = key === null ? '' : String(key);
        if (name === '__proto__' || name === '<<') giveUp();
        map[name] = value;
        i = valueEnd;
      }
      i = this.skipSpaces(i, lineEnd);
      const c = text.charCodeAt(i);
      if (c === close) return [open === 91 ? items : map, i + 1];
      if (c !== 44 /* , */) giveUp();
      i = this.skipSpaces(i + 1, lineEnd);
      if (text.charCodeAt(i) === close) return [open === 91 ? items : map, i + 1];
    }
  }

  private skipSpaces(i: number, lineEnd: number): number {
    while (i < lineEnd && this.text.charCodeAt(i) === SPACE) i++;
    if (i >= lineEnd) giveUp(); // a flow collection over several lines
    return i;
  }

  private flowItem(at: number, lineEnd: number): [unknown, number] {
    const { text } = this;
    this.nodes++;
    const c = text.charCodeAt(at);
    if (c === 91 || c === 123) return this.flow(at, lineEnd);
    if (c === 34 || c === 39) {
      const end = this.quotedEnd(at, lineEnd);
      if (end === undefined) giveUp();
      this.noteSubstitution(at, end);
      return [this.quoted(at, end), end];
    }
    if (!plainStart(text, at, lineEnd) || c === COLON) giveUp();
    let end = at + 1;
    for (; end < lineEnd; end++) {
      const d = text.charCodeAt(end);
      if (d === 44 || d === 93 || d === 125) break;
      if (d === 91 || d === 123 || d === 9) giveUp();
      if (d === COLON) {
        const e = text.charCodeAt(end + 1);
        if (e === SPACE || e === 44 || e === 93 || e === 125 || end + 1 === lineEnd) break;
      }
      if (d === HASH && text.charCodeAt(end - 1) === SPACE) giveUp();
    }
    let trimmed = end;
    while (text.charCodeAt(trimmed - 1) === SPACE) trimmed--;
    this.noteSubstitution(at, trimmed);
    return [resolvePlain(text.slice(at, trimmed)), end];
  }
}

function isBlank(c: number): boolean {
  return c === SPACE || c === 9;
}

/** Whether a plain scalar may start at `at` (not an indicator, or `-?:` followed by a non-space). */
function plainStart(text: string, at: number, lineEnd: number): boolean {
  const c = text.charCodeAt(at);
  switch (c) {
    case DASH:
    case 63: // ?
    case COLON:
      return at + 1 < lineEnd && !isBlank(text.charCodeAt(at + 1));
    case 44: // ,
    case 91: // [
    case 93: // ]
    case 123: // {
    case 125: // }
    case HASH:
    case 38: // &
    case 42: // *
    case 33: // !
    case 124: // |
    case 62: // >
    case 39: // '
    case 34: // "
    case 37: // %
    case 64: // @
    case 96: // `
    case 9:
      return false;
    default:
      return true;
  }
}

const ESCAPES: Record<string, string | undefined> = {
  __proto__: null as unknown as string,
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  '\t': '\t',
};

/** A plain scalar's value under the YAML 1.2 core schema, as the yaml library resolves it (its tags in order). */
export function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  // Most scalars start with a letter that no tag of the schema starts with.
  if (s.length > 5 && ((c >= 97 && c <= 122) || (c >= 65 && c <= 90))) return s;
  if (/^(?:~|[Nn]ull|NULL)?$/.test(s)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s)) return c === 116 || c === 84;
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s)) return parseFloat(s);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s)) return parseFloat(s);
  return s;
}
