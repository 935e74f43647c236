/**
 * Mermaid quoted labels (`graph --format mermaid`): repository text stays inside `"…"` and shows as
 * itself (Mermaid's `#code;` entities for what would end the label or become HTML or Markdown).
 */
import { showControls } from './controls';

/** Text for a quoted Mermaid label, on one line (line breaks become spaces). */
export function mermaidLabel(text: string): string {
  return showControls(text.replace(/[\r\n]+/g, ' '))
    .replace(/#/g, '#35;')
    .replace(/&/g, '#38;')
    .replace(/"/g, '#quot;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;')
    .replace(/`/g, '#96;')
    .replace(/\|/g, '#124;');
}
