/**
 * Object selectors of Flux ignore rules (`spec.driftDetection.ignore[].target`, Kustomization
 * `spec.ignore`): regular expressions anchored at both ends, plus Kubernetes label-selector
 * expressions for labels and annotations (fluxcd/pkg ssa/jsondiff selector.go).
 */
import type { KubeJson } from '../kubeJson';
import { groupOf } from '../kinds';
import { versionOf } from '../kinds';
import { isRecord } from './types';
import { setOwn } from '../safeRecord';

export interface Selector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  annotationSelector?: string;
  labelSelector?: string;
}

type Requirement = (set: Record<string, string>) => boolean;

export interface CompiledSelector {
  matches(obj: KubeJson): boolean;
}

/** Throws an Error saying which field is invalid. */
export function compileSelector(s: Selector | undefined): CompiledSelector {
  if (!s) return { matches: () => true };
  const re = (field: keyof Selector): RegExp | undefined => {
    const p = s[field];
    if (!p) return undefined;
    try {
      return new RegExp(`^(?:${p})$`);
    } catch (e) {
      throw new Error(`invalid ${field} regex '${p}': ${(e as Error).message}`);
    }
  };
  const group = re('group');
  const version = re('version');
  const kind = re('kind');
  const name = re('name');
  const namespace = re('namespace');
  const labels = s.labelSelector ? parseLabelSelector(s.labelSelector, 'label selector') : undefined;
  const annotations = s.annotationSelector ? parseLabelSelector(s.annotationSelector, 'annotation selector') : undefined;
  return {
    matches(obj: KubeJson): boolean {
      const meta = isRecord(obj.metadata) ? obj.metadata : {};
      const apiVersion = String(obj.apiVersion ?? '');
      if (namespace && !namespace.test(String(meta.namespace ?? ''))) return false;
      if (name && !name.test(String(meta.name ?? ''))) return false;
      if (group && !group.test(groupOf(apiVersion))) return false;
      if (version && !version.test(versionOf(apiVersion))) return false;
      if (kind && !kind.test(String(obj.kind ?? ''))) return false;
      if (labels && !labels.every((r) => r(stringMap(meta.labels)))) return false;
      if (annotations && !annotations.every((r) => r(stringMap(meta.annotations)))) return false;
      return true;
    },
  };
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, x] of Object.entries(v)) setOwn(out, k, String(x));
  return out;
}

/** Kubernetes label selector syntax: `k`, `!k`, `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k>1`, `k<1`. */
export function parseLabelSelector(text: string, what = 'selector'): Requirement[] {
  const reqs: Requirement[] = [];
  for (const part of splitTopLevel(text)) {
    const p = part.trim();
    if (!p) continue;
    let m: RegExpExecArray | null;
    if ((m = /^!\s*([\w./-]+)$/.exec(p))) {
      const k = m[1];
      reqs.push((s) => !(k in s));
    } else if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p))) {
      const [, k, op, list] = m;
      const values = new Set(list.split(',').map((v) => v.trim()));
      reqs.push(op === 'in' ? (s) => k in s && values.has(s[k]) : (s) => !(k in s) || !values.has(s[k]));
    } else if ((m = /^([\w./-]+)\s*(==|!=|=|>|<)\s*([\w./-]*)$/.exec(p))) {
      const [, k, op, v] = m;
      if (op === '!=') reqs.push((s) => s[k] !== v);
      else if (op === '>' || op === '<') {
        const n = Number(v);
        if (!Number.isFinite(n)) throw new Error(`invalid ${what} '${text}': '${v}' is not a number`);
        reqs.push((s) => k in s && Number.isFinite(Number(s[k])) && (op === '>' ? Number(s[k]) > n : Number(s[k]) < n));
      } else reqs.push((s) => s[k] === v);
    } else if ((m = /^([\w./-]+)$/.exec(p))) {
      const k = m[1];
      reqs.push((s) => k in s);
    } else {
      throw new Error(`invalid ${what} '${text}': cannot read '${p}'`);
    }
  }
  return reqs;
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}
