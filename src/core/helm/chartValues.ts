/**
 * What a chart says of its values, for hover and completion inside a HelmRelease's `spec.values`:
 * its values.schema.json (JSON Schema: `$ref` inside the document, allOf/anyOf/oneOf, items,
 * additionalProperties) and its values.yaml (keys, defaults, and the comments above them, which
 * helm-docs style `# -- …` charts use as descriptions), its subcharts' under their names. Pure:
 * the engine reads the files (engine/chartValues.ts), this module answers questions on a path.
 *
 * A chart is repository or registry content: its schema's patterns are never compiled here, and
 * every walk is bounded.
 */
import { isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { QUIET } from '../yaml/document';

type Json = Record<string, unknown>;

export interface ChartValues {
  /** `name@version` of Chart.yaml, for the hover's last line. */
  readonly chart: string;
  /** values.schema.json, parsed; absent when the chart has none (or it does not parse). */
  readonly schema?: Json;
  /** values.yaml, parsed with its comments. */
  readonly defaults?: Node;
  /** Unpacked subcharts by name: their values sit under that key. */
  readonly subcharts: Readonly<Record<string, ChartValues>>;
}

/** One key the chart knows at a place of its values. */
export interface ValuesField {
  readonly name: string;
  /** `string`, `integer or null`, `map`…: the schema's, else the default's. */
  readonly type: string;
  readonly description: string;
  readonly required: boolean;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  /** Whether it holds a map or list (completion inserts `key:` and a new line). */
  readonly nested: boolean;
}

export type ValuesPath = readonly (string | number)[];

/** Bounds on walking a chart's schema: `$ref` hops and branches expanded per step. */
const MAX_REF_DEPTH = 16;
const MAX_BRANCHES = 64;

/** Parses a chart's values files; a file that does not parse is left out (its render says why). */
export function chartValuesOf(chart: string, schemaText: string | undefined, valuesText: string | undefined, subcharts: Record<string, ChartValues> = {}): ChartValues {
  let schema: Json | undefined;
  if (schemaText !== undefined) {
    try {
      const parsed: unknown = JSON.parse(schemaText);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) schema = parsed as Json;
    } catch {
      // No schema to offer.
    }
  }
  let defaults: Node | undefined;
  if (valuesText !== undefined) {
    const doc = parseDocument(valuesText, QUIET);
    if (!doc.errors.length && doc.contents) defaults = doc.contents as Node;
  }
  return { chart, ...(schema ? { schema } : {}), ...(defaults ? { defaults } : {}), subcharts };
}

/** The field at `path` (its last segment named), or undefined when the chart knows nothing of it. */
export function valuesField(values: ChartValues, path: ValuesPath): ValuesField | undefined {
  if (!path.length) return undefined;
  const name = String(path[path.length - 1]);
  const parent = valuesFields(values, path.slice(0, -1));
  return parent.find((f) => f.name === name) ?? describe(name, schemasAt(values, path), defaultAt(values, path), false);
}

/** The keys the chart knows directly under `path`: the schema's, then values.yaml's it lacks. */
export function valuesFields(values: ChartValues, path: ValuesPath): ValuesField[] {
  const sub = subchartOf(values, path);
  if (sub) return valuesFields(sub.values, sub.rest);
  const out = new Map<string, ValuesField>();
  const schemas = schemasAt(values, path);
  const required = new Set<string>();
  const props = new Map<string, Json[]>();
  for (const s of schemas) {
    for (const r of Array.isArray(s.required) ? s.required : []) if (typeof r === 'string') required.add(r);
    const p = record(s.properties);
    for (const [k, v] of Object.entries(p ?? {})) {
      const list = props.get(k) ?? [];
      list.push(...expand(values.schema!, v));
      props.set(k, list);
    }
  }
  for (const [k, list] of props) out.set(k, describe(k, list, defaultAt(values, [...path, k]), required.has(k)));
  const node = defaultNodeAt(values.defaults, path);
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair) || !isScalar(pair.key)) continue;
      const k = String(pair.key.value);
      if (!out.has(k)) out.set(k, describe(k, [], { node: pair.value as Node | null, comment: commentOf(pair) }, false));
    }
  }
  if (!path.length) for (const name of Object.keys(values.subcharts)) if (!out.has(name)) out.set(name, { name, type: 'map', description: `Values of the subchart ${name}.`, required: false, nested: true });
  return [...out.values()];
}

/** The chart knowledge holding `path` (a subchart's, for a path under its name, when the parent's schema does not describe it). */
function subchartOf(values: ChartValues, path: ValuesPath): { values: ChartValues; rest: ValuesPath } | undefined {
  if (!path.length) return undefined;
  const sub = Object.prototype.hasOwnProperty.call(values.subcharts, String(path[0])) ? values.subcharts[String(path[0])] : undefined;
  if (!sub) return undefined;
  if (schemasAt(values, path.slice(0, 1)).some((s) => record(s.properties))) return undefined;
  return { values: sub, rest: path.slice(1) };
}

