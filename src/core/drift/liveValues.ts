/**
 * Where drift shows in the workspace: for objects taken verbatim from a workspace document, each
 * changed field path is looked up in that document (only exact paths, never a nearby ancestor,
 * so a label kustomize added is not pinned on an unrelated line).
 */
import { isScalar } from 'yaml';
import { nodeAt, type SourceFile } from '../yaml/document';
import type { DriftEntry, DriftReport } from './types';

export interface LiveValueMark {
  /** Absolute path of the workspace file. */
  readonly file: string;
  /** 0-based line of the field. */
  readonly line: number;
  /** `live: 1`, `live: (not set)` */
  readonly text: string;
  readonly subject: string;
}

const MAX_VALUE = 60;

export function formatLiveValue(v: unknown): string {
  if (v === undefined) return '(not set)';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > MAX_VALUE ? s.slice(0, MAX_VALUE - 1) + '…' : s;
}

export function liveValueMarks(reports: Iterable<DriftReport>, fileOf: (path: string) => SourceFile | undefined): LiveValueMark[] {
  const marks: LiveValueMark[] = [];
  for (const report of reports) {
    for (const e of report.entries) if (e.verdict === 'drifted') marks.push(...entryMarks(e, fileOf));
  }
  return marks;
}

function entryMarks(e: DriftEntry, fileOf: (path: string) => SourceFile | undefined): LiveValueMark[] {
  if (!e.origin) return [];
  const file = fileOf(e.origin.file);
  const doc = file?.docs[e.origin.docIndex];
  if (!file || !doc) return [];
  const out: LiveValueMark[] = [];
  for (const c of e.changes) {
    if (c.op === 'remove') continue;
    const node = nodeAt(doc, c.path);
    if (!node?.range) continue;
    // A whole map/list replaced: pin the value only when it is short enough to read inline.
    if (!isScalar(node) && c.op === 'replace' && formatLiveValue(c.live).length >= MAX_VALUE) continue;
    const line = file.lines.position(node.range[0]).line;
    out.push({ file: file.path, line, text: `live: ${formatLiveValue(c.live)}`, subject: e.subject });
  }
  return out;
}
