/**
 * Live status for the tree, answered from the latest watcher snapshot only (never a request per
 * node): an object's status, "Absent" once its kind has been listed without it, and the Flux
 * objects the cluster has but no workspace folder defines.
 */
import type { RepoModel } from '../core/model/graph';
import type { LiveObjectStatus } from '../core/status/conditions';
import { FLUX_TYPES } from '../core/kinds';
import type { LiveLookup } from '../core/tree/viewModel';
import { namespaceOf } from './targets';

const FLUX_KINDS = new Set(FLUX_TYPES.map((t) => t.kind));
const key = (kind: string, ns: string, name: string) => `${kind}/${ns}/${name}`;

/** What the status watcher knows: `FluxStatusWatcher` satisfies it, and so does a posted snapshot. */
export interface LiveCache {
  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined;
  kindSynced(kind: string): boolean;
  all(): LiveObjectStatus[];
}

/** A snapshot (plain data, as posted to the engine) seen as a cache. */
export function snapshotCache(statuses: readonly LiveObjectStatus[], syncedKinds: readonly string[]): LiveCache {
  const byKey = new Map(statuses.map((s) => [key(s.kind, s.namespace, s.name), s]));
  const synced = new Set(syncedKinds);
  return { get: (k, ns, n) => byKey.get(key(k, ns, n)), kindSynced: (k) => synced.has(k), all: () => [...statuses] };
}

/** Flux objects of the workspace under the namespace they end up in (after Kustomization namespace/targetNamespace). */
export function workspaceFluxKeys(models: readonly RepoModel[]): Set<string> {
  const keys = new Set<string>();
  for (const model of models) {
    for (const applied of model.appliedById.values()) {
      for (const a of applied) if (FLUX_KINDS.has(a.kind)) keys.add(key(a.kind, a.namespace ?? '', a.name));
    }
    for (const o of model.unapplied) if (FLUX_KINDS.has(o.kind)) keys.add(key(o.kind, namespaceOf(o), o.name));
  }
  return keys;
}

/** Status per tree node and the cluster-only objects, over every workspace folder's model. */
export function liveLookup(cache: LiveCache, models: () => readonly RepoModel[]): LiveLookup {
  let known: { for: readonly RepoModel[]; keys: Set<string> } | undefined;
  return {
    get(kind, namespace, name) {
      const status = cache.get(kind, namespace, name);
      if (status) return status;
      return FLUX_KINDS.has(kind) && cache.kindSynced(kind) ? { kind, namespace, name, state: 'Absent' } : undefined;
    },
    clusterOnly() {
      const m = models();
      if (!known || known.for.length !== m.length || known.for.some((x, i) => x !== m[i])) known = { for: m, keys: workspaceFluxKeys(m) };
      const k = known.keys;
      return cache
        .all()
        .filter((s) => !k.has(key(s.kind, s.namespace, s.name)))
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    },
  };
}
