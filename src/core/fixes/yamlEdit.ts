import { isMap, isPair, isScalar, isSeq, stringify, type Pair } from 'yaml';
import { nodeAt, type PathSegment, type YamlDoc } from '../yaml/document';
import type { TextEdit } from './types';
import { trimEndChars } from '../text';

/**
 * Minimal, layout-preserving YAML edits computed from the parsed document's offsets: a changed
 * line here and there instead of re-serialising the user's file (which would lose comments).
 */

function edit(doc: YamlDoc, start: number, end: number, newText: string): TextEdit {
  return { file: doc.file.path, range: doc.file.lines.range(start, end), newText };
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function lineEnd(text: string, offset: number): number {
  const i = text.indexOf('\n', offset);
  return i === -1 ? text.length : i;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** A scalar rendered as a plain or quoted YAML value. */
export function scalar(value: string): string {
  return stringify(value).trimEnd();
}

export function replaceNode(doc: YamlDoc, path: readonly PathSegment[], newText: string): TextEdit | undefined {
  const node = nodeAt(doc, path);
  if (!node?.range) return undefined;
  return edit(doc, node.range[0], node.range[1], newText);
}

/** Renames the key `key` of the mapping at `mapPath`, its value and comments untouched. */
export function renameKey(doc: YamlDoc, mapPath: readonly PathSegment[], key: string, newKey: string): TextEdit | undefined {
  const range = (pairOf(doc, mapPath, key)?.key as { range?: [number, number, number] } | null)?.range;
  if (!range) return undefined;
  return edit(doc, range[0], range[1], scalar(newKey));
}

function pairOf(doc: YamlDoc, mapPath: readonly PathSegment[], key: string): Pair | undefined {
  const map = nodeAt(doc, mapPath);
  if (!isMap(map)) return undefined;
  return map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key) as Pair | undefined;
}

/** Indentation (column) of the keys of a block mapping. */
function mapIndent(doc: YamlDoc, mapPath: readonly PathSegment[]): { indent: number; lastEnd: number } | undefined {
  const map = nodeAt(doc, mapPath);
  if (!isMap(map) || map.flow || map.items.length === 0) return undefined;
  const first = map.items[0];
  const last = map.items[map.items.length - 1];
  const keyStart = (first.key as { range?: [number, number, number] } | null)?.range?.[0];
  const lastValue = (last.value as { range?: [number, number, number] } | null)?.range ?? (last.key as { range?: [number, number, number] } | null)?.range;
  if (keyStart === undefined || !lastValue) return undefined;
  return { indent: columnOf(doc.file.text, keyStart), lastEnd: lastValue[1] };
}

/** Indents every line of a YAML block by `n` spaces. */
function indentBlock(block: string, n: number): string {
  const pad = ' '.repeat(n);
  return trimEndChars(block, '\n')
    .split('\n')
    .map((l) => (l ? pad + l : l))
    .join('\n');
}

/**
 * Sets `key` in the block mapping at `mapPath`: replaces an existing scalar value, or adds the key
 * after the mapping's last entry. `value` is YAML: a scalar, or a block starting with a newline.
 */
export function setKey(doc: YamlDoc, mapPath: readonly PathSegment[], key: string, value: string): TextEdit | undefined {
  const existing = pairOf(doc, mapPath, key);
  const text = doc.file.text;
  if (existing) {
    const v = existing.value as { range?: [number, number, number] } | null;
    if (v?.range && !value.startsWith('\n')) return edit(doc, v.range[0], v.range[1], value);
    const k = (existing.key as { range?: [number, number, number] }).range!;
    const end = lineEnd(text, v?.range?.[1] ?? k[1]);
    const indent = columnOf(text, k[0]);
    return edit(doc, k[0], end, `${key}:${reindent(value, indent)}`);
  }
  const layout = mapIndent(doc, mapPath);
  if (!layout) return undefined;
  const at = lineEnd(text, Math.max(layout.lastEnd - 1, 0));
  return edit(doc, at, at, `\n${' '.repeat(layout.indent)}${key}:${reindent(value, layout.indent)}`);
}

function reindent(value: string, indent: number): string {
  if (!value.startsWith('\n')) return ` ${value}`;
  return '\n' + indentBlock(value.slice(1), indent + 2);
}

/** Appends an item (YAML of a mapping, unindented) to the block sequence at `seqPath`. */
export function appendItem(doc: YamlDoc, seqPath: readonly PathSegment[], item: string): TextEdit | undefined {
  const seq = nodeAt(doc, seqPath);
  const text = doc.file.text;
  if (!isSeq(seq) || seq.flow || seq.items.length === 0 || !seq.range) return undefined;
  const dash = columnOf(text, seq.range[0]);
  const last = seq.items[seq.items.length - 1] as { range?: [number, number, number] } | null;
  if (!last?.range) return undefined;
  const at = lineEnd(text, Math.max(last.range[1] - 1, 0));
  const lines = trimEndChars(item, '\n').split('\n');
  const body = lines.map((l, i) => (i === 0 ? `${' '.repeat(dash)}- ${l}` : `${' '.repeat(dash + 2)}${l}`)).join('\n');
  return edit(doc, at, at, `\n${body}`);
}

/** Removes a key and its value (whole lines) from a block mapping. */
export function deleteKey(doc: YamlDoc, mapPath: readonly PathSegment[], key: string): TextEdit | undefined {
  const entry = entryExtent(doc, mapPath, key);
  if (!entry) return undefined;
  const text = doc.file.text;
  const end = entry.end < text.length ? entry.end + 1 : entry.end;
  return edit(doc, lineStart(text, entry.keyStart), end, '');
}

/** Replaces a whole `key: value` entry by other entries (YAML text, unindented). */
export function replaceKey(doc: YamlDoc, mapPath: readonly PathSegment[], key: string, entries: string): TextEdit | undefined {
  const entry = entryExtent(doc, mapPath, key);
  if (!entry) return undefined;
  const indent = columnOf(doc.file.text, entry.keyStart);
  return edit(doc, entry.keyStart, entry.end, indentBlock(entries, indent).slice(indent));
}

/** Where a `key: value` entry starts (its key) and where its last line ends. */
function entryExtent(doc: YamlDoc, mapPath: readonly PathSegment[], key: string): { keyStart: number; end: number } | undefined {
  const pair = pairOf(doc, mapPath, key);
  if (!pair) return undefined;
  const k = (pair.key as { range?: [number, number, number] }).range;
  const v = (pair.value as { range?: [number, number, number] } | null)?.range;
  if (!k) return undefined;
  return { keyStart: k[0], end: lineEnd(doc.file.text, Math.max((v?.[1] ?? k[1]) - 1, k[1])) };
}
