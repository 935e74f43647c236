/**
 * GitHub Actions workflow commands (`::error file=…,title=…::message`): the runner unescapes `%25`,
 * `%0D`, `%0A` in the message and also `%3A`, `%2C` in properties, so repository text can neither
 * end the command's line nor a property. Other control characters (ESC, NUL, bidi) have no escape
 * there: they are shown as `\x1b`, `\u202e` instead.
 */
import { showControls } from './controls';

/** A workflow command's message: line breaks kept (the annotation shows them), the rest escaped. */
export function githubData(text: string): string {
  return text
    .split(/(\r\n|\r|\n)/)
    .map((part, i) => (i % 2 ? part : showControls(part).replace(/%/g, '%25')))
    .join('')
    .replace(/\r/g, '%0D')
    .replace(/\n/g, '%0A');
}

/** A workflow command's property value (`file=`, `title=`): as data, and `:` and `,` escaped. */
export function githubProperty(text: string): string {
  return githubData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
