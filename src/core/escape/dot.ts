/**
 * Graphviz DOT quoted strings (`graph --format dot`): repository text stays inside its quotes and
 * is shown as itself (no label escape such as `\N` or `\l` takes effect, no control character
 * reaches the terminal or the renderer).
 */
import { showControls } from './controls';

/** A DOT quoted string; its line breaks become DOT's `\n` (a centred line break in a label). */
export function dotString(text: string): string {
  const body = text
    .split(/\r\n|\r|\n/)
    .map((line) => showControls(line).replace(/\\/g, '\\\\').replace(/"/g, '\\"'))
    .join('\\n');
  // Graphviz before 8 reads `\"` even after `\\`: a string ending in a backslash would not end.
  return `"${body}${body.endsWith('\\') ? ' ' : ''}"`;
}
