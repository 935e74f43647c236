/** Repository text inside HTML a renderer shows (a pull-request comment's `<summary>`): as itself, never as markup. */
import { showControls } from './controls';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function htmlText(text: string): string {
  return showControls(text).replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}
