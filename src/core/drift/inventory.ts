/**
 * kustomize-controller's inventory (`status.inventory.entries[]`): `id` is
 * `<namespace>_<name>_<group>_<kind>` (cli-utils ObjMetadata; `:` in names written as `__`), `v` the version.
 */
import type { KubeJson } from '../kubeJson';
import { groupOf } from '../kinds';
import { isRecord, type ObjectId } from './types';

export interface InventoryEntry {
  readonly namespace: string;
  readonly name: string;
  readonly group: string;
  readonly kind: string;
  readonly version: string;
}

export function inventoryId(e: { namespace?: string; name: string; group: string; kind: string }): string {
  return `${e.namespace ?? ''}_${e.name.split(':').join('__')}_${e.group}_${e.kind}`;
}

export function idToInventoryId(id: ObjectId): string {
  return inventoryId({ namespace: id.namespace, name: id.name, group: groupOf(id.apiVersion), kind: id.kind });
}

/**
 * Undefined when the id is malformed. Parsed as cli-utils ParseObjMetadata does: namespace up to the
 * first `_`, kind after the last, group before that, and the rest is the name (`__` → `:`).
 */
export function parseInventoryId(id: string, version = ''): InventoryEntry | undefined {
  const first = id.indexOf('_');
  if (first === -1) return undefined;
  const namespace = id.slice(0, first);
  let rest = id.slice(first + 1);
  const kindAt = rest.lastIndexOf('_');
  if (kindAt === -1) return undefined;
  const kind = rest.slice(kindAt + 1);
  rest = rest.slice(0, kindAt);
  const groupAt = rest.lastIndexOf('_');
  if (groupAt === -1) return undefined;
  const group = rest.slice(groupAt + 1);
  const name = rest.slice(0, groupAt).split('__').join(':');
  if (!name || !kind || name.includes('_')) return undefined;
  return { namespace, name, group, kind, version };
}

/** Entries of a live Kustomization's inventory; undefined when it has none (never reconciled, or old status). */
export function inventoryOf(liveKustomization: KubeJson | undefined): { entries: InventoryEntry[]; malformed: string[] } | undefined {
  const inv = liveKustomization?.status?.inventory;
  if (!isRecord(inv)) return undefined;
  const entries: InventoryEntry[] = [];
  const malformed: string[] = [];
  for (const e of Array.isArray(inv.entries) ? inv.entries : []) {
    if (!isRecord(e) || typeof e.id !== 'string') continue;
    const parsed = parseInventoryId(e.id, typeof e.v === 'string' ? e.v : '');
    if (parsed) entries.push(parsed);
    else malformed.push(e.id);
  }
  return { entries, malformed };
}

/** Inventory entries no rendered object matches (by group, kind, namespace, name; versions may differ). */
export function staleEntries(entries: readonly InventoryEntry[], rendered: readonly ObjectId[]): InventoryEntry[] {
  const present = new Set(rendered.map(idToInventoryId));
  return entries.filter((e) => !present.has(inventoryId(e)));
}

export function entryToId(e: InventoryEntry): ObjectId {
  return {
    apiVersion: e.group ? `${e.group}/${e.version}` : e.version,
    kind: e.kind,
    name: e.name,
    ...(e.namespace ? { namespace: e.namespace } : {}),
  };
}
