/**
 * Field-level differences between two versions of one object, as a reviewer reads them: maps key
 * by key, and lists of named items (containers, env, ports, volumes, volumeMounts, initContainers
 * and any list whose items all have a distinct name) item by item, matched by their name key, so
 * an inserted container is one addition rather than every later container replaced, and a
 * reordered list shows moves.
 */
import { deepEqual } from '../drift/compare';
import { isRecord } from '../drift/types';
import { showControls } from '../escape/controls';

export type FieldPath = readonly (string | number | { key: string; value: string })[];

export type FieldDelta =
  | { op: 'add'; path: FieldPath; after: unknown }
  | { op: 'remove'; path: FieldPath; before: unknown }
  | { op: 'replace'; path: FieldPath; before: unknown; after: unknown }
  | { op: 'move'; path: FieldPath; from: number; to: number };

/** The keys a list's items are matched by, tried in order (the first every item has, distinct, wins). */
const LIST_KEYS: Record<string, readonly string[]> = {
  // Two mounts may share a volume (subPath): the mount path is what is unique.
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  // A container port needs no name when it is the only one.
  ports: ['name', 'containerPort', 'port'],
};
const DEFAULT_KEYS = ['name'];
/** Lists longer than this are matched without looking for moves (the move search is quadratic). */
const MAX_MOVE_ITEMS = 500;

export function fieldDiff(before: unknown, after: unknown, path: FieldPath = [], out: FieldDelta[] = []): FieldDelta[] {
  if (deepEqual(before, after)) return out;
  if (isRecord(before) && isRecord(after)) {
    for (const k of Object.keys(before)) {
      if (!Object.prototype.hasOwnProperty.call(after, k)) out.push({ op: 'remove', path: [...path, k], before: before[k] });
      else fieldDiff(before[k], after[k], [...path, k], out);
    }
    for (const k of Object.keys(after)) {
      if (!Object.prototype.hasOwnProperty.call(before, k)) out.push({ op: 'add', path: [...path, k], after: after[k] });
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const field = path.length ? path[path.length - 1] : undefined;
    const key = listKey(typeof field === 'string' ? field : '', before, after);
    if (key) return keyedDiff(key, before as Record<string, unknown>[], after as Record<string, unknown>[], path, out);
    if (before.length === after.length) {
      before.forEach((x, i) => fieldDiff(x, after[i], [...path, i], out));
      return out;
    }
  }
  out.push({ op: 'replace', path, before, after });
  return out;
}

/** The key matching the items of both lists, or undefined when they are not all records with a distinct scalar under one key. */
function listKey(field: string, before: unknown[], after: unknown[]): string | undefined {
  if (before.length + after.length === 0) return undefined;
  for (const key of LIST_KEYS[field] ?? DEFAULT_KEYS) {
    if ([before, after].every((list) => distinctUnder(list, key))) return key;
  }
  return undefined;
}

function distinctUnder(list: unknown[], key: string): boolean {
  const seen = new Set<string>();
  for (const item of list) {
    const v = isRecord(item) ? item[key] : undefined;
    if (typeof v !== 'string' && typeof v !== 'number') return false;
    if (seen.has(String(v))) return false;
    seen.add(String(v));
  }
  return true;
}

function keyedDiff(key: string, before: Record<string, unknown>[], after: Record<string, unknown>[], path: FieldPath, out: FieldDelta[]): FieldDelta[] {
  const name = (item: Record<string, unknown>) => String(item[key]);
  const at = (value: string) => [...path, { key, value }];
  const afterByName = new Map(after.map((item, i) => [name(item), { item, i }]));
  const beforeNames = new Set(before.map(name));
  for (const item of before) {
    const other = afterByName.get(name(item));
    if (!other) out.push({ op: 'remove', path: at(name(item)), before: item });
  }
  const common = before.map(name).filter((n) => afterByName.has(n));
  const kept = common.length <= MAX_MOVE_ITEMS ? inOrder(common, after.map(name).filter((n) => beforeNames.has(n))) : new Set(common);
  const beforeIndex = new Map(before.map((item, i) => [name(item), i]));
  for (const [i, item] of after.entries()) {
    const n = name(item);
    const from = beforeIndex.get(n);
    if (from === undefined) {
      out.push({ op: 'add', path: at(n), after: item });
      continue;
    }
    if (!kept.has(n)) out.push({ op: 'move', path: at(n), from, to: i });
    fieldDiff(before[from], item, at(n), out);
  }
  return out;
}

/** The names of a longest common subsequence of two orders: the items that did not move. */
function inOrder(a: string[], b: string[]): Set<string> {
  const n = a.length;
  const m = b.length;
  const len = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) len[i][j] = a[i] === b[j] ? len[i + 1][j + 1] + 1 : Math.max(len[i + 1][j], len[i][j + 1]);
  const kept = new Set<string>();
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (a[i] === b[j]) {
      kept.add(a[i]);
      i++;
      j++;
    } else if (len[i + 1][j] >= len[i][j + 1]) i++;
    else j++;
  }
  return kept;
}

/** `spec.template.spec.containers[name=app].image`; keys that are not plain names quoted, control characters shown escaped. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (typeof step === 'object') out += `[${step.key}=${step.value}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(step)) out += out ? `.${step}` : step;
    else out += `[${JSON.stringify(step)}]`;
  }
  return showControls(out || '.');
}
