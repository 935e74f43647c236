/**
 * JSON printed by the CLI (`--format json`, `sarif`): JSON.stringify escapes C0 controls but
 * leaves DEL, C1 controls (some terminals act on U+009B as on ESC [) and bidi controls raw. They
 * can only stand inside strings, where `\uXXXX` is the same value: the parsed JSON is unchanged.
 */
import { CONTROL } from './controls';

/** `JSON.stringify(value, null, indent)` plus a line break, with no control character left raw. */
export function jsonOutput(value: unknown, indent = 2): string {
  // C0 controls left raw are the indentation's own line breaks: JSON.stringify escaped the others.
  const escape = (ch: string) => (ch.charCodeAt(0) < 0x20 ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return JSON.stringify(value, null, indent).replace(CONTROL, escape) + '\n';
}
