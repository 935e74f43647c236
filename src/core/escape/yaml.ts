/**
 * YAML printed by the CLI (`build`): a comment holding repository text (a file name with a line
 * break) must not end its line and start YAML of its own, and no scalar may put a control
 * character on the terminal or start a line GitHub Actions reads as a workflow command (`::`,
 * after spaces, from a block scalar's line or a key). The `yaml` library escapes C0 controls in
 * double-quoted scalars only, and never C1 or bidi controls.
 */
import { stringify } from 'yaml';
import { CONTROL, CONTROL_BUT_LAYOUT, controlEscape, showControls } from './controls';

/** `# text`, on one line: line breaks and other control characters shown escaped. */
export function yamlComment(text: string): string {
  return `# ${showControls(text)}\n`;
}

/** Whether a string holds a control character other than a line break or tab, or a line starting with `::`. */
function needsQuoting(s: string): boolean {
  return CONTROL_BUT_LAYOUT.test(s) || /(?:^|\n)[ \t]*::/.test(s);
}

/**
 * `value` as a YAML document (`yaml`'s `stringify` with `lineWidth: 0`) whose every string holding
 * a control character or a line starting with `::` is written double-quoted on one line, with
 * YAML's `\n`, `\x9b`, `\u202e` escapes: the same value once parsed.
 */
export function yamlDocument(value: unknown): string {
  const quoted: string[] = [];
  let mark = 'GITOPS_PREVIEW_QUOTED_';
  const all = JSON.stringify(value) ?? '';
  while (all.includes(mark)) mark += 'X';
  const swap = (s: string) => (needsQuoting(s) ? `${mark}${quoted.push(s) - 1}_` : s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return swap(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [swap(k), walk(x)]));
    return v;
  };
  const text = stringify(walk(value), { lineWidth: 0 });
  if (!quoted.length) return text;
  return text.replace(new RegExp(`${mark}(\\d+)_`, 'g'), (_, i: string) => doubleQuoted(quoted[Number(i)]));
}

/** A YAML double-quoted scalar on one line. */
function doubleQuoted(text: string): string {
  return `"${text.replace(/[\\"]/g, '\\$&').replace(CONTROL, controlEscape)}"`;
}
