/**
 * helm-controller v1.6's values: fluxcd/pkg/chartutil ChartValuesFromReferences (valuesFrom in
 * order, `targetPath` through Helm's `--set` parser, `optional`), then `spec.values` on top.
 */
import { parseYaml } from '../yaml/document';
import type { ClusterModel, RepoModel } from '../model/graph';
import { asArray, asRecord, asString } from '../model/objects';
import { MASK } from './mask';
import { getOwn, PROTOTYPE_KEYS, setOwn } from '../safeRecord';
import { dataOf, findClusterObject } from './postbuild';
import { trimChars } from '../text';

type Values = Record<string, any>;

/** chartutil.MergeMaps: maps merge recursively, anything else in `b` replaces `a`'s. */
export function mergeMaps(a: Values, b: Values): Values {
  const out: Values = {};
  for (const [k, v] of Object.entries(a)) setOwn(out, k, v);
  for (const [k, v] of Object.entries(b)) {
    const bv = asRecord(v);
    const av = asRecord(getOwn(out, k));
    setOwn(out, k, bv && av ? mergeMaps(av, bv) : v);
  }
  return out;
}

/** Helm strvals' MaxIndex: a larger list index is refused (it would allocate the list). */
export const MAX_LIST_INDEX = 65536;

/** Helm strvals' typing of a `--set` value: bools, null, int64 (no leading zero), else string. */
function typedValue(v: string): unknown {
  if (v.toLowerCase() === 'true') return true;
  if (v.toLowerCase() === 'false') return false;
  if (v.toLowerCase() === 'null') return null;
  if (v === '0') return 0;
  if (/^[-+]?[1-9]\d*$/.test(v)) {
    const n = Number(v);
    if (Number.isSafeInteger(n)) return n;
  }
  return v;
}

/**
 * Splits `a.b[0].c` into segments (`\.` escapes a dot), as strvals does for keys. Refuses what
 * helm refuses (a list index over MAX_LIST_INDEX) and the segments that would reach a shared
 * JavaScript prototype (`__proto__`, `constructor`, `prototype`), which no chart reads.
 */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  let cur = '';
  const push = (seg: string) => {
    if (PROTOTYPE_KEYS.has(seg)) throw new Error(`the key '${seg}' is not allowed in a values path`);
    out.push(seg);
  };
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '\\' && i + 1 < path.length) cur += path[++i];
    else if (c === '.') {
      if (cur !== '') push(cur);
      cur = '';
    } else if (c === '[') {
      if (cur !== '') push(cur);
      cur = '';
      const end = path.indexOf(']', i);
      if (end === -1) throw new Error('unterminated [');
      const text = path.slice(i + 1, end);
      const idx = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
      if (!Number.isInteger(idx)) throw new Error(`bad list index '${text.length > 20 ? `${text.slice(0, 20)}…` : text}'`);
      if (idx > MAX_LIST_INDEX) throw new Error(`list index ${idx} is greater than the maximum supported index ${MAX_LIST_INDEX}`);
      out.push(idx);
      i = end;
    } else cur += c;
  }
  if (cur !== '') push(cur);
  if (out.length === 0) throw new Error(`empty path`);
  return out;
}

/**
 * chartutil.ReplacePathValue: sets `path` to `value` (typed like `--set`, or a string when the
 * value is quoted). A `,` in an unquoted value ends it, as with `--set`; the rest is dropped.
 */
