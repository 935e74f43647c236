/**
 * Where a key path such as ['metadata', 'name'] sits in a document, read from the text instead of
 * the yaml library's tree. Checks ask for the position of most findings and related locations, and
 * a file whose parse came from quickParse (or the parse cache) has no tree: getting one meant
 * parsing the whole file again with the library, whose code is cold by then (0.2 s for the 36
 * files a check of joryirving-home-ops reported on).
 *
 * It answers only inside quickParse's subset (block maps, no multi-line flow or quoted scalars,
 * no tags, block scalars and plain continuations indented past their key), where a line at a map's
 * indentation is one of its keys or a `- ` item of the previous key, and only for what rangeAt
 * would give from the tree: a scalar on its key's line at the end of the path, or the key of the
 * deepest map key found when the path goes missing below it. Anything else is undefined, and the
 * tree answers. test/unit/yaml/quickRange.test.ts holds both equal over the shared corpora.
 */
import type { PathSegment } from './document';

const TAB = 9;
const NEWLINE = 10;
const SPACE = 32;
const DOUBLE = 34;
const HASH = 35;
const AMPERSAND = 38;
const SINGLE = 39;
const DASH = 45;
const COLON = 58;
const BACKSLASH = 92;

/** [start, end) offsets of the node at `path` as rangeAt finds it, or undefined. */
export function quickRange(text: string, docStart: number, docEnd: number, path: readonly PathSegment[]): readonly [number, number] | undefined {
  // Sequence items (a number in the path) are the tree's.
  if (path.length === 0 || path.some((s) => typeof s !== 'string') || (docStart > 0 && text.charCodeAt(docStart - 1) !== NEWLINE)) return undefined;
  let lineStart = docStart;
  let indent = 0;
  // The deepest key found so far: what a path missing below it points at.
  let found: readonly [number, number] | undefined;
  for (let level = 0; level < path.length; level++) {
    const segment = path[level] as string;
    const key = findKey(text, lineStart, docEnd, indent, segment);
    if (key === GIVE_UP) return undefined;
    if (key === undefined) return level === 0 ? undefined : found;
    found = [key.start, key.end];
    const rest = restOfLine(text, key.end + 1);
    const last = level === path.length - 1;
    if (last) {
      const scalar = scalarOnLine(text, rest.start, rest.end);
      if (!scalar) return undefined;
      // A more indented line next continues the scalar (or is something rangeAt reads differently).
      const next = nextContent(text, rest.lineEnd + 1, docEnd);
      if (next !== undefined && next.indent > indent) return undefined;
      return scalar;
    }
    // A block map must follow on the next lines, more indented.
    // A scalar on the key's line has no keys below it: rangeAt points at the key. Anything else (flow, alias, tag): the tree.
    if (rest.start !== rest.end) return plainStart(text, rest.start) ? found : undefined;
    const next = nextContent(text, rest.lineEnd + 1, docEnd);
    if (next === undefined || next.indent <= indent) return found;
    if (!keyShaped(text, next.start + next.indent)) return undefined;
    lineStart = next.start;
    indent = next.indent;
  }
  return found;
}

const GIVE_UP = Symbol('give up');

/** Plain keys that the library reads as another type (or that String() would not give back as written). */
const NOT_A_STRING = /^(?:true|false|null|~|[-+.]?\d.*|\.(?:inf|nan).*)$/i;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;

/**
 * The key `name` at column `indent` of the map whose first line starts at `from`: its offsets, undefined when
 * the map has no such key, GIVE_UP on a line at that column that is not a plain key or a `- ` item.
 */
function findKey(text: string, from: number, docEnd: number, indent: number, name: string): { start: number; end: number } | undefined | typeof GIVE_UP {
  if (!PLAIN_KEY.test(name) || NOT_A_STRING.test(name)) return GIVE_UP;
  let at = from;
  let first = true;
  while (at < docEnd) {
    const lineEnd = endOfLine(text, at);
    const lead = leading(text, at, lineEnd);
    if (lead === undefined) return GIVE_UP;
    const content = at + lead;
    const ch = text.charCodeAt(content);
    if (content < lineEnd && ch !== HASH) {
      if (lead < indent) return first ? GIVE_UP : undefined;
      if (lead === indent) {
        if (ch === DASH && (content + 1 === lineEnd || text.charCodeAt(content + 1) === SPACE)) {
          // A sequence at its key's own column: the previous key's value (never the map's first line).
          if (first) return GIVE_UP;
        } else {
          const colon = keyColon(text, content, lineEnd);
          if (colon === undefined) return GIVE_UP;
          const key = text.slice(content, colon);
          if (!PLAIN_KEY.test(key) || NOT_A_STRING.test(key)) return GIVE_UP;
          if (key === name) return { start: content, end: colon };
        }
        first = false;
      }
    }
    at = lineEnd + 1;
  }
  return undefined;
}

