/**
 * Characters a terminal, a log reader or a text renderer acts on instead of showing: C0 and C1
 * controls and DEL (escape sequences, carriage returns, NUL), bidirectional overrides, isolates and
 * marks (text shown in another order than it is: "Trojan Source"), and the Unicode line and
 * paragraph separators (a new line to some readers). Global: for `replace` only.
 */
export const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same but line break and tab, which text laid out on several lines holds by right. Not global. */
export const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\x1b`, `\u202e`, `\n`: how a control character is shown in escaped text. */
export function controlEscape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character written as its escape, so it stays one line and shows as itself. */
export function showControls(text: string): string {
  return text.replace(CONTROL, controlEscape);
}
