/** A finding as the CLI's outputs and the `changes` report show it, from the engine's. */
import type { Range } from '../yaml/lines';
import { relativePath } from '../tree/treeData';

/** Paths relative to the repository root (`/` separators), lines and columns 1-based. */
export interface RelativeFinding {
  rule: string;
  severity: 'error' | 'warning' | 'info';
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  related: { file: string; line: number; column: number; message: string }[];
}

interface AbsoluteFinding {
  rule: string;
  severity: RelativeFinding['severity'];
  file: string;
  range: Range;
  message: string;
  related: { file: string; range: Range; message: string }[];
}

export function relativeFinding(root: string, d: AbsoluteFinding): RelativeFinding {
  return {
    rule: d.rule,
    severity: d.severity,
    file: relativePath(root, d.file),
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    message: d.message,
    related: d.related.map((r) => ({ file: relativePath(root, r.file), line: r.range.start.line + 1, column: r.range.start.character + 1, message: r.message })),
  };
}
