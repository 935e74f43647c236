/**
 * Drift comparison between the live object and the server's dry-run result, as Flux decides it:
 * kustomize-controller (fluxcd/pkg ssa `hasDrifted`): labels and annotations must be equal, and
 * everything outside metadata and status must be equal; helm-controller (ssa/jsondiff): labels and
 * annotations the chart adds or changes count, ones only the cluster has do not.
 */
import type { KubeJson } from '../kubeJson';
import { isRecord, type FieldChange, type PathSegment } from './types';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

function metaMap(obj: KubeJson, field: 'labels' | 'annotations'): Record<string, unknown> {
  const m = isRecord(obj.metadata) ? obj.metadata[field] : undefined;
  return isRecord(m) ? m : {};
}

function body(obj: KubeJson): KubeJson {
  const { metadata: _m, status: _s, ...rest } = obj;
  return rest;
}

/** kustomize-controller's verdict: a nil and an empty label/annotation map are equal (apimachinery Semantic). */
export function kustomizeDrifted(live: KubeJson, dryRun: KubeJson): boolean {
  if (!deepEqual(metaMap(dryRun, 'labels'), metaMap(live, 'labels'))) return true;
  if (!deepEqual(metaMap(dryRun, 'annotations'), metaMap(live, 'annotations'))) return true;
  return !deepEqual(body(dryRun), body(live));
}

/** helm-controller's verdict: metadata removals are ignored (core controllers add labels of their own). */
export function helmDrifted(live: KubeJson, dryRun: KubeJson): boolean {
  for (const field of ['labels', 'annotations'] as const) {
    const l = metaMap(live, field);
    for (const [k, v] of Object.entries(metaMap(dryRun, field))) {
      if (!Object.prototype.hasOwnProperty.call(l, k) || !deepEqual(l[k], v)) return true;
    }
  }
  return !deepEqual(body(dryRun), body(live));
}

/**
 * Field-level differences from `live` to `desired`: objects are walked key by key, arrays of equal
 * length element by element; anything else that differs is one replace at its path.
 */
export function fieldChanges(live: unknown, desired: unknown, path: PathSegment[] = [], out: FieldChange[] = []): FieldChange[] {
  if (deepEqual(live, desired)) return out;
  if (isRecord(live) && isRecord(desired)) {
    for (const k of Object.keys(live)) {
      if (!Object.prototype.hasOwnProperty.call(desired, k)) out.push({ path: [...path, k], op: 'remove', live: live[k] });
      else fieldChanges(live[k], desired[k], [...path, k], out);
    }
    for (const k of Object.keys(desired)) {
      if (!Object.prototype.hasOwnProperty.call(live, k)) out.push({ path: [...path, k], op: 'add', desired: desired[k] });
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(desired) && live.length === desired.length) {
    live.forEach((x, i) => fieldChanges(x, desired[i], [...path, i], out));
    return out;
  }
  out.push({ path, op: 'replace', live, desired });
  return out;
}

/** Drops metadata label/annotation removals, which helm-controller does not count as drift. */
export function helmRelevantChanges(changes: FieldChange[]): FieldChange[] {
  return changes.filter(
    (c) => !(c.op === 'remove' && c.path[0] === 'metadata' && (c.path[1] === 'labels' || c.path[1] === 'annotations')),
  );
}