/** The offset of the `:` ending a plain key that starts at `from`, or undefined. */
function keyColon(text: string, from: number, lineEnd: number): number | undefined {
  for (let i = from; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === COLON) return i + 1 === lineEnd || text.charCodeAt(i + 1) === SPACE ? i : undefined;
    if (c === SPACE || c === TAB) return undefined;
  }
  return undefined;
}

function keyShaped(text: string, at: number): boolean {
  const lineEnd = endOfLine(text, at);
  const colon = keyColon(text, at, lineEnd);
  return colon !== undefined && PLAIN_KEY.test(text.slice(at, colon));
}

/** Spaces before the line's content; undefined where a tab is part of it. */
function leading(text: string, at: number, lineEnd: number): number | undefined {
  let i = at;
  while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
  if (i < lineEnd && text.charCodeAt(i) === TAB) return undefined;
  return i - at;
}

function endOfLine(text: string, at: number): number {
  const i = text.indexOf('\n', at);
  return i === -1 ? text.length : i;
}

/** What follows a key's `:` on its line: the value's start and end without spaces or a comment. */
function restOfLine(text: string, at: number): { start: number; end: number; lineEnd: number } {
  const lineEnd = endOfLine(text, at);
  let start = at;
  while (start < lineEnd && text.charCodeAt(start) === SPACE) start++;
  if (start < lineEnd && text.charCodeAt(start) === HASH) return { start: lineEnd, end: lineEnd, lineEnd };
  return { start, end: lineEnd, lineEnd };
}

/** The next line with content (not blank, not a comment) before `docEnd`: its start and indentation. */
function nextContent(text: string, at: number, docEnd: number): { start: number; indent: number } | undefined {
  while (at < docEnd) {
    const lineEnd = endOfLine(text, at);
    let i = at;
    while (i < lineEnd && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) i++;
    if (i < lineEnd && text.charCodeAt(i) !== HASH) return { start: at, indent: i - at };
    at = lineEnd + 1;
  }
  return undefined;
}

/**
 * A scalar that starts at `start` and ends on its line (`lineEnd`): plain or quoted, after an
 * anchor, as the tree's range gives it (quotes in, anchor and comment out); undefined otherwise.
 */
function scalarOnLine(text: string, start: number, lineEnd: number): readonly [number, number] | undefined {
  if (start === lineEnd) return undefined;
  if (text.charCodeAt(start) === AMPERSAND) {
    let i = start + 1;
    while (i < lineEnd && text.charCodeAt(i) !== SPACE) i++;
    if (i === start + 1 || i === lineEnd) return undefined;
    while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
    if (i === lineEnd || text.charCodeAt(i) === HASH || text.charCodeAt(i) === AMPERSAND) return undefined;
    start = i;
  }
  const c = text.charCodeAt(start);
  if (c === DOUBLE || c === SINGLE) {
    const close = closingQuote(text, start, lineEnd);
    if (close === undefined) return undefined;
    // Only spaces, or spaces and a comment, may follow on the line.
    let i = close + 1;
    while (i < lineEnd && text.charCodeAt(i) === SPACE) i++;
    if (i < lineEnd && !(text.charCodeAt(i) === HASH && i > close + 1)) return undefined;
    return [start, close + 1];
  }
  if (!plainStart(text, start)) return undefined;
  const end = plainEnd(text, start, lineEnd);
  return end === undefined ? undefined : [start, end];
}

/** The offset of the quote closing the one at `open` on the same line, or undefined. */
function closingQuote(text: string, open: number, lineEnd: number): number | undefined {
  const quote = text.charCodeAt(open);
  for (let i = open + 1; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (quote === DOUBLE && c === BACKSLASH) i++;
    else if (c === quote) {
      if (quote === SINGLE && text.charCodeAt(i + 1) === SINGLE) i++;
      else return i;
    }
  }
  return undefined;
}

/** Whether a plain scalar starts here (no indicator the library would read as something else). */
function plainStart(text: string, at: number): boolean {
  const c = text[at];
  if ('[]{},#&*!|>\'"%@`'.includes(c)) return false;
  if ((c === '-' || c === '?' || c === ':') && (at + 1 >= text.length || text.charCodeAt(at + 1) === SPACE || text.charCodeAt(at + 1) === NEWLINE)) return false;
  return true;
}

/** End of a single-line plain scalar from `start` to its line's end: before ` #` and trailing spaces; undefined at `: `. */
function plainEnd(text: string, start: number, lineEnd: number): number | undefined {
  let end = start;
  for (let i = start; i < lineEnd; i++) {
    const c = text.charCodeAt(i);
    if (c === HASH && (text.charCodeAt(i - 1) === SPACE || text.charCodeAt(i - 1) === TAB)) break;
    if (c === COLON && (i + 1 === lineEnd || text.charCodeAt(i + 1) === SPACE)) return undefined;
    if (c !== SPACE && c !== TAB) end = i + 1;
  }
  return end;
}
