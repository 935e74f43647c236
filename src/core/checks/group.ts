/**
 * One finding per cause. A component used by 33 Kustomizations, or a file several builds reach,
 * makes every rule report the same problem at the same line once per place; 33 copies of one
 * error bury the others. Findings of one rule and severity at the same range are one cause: the
 * first is kept, the places of the others become its related locations, and the message says how
 * many there are.
 */
import type { Diagnostic, RelatedLocation } from './types';

/** Related locations a merged finding lists at most; the message still counts every place. */
export const MAX_RELATED = 200;

export function groupByCause(list: readonly Diagnostic[]): Diagnostic[] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of list) {
    const key = causeKey(d);
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  return [...groups.values()].map(merge);
}

/**
 * Rules whose message is the cause itself, whatever applies the document (a field of the object,
 * the file's YAML): two such findings at one place are two causes (`interval` and `prune` missing).
 */
const SELF_DESCRIBED = new Set(['schema-invalid', 'schema-unknown-field', 'yaml-syntax', 'config-invalid']);

function causeKey(d: Diagnostic): string {
  const { start, end } = d.range;
  const place = `${d.rule}|${d.severity}|${d.file}|${start.line}:${start.character}-${end.line}:${end.character}`;
  if (!SELF_DESCRIBED.has(d.rule)) return place;
  // A schema finding names its object first (`PersistentVolumeClaim db/pgadmin: …`): a component's
  // mistake is one cause however many objects it is rendered into.
  return `${place}|${d.rule.startsWith('schema-') ? d.message.replace(/^[^:\n]*: /, '') : d.message}`;
}

function merge(group: Diagnostic[]): Diagnostic {
  const [first, ...others] = group;
  if (others.length === 0) return first;
  const related: RelatedLocation[] = [...first.related];
  const seen = new Set(related.map(relatedKey));
  let kustomizations = true;
  for (const d of others) {
    // The place of another finding is what its related locations add to the first's.
    const own = d.related.filter((r) => !seen.has(relatedKey(r)));
    if (!own.length || !own.some((r) => r.message.includes('Kustomization'))) kustomizations = false;
    for (const r of own) {
      seen.add(relatedKey(r));
      if (related.length < MAX_RELATED) related.push(r);
    }
  }
  const noun = kustomizations ? (others.length === 1 ? 'Kustomization' : 'Kustomizations') : others.length === 1 ? 'place' : 'places';
  const see = related.length ? ' (see the related locations)' : '';
  const message = `${first.message}\nAlso in ${others.length} other ${noun}${see}.`;
  return { ...first, message, related, places: group };
}

function relatedKey(r: RelatedLocation): string {
  return `${r.file}|${r.range.start.line}:${r.range.start.character}|${r.message}`;
}
