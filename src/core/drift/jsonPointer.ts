import { isRecord, type PathSegment } from './types';

/** RFC 6901 pointer → segments ('' = the whole document). Throws on a pointer not starting with '/'. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`JSON pointer '${pointer}' must start with '/'`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function formatPointer(path: readonly PathSegment[]): string {
  return path.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Removes the value at `pointer` in place; a missing path is not an error (Flux applies ignore rules
 * with AllowMissingPathOnRemove). Negative array indices count from the end, as Flux allows.
 */
export function removeAtPointer(root: unknown, pointer: string): void {
  const segs = parsePointer(pointer);
  if (segs.length === 0) return;
  let current: unknown = root;
  for (let i = 0; i < segs.length - 1; i++) {
    current = child(current, segs[i]);
    if (current === undefined) return;
  }
  const last = segs[segs.length - 1];
  if (Array.isArray(current)) {
    const idx = arrayIndex(current, last);
    if (idx !== undefined) current.splice(idx, 1);
  } else if (isRecord(current)) {
    delete current[last];
  }
}

function child(v: unknown, seg: string): unknown {
  if (Array.isArray(v)) {
    const idx = arrayIndex(v, seg);
    return idx === undefined ? undefined : v[idx];
  }
  if (isRecord(v)) return Object.prototype.hasOwnProperty.call(v, seg) ? v[seg] : undefined;
  return undefined;
}

function arrayIndex(arr: unknown[], seg: string): number | undefined {
  if (!/^-?\d+$/.test(seg)) return undefined;
  let n = Number(seg);
  if (n < 0) n += arr.length;
  return n >= 0 && n < arr.length ? n : undefined;
}
