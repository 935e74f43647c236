import type { Range } from '../yaml/lines';

/** A text replacement in one file (absolute path), the shape of an LSP/VS Code TextEdit. */
export interface TextEdit {
  readonly file: string;
  readonly range: Range;
  readonly newText: string;
}

export interface QuickFix {
  readonly title: string;
  readonly edits: TextEdit[];
  readonly preferred?: boolean;
}
