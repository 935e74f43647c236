/**
 * A YAML comment line: everything up to the line break is the comment, so repository text in it
 * (a file name holding a line break) must not end the line and start YAML of its own.
 */
import { showControls } from './controls';

/** `# text`, on one line: line breaks and other control characters shown escaped. */
export function yamlComment(text: string): string {
  return `# ${showControls(text)}\n`;
}
