/**
 * Puts two builds of one Kustomization in a comparable form and diffs them. Both sides go
 * through the same steps: origin annotations dropped, Secret values reduced to their keys,
 * objects keyed by kind/namespace/name (output order is not compared: the controller applies
 * in its own staged order anyway).
 */
import { parseAllDocuments } from 'yaml';

export const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';
/**
 * Stands for a variable taken from a Secret in the Kustomization handed to flux: our build shows
 * those as `***` (it never displays Secret values), so flux's output shows the same mark.
 */
export const SECRET_VALUE_MARK = 'PARITY_SECRET_VALUE';
const MASK = '***';

export type Obj = Record<string, any>;

export function parseStream(text: string): Obj[] {
  const out: Obj[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) throw new Error(`not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
    const v = doc.toJS({ maxAliasCount: -1 });
    if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Obj);
  }
  return out;
}

function replaceMark(v: any): any {
  if (typeof v === 'string') return v.includes(SECRET_VALUE_MARK) ? v.split(SECRET_VALUE_MARK).join(MASK) : v;
  if (Array.isArray(v)) return v.map(replaceMark);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, replaceMark(x)]));
  return v;
}

export function objectKey(o: Obj): string {
  return `${o.kind ?? ''}/${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

export function normalizeObject(o: Obj): Obj {
  const c: Obj = replaceMark(structuredClone(o));
  const ann = c.metadata?.annotations;
  if (ann && typeof ann === 'object') {
    delete ann[ORIGIN_ANNOTATION];
    if (Object.keys(ann).length === 0) delete c.metadata.annotations;
  }
  if (c.kind === 'Secret') {
    for (const field of ['data', 'stringData']) {
      const d = c[field];
      if (d && typeof d === 'object') c[field] = Object.fromEntries(Object.keys(d).sort().map((k) => [k, MASK]));
    }
  }
  return c;
}

/** JSON with object keys sorted, so equal objects have equal text. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
}

export interface FieldDiff {
  path: string;
  flux: unknown;
  ours: unknown;
}

/** Leaf-level differences of two JSON values (at most `limit`). */
export function fieldDiffs(a: unknown, b: unknown, limit = 20, path = ''): FieldDiff[] {
  const out: FieldDiff[] = [];
  const walk = (x: any, y: any, p: string) => {
    if (out.length >= limit) return;
    const xo = x && typeof x === 'object';
    const yo = y && typeof y === 'object';
    if (xo && yo && Array.isArray(x) === Array.isArray(y)) {
      const keys = Array.isArray(x) ? [...Array(Math.max(x.length, y.length)).keys()].map(String) : [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
      for (const k of keys) walk(x[k], y[k], `${p}.${k}`);
      return;
    }
    if (canonical(x) !== canonical(y)) out.push({ path: p || '.', flux: x, ours: y });
  };
  walk(a, b, path);
  return out;
}

export interface BuildDiff {
  onlyFlux: string[];
  onlyOurs: string[];
  changed: { key: string; fields: FieldDiff[] }[];
  /** Same objects, different output order (informational). */
  orderDiffers: boolean;
}

export function diffBuilds(flux: Obj[], ours: Obj[]): BuildDiff {
  const index = (objs: Obj[]) => new Map(objs.map((o) => [objectKey(o), normalizeObject(o)]));
  const f = index(flux);
  const o = index(ours);
  const onlyFlux = [...f.keys()].filter((k) => !o.has(k)).sort();
  const onlyOurs = [...o.keys()].filter((k) => !f.has(k)).sort();
  const changed: BuildDiff['changed'] = [];
  for (const [k, fv] of [...f].sort(([a], [b]) => a.localeCompare(b))) {
    const ov = o.get(k);
    if (ov === undefined || canonical(fv) === canonical(ov)) continue;
    changed.push({ key: k, fields: fieldDiffs(fv, ov) });
  }
  const order = (objs: Obj[]) => objs.map(objectKey).join('\n');
  return { onlyFlux, onlyOurs, changed, orderDiffers: order(flux) !== order(ours) };
}

export function isIdentical(d: BuildDiff): boolean {
  return d.onlyFlux.length === 0 && d.onlyOurs.length === 0 && d.changed.length === 0;
}