export function replacePathValue(values: Values, path: string, value: string, literal = false): void {
  let v: unknown;
  const quoted = /^'.*'$|^".*"$/s.test(value);
  if (literal) v = value;
  else if (quoted) v = trimChars(value, `'"`);
  else {
    let plain = '';
    for (let i = 0; i < value.length; i++) {
      if (value[i] === '\\' && i + 1 < value.length) plain += value[++i];
      else if (value[i] === ',') break;
      else plain += value[i];
    }
    v = typedValue(plain);
  }
  const segs = parsePath(path);
  let node: any = values;
  for (let i = 0; i < segs.length - 1; i++) {
    const s = segs[i];
    const nextIsIndex = typeof segs[i + 1] === 'number';
    if (Array.isArray(node) && typeof s === 'number') while (node.length < s) node.push(null);
    const child = getOwn(node, s);
    if (child === undefined || child === null || typeof child !== 'object') setOwn(node, s, nextIsIndex ? [] : {});
    node = getOwn(node, s);
  }
  const last = segs[segs.length - 1];
  if (Array.isArray(node) && typeof last === 'number') while (node.length < last) node.push(null);
  setOwn(node, last, v);
}

export interface ValuesResult {
  values: Values;
  warnings: string[];
  error?: string;
}

/** The values helm-controller passes to the chart for `hr` (applied in `cluster`, namespace `namespace`). */
/** Every scalar of a values tree replaced by `***` (structure kept, so the chart still renders). */
export function maskLeaves(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskLeaves);
  const r = asRecord(v);
  if (r) {
    const out: Values = {};
    for (const [k, x] of Object.entries(r)) setOwn(out, k, maskLeaves(x));
    return out;
  }
  return v === null || v === undefined ? v : MASK;
}

export function helmReleaseValues(model: RepoModel, cluster: ClusterModel, spec: Record<string, any>, namespace: string, revealSecrets = false): ValuesResult {
  const warnings: string[] = [];
  let result: Values = {};
  // A copy: a targetPath sets its value inside the merge, which holds spec.values' own maps.
  const inline = structuredClone(asRecord(spec.values) ?? {});
  for (const entry of asArray(spec.valuesFrom)) {
    const ref = asRecord(entry) ?? {};
    const kind = asString(ref.kind) ?? '';
    const name = asString(ref.name) ?? '';
    const key = asString(ref.valuesKey) || 'values.yaml';
    const label = `valuesFrom ${kind}/${namespace}/${name}`;
    if (kind !== 'ConfigMap' && kind !== 'Secret') return { values: result, warnings, error: `${label}: unsupported values reference kind` };
    const object = findClusterObject(model, cluster, kind, namespace, name);
    if (!object) {
      if (ref.optional !== true) warnings.push(`${label} is not in the workspace (the cluster may have it): its values are not included.`);
      continue;
    }
    const { data, masked: sops } = dataOf(object);
    const hide = kind === 'Secret' && !revealSecrets;
    const masked = sops || hide;
    if (hide) warnings.push(`${label}: values from Secrets are shown as ${MASK}.`);
    let raw = data.get(key);
    if (raw === undefined) {
      if (ref.optional !== true) return { values: result, warnings, error: `${label}: key '${key}' not found` };
      continue;
    }
    const targetPath = asString(ref.targetPath);
    if (hide && targetPath) raw = MASK;
    if (targetPath) {
      result = mergeMaps(result, inline);
      try {
        replacePathValue(result, targetPath, raw, ref.literal === true || (masked && raw === MASK));
      } catch (err) {
        return { values: result, warnings, error: `${label}: cannot set targetPath '${targetPath}': ${(err as Error).message}` };
      }
      if (sops && raw === MASK) warnings.push(`${label} is SOPS-encrypted: ${targetPath} is shown as ${MASK}.`);
      continue;
    }
    if (sops && raw === MASK) {
      warnings.push(`${label} is SOPS-encrypted: its values cannot be read (never decrypted) and are left out.`);
      continue;
    }
    let parsed: unknown;
    try {
      parsed = parseYaml(raw);
    } catch (err) {
      return { values: result, warnings, error: `${label}: key '${key}' is not valid YAML: ${(err as Error).message.split('\n')[0]}` };
    }
    if (parsed !== null && parsed !== undefined && !asRecord(parsed)) return { values: result, warnings, error: `${label}: key '${key}' is not a YAML map` };
    result = mergeMaps(result, asRecord(hide ? maskLeaves(parsed) : parsed) ?? {});
  }
  return { values: mergeMaps(result, inline), warnings };
}
