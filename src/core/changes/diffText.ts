/**
 * The `diff` of an object change as text a reviewer reads in a terminal or a fenced ```diff block:
 * one `+`/`-` line per field added or removed (a replaced field is both), `~` for a list item that
 * moved; values as JSON on the line when short, else as indented YAML lines carrying the sign.
 */
import { showControls } from '../escape/controls';
import { yamlDocument } from '../escape/yaml';
import { formatFieldPath, type FieldDelta } from './fieldDiff';

const INLINE = 100;

export function deltaLines(deltas: readonly FieldDelta[]): string {
  const out: string[] = [];
  for (const d of deltas) {
    const path = formatFieldPath(d.path);
    if (d.op === 'move') out.push(`~ ${path}: moved from position ${d.from} to ${d.to}`);
    if (d.op === 'remove' || d.op === 'replace') out.push(...valueLines('-', path, d.before));
    if (d.op === 'add' || d.op === 'replace') out.push(...valueLines('+', path, d.after));
  }
  return out.join('\n');
}

/** A whole object's YAML (yamlDocument), every line signed. */
export function signedLines(yaml: string, sign: '+' | '-'): string {
  return yaml
    .trimEnd()
    .split('\n')
    .map((l) => `${sign} ${l}`)
    .join('\n');
}

function valueLines(sign: '+' | '-', path: string, value: unknown): string[] {
  const scalar = value === null || typeof value !== 'object';
  if (scalar && !(typeof value === 'string' && value.includes('\n'))) return [`${sign} ${path}: ${yamlScalar(value)}`];
  const json = scalar ? undefined : JSON.stringify(value);
  if (json !== undefined && json.length <= INLINE) return [`${sign} ${path}: ${showControls(json)}`];
  return [`${sign} ${path}:`, ...yamlDocument(value).trimEnd().split('\n').map((l) => `${sign}     ${l}`)];
}

/** A scalar as YAML shows it on one line (escaped when it holds a control character). */
function yamlScalar(value: unknown): string {
  return yamlDocument(value).trimEnd();
}
