import type { RepoModel } from '../core/model/graph';
import type { LiveObjectStatus } from '../core/status/conditions';
import { FLUX_TYPES } from '../core/status/fluxKinds';
import type { FluxStatusWatcher } from './watch';

const FLUX_KINDS = new Set(FLUX_TYPES.map((t) => t.kind));
const key = (kind: string, ns: string, name: string) => `${kind}/${ns}/${name}`;

export interface LiveLookupView {
  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined;
  clusterOnly(): LiveObjectStatus[];
}

/**
 * What the tree reads for each node, answered from the watcher's cache only (never a request per
 * node): the object's status, "Absent" once its kind has been listed without it, and the Flux
 * objects the cluster has but the workspace does not.
 */
export function liveLookup(watcher: FluxStatusWatcher, model: () => RepoModel): LiveLookupView {
  let known: Set<string> | undefined;
  let knownFor: RepoModel | undefined;
  return {
    get(kind, namespace, name) {
      const status = watcher.get(kind, namespace, name);
      if (status) return status;
      return FLUX_KINDS.has(kind) && watcher.kindSynced(kind) ? { kind, namespace, name, state: 'Absent' } : undefined;
    },
    clusterOnly() {
      const m = model();
      if (!known || knownFor !== m) {
        known = workspaceFluxKeys(m);
        knownFor = m;
      }
      const k = known;
      return watcher
        .all()
        .filter((s) => !k.has(key(s.kind, s.namespace, s.name)))
        .sort((a, b) => a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
    },
  };
}

/** Flux objects of the workspace under the namespace they end up in (after Kustomization namespace/targetNamespace). */
export function workspaceFluxKeys(model: RepoModel): Set<string> {
  const keys = new Set<string>();
  for (const applied of model.appliedById.values()) {
    for (const a of applied) if (FLUX_KINDS.has(a.kind)) keys.add(key(a.kind, a.namespace ?? '', a.name));
  }
  for (const o of model.unapplied) if (FLUX_KINDS.has(o.kind)) keys.add(key(o.kind, o.namespace ?? 'default', o.name));
  return keys;
}
