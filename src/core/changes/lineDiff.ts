/**
 * Two YAML texts of one object compared line by line, as the HTML page lays them out: hunks of a
 * unified diff, and the same hunks as side-by-side rows (a removed line beside the added line
 * that replaces it).
 */
import { structuredPatch } from 'diff';

export type Sign = ' ' | '-' | '+';

/** One line of a side: its 1-based number there and its text. */
export interface SideLine {
  n: number;
  text: string;
}

export interface UnifiedLine {
  sign: Sign;
  before?: number;
  after?: number;
  text: string;
}

export interface Hunk {
  /** `@@ -3,7 +3,8 @@`. */
  header: string;
  lines: UnifiedLine[];
  /** The same lines paired: context on both sides, removals beside the additions that follow them. */
  rows: { before?: SideLine; after?: SideLine; sign: Sign | '~' }[];
}

const CONTEXT = 3;
/**
 * Past this many differing lines the diff search stops (it is quadratic in the worst case) and the
 * object is shown as every line removed, then every line added.
 */
const MAX_EDIT = 4000;

export function lineDiff(before: string, after: string): Hunk[] {
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: CONTEXT, maxEditLength: MAX_EDIT });
  const hunks = patch?.hunks ?? wholeHunk(before, after);
  return hunks.map((h) => hunkOf(h.oldStart, h.newStart, h.lines, `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`));
}

function linesOf(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

function wholeHunk(before: string, after: string): { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }[] {
  const b = linesOf(before);
  const a = linesOf(after);
  return [{ oldStart: 1, oldLines: b.length, newStart: 1, newLines: a.length, lines: [...b.map((l) => `-${l}`), ...a.map((l) => `+${l}`)] }];
}

function hunkOf(oldStart: number, newStart: number, patchLines: string[], header: string): Hunk {
  const lines: UnifiedLine[] = [];
  let b = oldStart;
  let a = newStart;
  for (const l of patchLines) {
    const sign = l[0];
    // `\ No newline at end of file` belongs to the line before it.
    if (sign === '\\') continue;
    const text = l.slice(1);
    if (sign === '-') lines.push({ sign, before: b++, text });
    else if (sign === '+') lines.push({ sign, after: a++, text });
    else lines.push({ sign: ' ', before: b++, after: a++, text });
  }
  return { header, lines, rows: pairRows(lines) };
}

function pairRows(lines: UnifiedLine[]): Hunk['rows'] {
  const rows: Hunk['rows'] = [];
  for (let i = 0; i < lines.length; ) {
    if (lines[i].sign === ' ') {
      const l = lines[i++];
      rows.push({ sign: ' ', before: { n: l.before!, text: l.text }, after: { n: l.after!, text: l.text } });
      continue;
    }
    const removed: UnifiedLine[] = [];
    const added: UnifiedLine[] = [];
    while (i < lines.length && lines[i].sign === '-') removed.push(lines[i++]);
    while (i < lines.length && lines[i].sign === '+') added.push(lines[i++]);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const r = removed[k];
      const d = added[k];
      rows.push({
        sign: r && d ? '~' : r ? '-' : '+',
        ...(r ? { before: { n: r.before!, text: r.text } } : {}),
        ...(d ? { after: { n: d.after!, text: d.text } } : {}),
      });
    }
  }
  return rows;
}