function describe(name: string, schemas: Json[], fromDefaults: { node: Node | null | undefined; comment: string } | undefined, required: boolean): ValuesField {
  const text = (k: string) => schemas.map((s) => s[k]).find((v): v is string => typeof v === 'string');
  const types = new Set<string>();
  for (const s of schemas) for (const t of Array.isArray(s.type) ? s.type : [s.type]) if (typeof t === 'string') types.add(t);
  const node = fromDefaults?.node;
  const defaultValue = schemas.map((s) => s.default).find((d) => d !== undefined) ?? (node ? plain(node) : undefined);
  if (!types.size && node) types.add(isMap(node) ? 'object' : isSeq(node) ? 'array' : typeof plain(node) === 'number' ? 'number' : typeof plain(node) === 'boolean' ? 'boolean' : 'string');
  const enumValues = schemas.map((s) => s.enum).find((e): e is unknown[] => Array.isArray(e));
  const nested = types.has('object') || types.has('array') || schemas.some((s) => record(s.properties) || s.items);
  const description = text('description') ?? text('title') ?? fromDefaults?.comment ?? '';
  return {
    name,
    type: [...types].map((t) => (t === 'object' ? 'map' : t === 'array' ? 'list' : t)).join(' or ') || 'any',
    description,
    required,
    nested,
    ...(defaultValue !== undefined ? { default: defaultValue } : {}),
    ...(enumValues ? { enum: enumValues } : {}),
  };
}

/** Every schema describing the value at `path`: `$ref`s followed, allOf/anyOf/oneOf branches side by side. */
function schemasAt(values: ChartValues, path: ValuesPath): Json[] {
  const root = values.schema;
  if (!root) return [];
  let current = expand(root, root);
  for (const seg of path) {
    const next: Json[] = [];
    for (const s of current) {
      if (typeof seg === 'number') {
        const items = s.items;
        if (Array.isArray(items)) next.push(...expand(root, items[seg]));
        else next.push(...expand(root, items));
        continue;
      }
      const props = record(s.properties);
      if (props && Object.prototype.hasOwnProperty.call(props, seg)) next.push(...expand(root, props[seg]));
      else if (record(s.additionalProperties)) next.push(...expand(root, s.additionalProperties));
      else {
        // patternProperties: the patterns are chart text, never compiled; any of them may hold the key.
        for (const p of Object.values(record(s.patternProperties) ?? {})) next.push(...expand(root, p));
      }
    }
    current = next.slice(0, MAX_BRANCHES);
    if (!current.length) return [];
  }
  return current;
}

/** `s` with its `$ref` (inside the document) followed and its allOf/anyOf/oneOf branches beside it. */
function expand(root: Json, s: unknown, depth = 0, out: Json[] = []): Json[] {
  const o = record(s);
  if (!o || depth > MAX_REF_DEPTH || out.length >= MAX_BRANCHES) return out;
  if (typeof o.$ref === 'string') {
    const target = pointer(root, o.$ref);
    if (target) expand(root, target, depth + 1, out);
  }
  out.push(o);
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const list = o[k];
    if (Array.isArray(list)) for (const b of list) expand(root, b, depth + 1, out);
  }
  return out;
}

/** A `#/a/b` reference inside the schema document (others are not followed: no network, no files). */
function pointer(root: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined; // A malformed escape names nothing.
    }
    const r = record(node);
    if (Array.isArray(node)) node = node[Number(key)];
    else if (r && Object.prototype.hasOwnProperty.call(r, key)) node = r[key];
    else return undefined;
  }
  return node;
}

function defaultAt(values: ChartValues, path: ValuesPath): { node: Node | null | undefined; comment: string } | undefined {
  if (!path.length || !values.defaults) return undefined;
  const parent = defaultNodeAt(values.defaults, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isMap(parent)) {
    const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(last));
    if (pair) return { node: pair.value as Node | null, comment: commentOf(pair) };
  }
  if (isSeq(parent) && typeof last === 'number') return { node: parent.items[last] as Node | undefined, comment: '' };
  return undefined;
}

function defaultNodeAt(node: Node | undefined, path: ValuesPath): Node | undefined {
  let current: unknown = node;
  for (const seg of path) {
    if (isMap(current)) {
      const pair = current.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      current = pair?.value;
    } else if (isSeq(current)) current = current.items[typeof seg === 'number' ? seg : 0];
    else return undefined;
  }
  return (current ?? undefined) as Node | undefined;
}

/** The comment above a key: helm-docs' `# -- text` (and its `# …` continuation lines), else the plain comment. */
function commentOf(pair: { key: unknown; value: unknown }): string {
  const key = pair.key as { commentBefore?: string | null };
  const raw = key.commentBefore ?? (pair as { commentBefore?: string | null }).commentBefore ?? '';
  if (!raw) return '';
  const lines = raw.split('\n').map((l) => l.replace(/^ ?/, ''));
  const doc = lines.findIndex((l) => l.startsWith('-- '));
  const kept = doc >= 0 ? [lines[doc].slice(3), ...lines.slice(doc + 1).filter((l) => !l.startsWith('@'))] : lines.filter((l) => !/^-{2,}|^@/.test(l));
  return kept.join('\n').trim();
}

function plain(node: Node): unknown {
  try {
    return (node as { toJSON?: () => unknown }).toJSON?.() ?? (isScalar(node) ? node.value : undefined);
  } catch {
    return undefined;
  }
}

function record(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}
