/**
 * Markdown built from repository text (hovers, tree tooltips): the text shows as itself, never as
 * markup. An image, a link, an autolink (`https:`), HTML or a heading written in a name, value or
 * message would otherwise render (and an image would be fetched).
 */
import { showControls } from './controls';

/**
 * ASCII punctuation, which CommonMark lets be backslash-escaped (then it is literal), except `/`,
 * which means nothing alone (an autolink needs `:` or `www.`, both escaped).
 */
const PUNCTUATION = /[!-.:-@[-`{-~]/g;

/** Plain text in Markdown: one line (control characters shown escaped), punctuation escaped. */
export function markdownText(text: string): string {
  return showControls(text).replace(PUNCTUATION, '\\$&');
}

/**
 * Text as an inline code span: fenced by more backquotes than any run inside it (a code span
 * cannot be backslash-escaped), on one line (a blank line would end it early).
 */
export function markdownCode(text: string): string {
  const shown = showControls(text);
  let longest = 0;
  for (const run of shown.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  // A space on each side when the text starts or ends with a backquote (CommonMark strips one).
  const pad = shown.startsWith('`') || shown.endsWith('`') || shown === '' ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}
