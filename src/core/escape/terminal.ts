/**
 * Terminal text (the CLI's text output and its stderr lines): repository text can neither move the
 * cursor, recolour or rewrite what was printed (escape sequences, CR), reorder it (bidi controls),
 * nor start a line of its own. A line starting with `::` (after spaces) is a workflow command to
 * GitHub Actions, which reads both stdout and stderr (`::stop-commands::`, `::error::`, a fake
 * summary line): text never holds a line break, and names that start a line are quoted unless
 * they hold nothing unusual.
 */
import { showControls } from './controls';

/** Free text (a message): control characters escaped, so it stays on the line it is printed on. */
export function terminalText(text: string): string {
  return showControls(text);
}

/** What a name, path or kind may hold and still be printed bare: no space, quote, colon, backslash or control. */
const PLAIN_NAME = /^[\p{L}\p{N}._/@+=~-]+$/u;

/**
 * A name, file name or other identifier: bare when it holds only letters, digits and `._/@+=~-`,
 * else in double quotes with `\`, `"` and control characters escaped (`"::error::x.yaml"`).
 */
export function terminalName(name: string): string {
  return PLAIN_NAME.test(name) ? name : `"${showControls(name.replace(/[\\"]/g, '\\$&'))}"`;
}
