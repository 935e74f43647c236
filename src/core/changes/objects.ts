/**
 * One producer's objects on both sides, compared object by object (group, kind, namespace, name):
 * added and removed objects shown whole, changed ones field by field (fieldDiff.ts); Secret values
 * masked first (`***`, `*** (before)`/`*** (after)` where they differ), and copies of them in other
 * objects too, so no value reaches the output.
 */
import { maskRenderedSecrets } from '../flux/mask';
import { maskSecretPair } from '../drift/mask';
import { deepEqual } from '../drift/compare';
import type { KubeJson } from '../kubeJson';
import { fieldDiff } from './fieldDiff';
import { deltaLines, signedLines } from './diffText';
import { yamlDocument } from '../escape/yaml';
import type { ObjectChange } from './types';

/** A change that masking hides whole: a Secret value copied into another object (replacements) changed. */
const MASKED_ONLY = '~ .: only Secret values copied into it differ (masked)';

export function compareObjects(before: readonly KubeJson[], after: readonly KubeJson[]): ObjectChange[] {
  // Most producers are the same on both sides: said without the display copies (masking a
  // producer that holds a Secret copies every object of it).
  if (unchanged(before, after)) return [];
  const [shownBefore, shownAfter] = masked(before, after);
  const beforeByKey = new Map(shownBefore.map((o, i) => [identity(o), { shown: o, raw: before[i] }]));
  const out: ObjectChange[] = [];
  const seen = new Set<string>();
  for (const [i, o] of shownAfter.entries()) {
    const key = identity(o);
    seen.add(key);
    const old = beforeByKey.get(key);
    if (!old) {
      const yaml = yamlDocument(o);
      out.push({ ...ref(o), change: 'added', diff: signedLines(yaml, '+'), yaml: { before: '', after: yaml } });
    } else if (!deepEqual(old.raw, after[i])) {
      out.push({ ...ref(o), change: 'changed', diff: deltaLines(fieldDiff(old.shown, o)) || MASKED_ONLY, yaml: { before: yamlDocument(old.shown), after: yamlDocument(o) } });
    }
  }
  for (const [key, { shown }] of beforeByKey) {
    if (seen.has(key)) continue;
    const yaml = yamlDocument(shown);
    out.push({ ...ref(shown), change: 'removed', diff: signedLines(yaml, '-'), yaml: { before: yaml, after: '' } });
  }
  return out.sort((a, b) => order(a).localeCompare(order(b)));
}

/** Whether compareObjects would find nothing: the same identities, each object equal to the other side's. */
function unchanged(before: readonly KubeJson[], after: readonly KubeJson[]): boolean {
  if (before.length !== after.length) return false;
  const beforeByKey = new Map(before.map((o) => [identity(o), o]));
  const seen = new Set<string>();
  for (const o of after) {
    const key = identity(o);
    const old = beforeByKey.get(key);
    if (old === undefined || !deepEqual(old, o)) return false;
    seen.add(key);
  }
  return seen.size === beforeByKey.size;
}

/** Display copies of both sides: each Secret masked against its other version, Secret values scrubbed elsewhere. */
function masked(before: readonly KubeJson[], after: readonly KubeJson[]): [KubeJson[], KubeJson[]] {
  const all = maskRenderedSecrets([...before, ...after]);
  const shownBefore = all.slice(0, before.length);
  const shownAfter = all.slice(before.length);
  const afterSecrets = new Map(after.flatMap((o, i) => (o.kind === 'Secret' ? [[identity(o), i] as const] : [])));
  const pairedAfter = new Set<number>();
  for (const [i, o] of before.entries()) {
    if (o.kind !== 'Secret') continue;
    const j = afterSecrets.get(identity(o));
    const b = structuredClone(o);
    const a = j === undefined ? undefined : structuredClone(after[j]);
    maskSecretPair(b, a);
    shownBefore[i] = b;
    if (j !== undefined) {
      shownAfter[j] = a!;
      pairedAfter.add(j);
    }
  }
  return [shownBefore, shownAfter];
}

function identity(o: KubeJson): string {
  const apiVersion = String(o.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const meta = (o.metadata ?? {}) as Record<string, unknown>;
  return JSON.stringify([group, o.kind ?? '', meta.namespace ?? '', meta.name ?? '']);
}

function ref(o: KubeJson): Pick<ObjectChange, 'kind' | 'name' | 'namespace'> {
  const meta = (o.metadata ?? {}) as Record<string, unknown>;
  return { kind: String(o.kind ?? ''), name: String(meta.name ?? ''), namespace: typeof meta.namespace === 'string' ? meta.namespace : '' };
}

function order(c: ObjectChange): string {
  return `${c.namespace}\0${c.kind}\0${c.name}`;
}
