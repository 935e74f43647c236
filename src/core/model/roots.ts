/**
 * Which Kustomizations are the roots of clusters: what `flux bootstrap` writes, what FluxInstance
 * syncs create, what the repository declares, and, failing those, the Kustomizations nothing else
 * applies.
 */
import type { Workspace } from '../workspace/workspace';
import { inferClusterFolderRoots, isBootstrapSyncFile } from './bootstrap';
import { bootstrapAppliedKustomizations } from '../bootstrap/index';
import { configuredRoots } from './configuredRoots';
import type { FluxInstanceSync } from './fluxOperator';
import { leftOutOfFolder } from './leftOut';
import { asRecord, asString, type KubeObject } from './objects';
import { stronglyConnected } from './scc';
import { DEFAULT_NAMESPACE, type ModelProblem } from './types';
import { normalizeVirtual } from './view';

/** A bootstrap root: a cluster. `pathNamed`: the cluster is named after the root's path (its last folder). */
export interface Root {
  readonly object: KubeObject;
  readonly pathNamed: boolean;
  /** Declared in the repository's settings. */
  readonly name?: string;
}

/**
 * The clusters' roots: Kustomizations `flux bootstrap` writes (gotk-sync.yaml, or the one it would
 * write for a placeholder) and those FluxInstance syncs create. Several sync roots of one path are
 * one cluster; a gotk-sync.yaml Kustomization that another root applies is part of that cluster
 * (a FluxInstance syncing a folder that keeps a hand-written gotk-sync.yaml). A repository with
 * neither falls back to the Kustomizations nothing else applies (strays beside a self-applying one
 * excepted, and those their folder's kustomization leaves out; several in one cluster folder are
 * that folder's inferred root, returned in `inferred` with its source). `ksIdsIn` gives the ids of
 * the Kustomizations one applies, as written.
 *
 * `flux bootstrap --path=<p>` writes `<p>/flux-system/gotk-sync.yaml` syncing `./<p>`: a gotk-sync.yaml
 * whose Kustomization syncs another folder, one its source does not hold, was written for no folder
 * of this repository (a template a script copies to `clusters/<name>`, `cluster-name` filled in).
 * Nothing was bootstrapped from it: `unbootstrapped` tells these, and they are no cluster's root.
 */
export function clusterRoots(
  ksObjects: readonly KubeObject[],
  patches: Set<string>,
  syncOf: Map<string, FluxInstanceSync>,
  ws: Workspace,
  problems: ModelProblem[],
  ksIdsIn: (ks: KubeObject) => string[],
  unbootstrapped: (ks: KubeObject) => boolean = () => false,
  objectIdsIn: (ks: KubeObject) => Iterable<string> = () => [],
): { roots: Root[]; inferred: KubeObject[] } {
  const declared = configuredRoots(ws, ksObjects);
  if (declared) return declared;
  // What a bootstrap step applies (`kubectl apply -k kubernetes/main/flux/config`) Flux reconciles
  // first. Beside such roots, a FluxInstance (or flux-instance chart) that none of their clusters
  // applies is a draft (its Kustomization commented out, say): its sync makes no cluster.
  const stepped = bootstrapAppliedKustomizations(ws);
  let steppedApply: Set<string> | undefined;
  const ownerApplied = (owner: KubeObject, from: readonly KubeObject[]): boolean => {
    if (!steppedApply) {
      const byId = new Map(ksObjects.map((o) => [o.id, o]));
      const reached = new Set(from.map((o) => o.id));
      const queue = [...reached];
      for (let head = 0; head < queue.length; head++) {
        for (const id of ksIdsIn(byId.get(queue[head])!)) {
          if (reached.has(id) || !byId.has(id)) continue;
          reached.add(id);
          queue.push(id);
        }
      }
      steppedApply = new Set();
      for (const id of reached) for (const o of objectIdsIn(byId.get(id)!)) steppedApply.add(o);
    }
    return steppedApply.has(owner.id);
  };
  const bootstrap: Root[] = [];
  const seen = new Set<string>();
  const add = (object: KubeObject) => {
    const spec = asRecord(object.body.spec);
    const key = `${object.namespace}/${object.name}|${normalizeVirtual(asString(spec?.path) ?? '')}|${object.file}`;
    const samePath = `${object.namespace}/${object.name}|${normalizeVirtual(asString(spec?.path) ?? '')}`;
    if (seen.has(key) || seen.has(samePath)) return;
    seen.add(key);
    seen.add(samePath);
    bootstrap.push({ object, pathNamed: true });
  };
  const templates = new Set(ksObjects.filter((ks) => isBootstrapSyncFile(ks.file) && !patches.has(ks.file) && unbootstrapped(ks)).map((ks) => ks.id));
  for (const ks of ksObjects) if (isBootstrapSyncFile(ks.file) && !patches.has(ks.file) && !templates.has(ks.id)) add(ks);
  const steppedRoots = ksObjects.filter((ks) => stepped.has(ks.id) && !patches.has(ks.file));
  for (const ks of steppedRoots) add(ks);
  for (const ks of ksObjects) {
    const sync = syncOf.get(ks.id);
    if (sync && (steppedRoots.length === 0 || ownerApplied(sync.owner, steppedRoots))) add(ks);
  }
  if (bootstrap.length) {
    const applied = appliedByOtherRoot(bootstrap, ksObjects, ksIdsIn);
    const kept = bootstrap.filter((r) => syncOf.has(r.object.id) || !applied.has(r.object.id));
    return { roots: kept.sort((a, b) => (a.object.file < b.object.file ? -1 : a.object.file > b.object.file ? 1 : 0)), inferred: [] };
  }
  // No bootstrap file: roots are the Kustomizations nothing else applies (one applying itself counts).
  const appliedByOther = new Set<string>();
  const selfApplying = new Set<string>();
  const appliesKs = new Map<string, string[]>();
  for (const ks of ksObjects) {
    const others: string[] = [];
    for (const id of ksIdsIn(ks)) {
      if (id === ks.id) selfApplying.add(ks.id);
      else {
        appliedByOther.add(id);
        others.push(id);
      }
    }
    appliesKs.set(ks.id, others);
  }
  const unpatched = ksObjects.filter((o) => !patches.has(o.file) && !templates.has(o.id));
  let unapplied = unpatched.filter((o) => !appliedByOther.has(o.id));
  // One left out of its folder's kustomization (commented out there) is applied by nothing, as long
  // as another root remains to apply that kustomization.
  const leftOut = unapplied.filter((o) => leftOutOfFolder(ws, o.file));
  if (leftOut.length && leftOut.length < unapplied.length) unapplied = unapplied.filter((o) => !leftOut.includes(o));
  // One that applies itself is how a cluster syncs its own definitions: beside it, a Kustomization
  // that nothing applies and that applies no other is a stray (an app left out of its overlay),
  // not a cluster of its own.
  let plain = unapplied.some((o) => selfApplying.has(o.id)) ? unapplied.filter((o) => selfApplying.has(o.id) || appliesKs.get(o.id)!.length > 0) : unapplied;
  // Several of them in one folder, which bootstrap would sync: that folder is the cluster.
  const inferred = inferClusterFolderRoots(ws, plain);
  const folded = new Set(inferred.flatMap((o) => (o.origin ? [o.origin.file.slice(0, o.origin.file.lastIndexOf('/'))] : [])));
  plain = plain.filter((o) => !folded.has(o.file.slice(0, o.file.lastIndexOf('/'))));
  const reached = [...unapplied, ...leftOut];
  const roots = [
    ...inferred.filter((o) => o.fluxKind === 'Kustomization').map((object) => ({ object, pathNamed: true })),
    ...plain.map((object) => ({ object, pathNamed: selfApplying.has(object.id) })),
    ...cycleRoots(unpatched, reached, appliesKs, selfApplying, ws.root, problems).map((object) => ({ object, pathNamed: selfApplying.has(object.id) })),
  ];
  return { roots, inferred };
}

/**
 * Ids of the roots some other root applies, directly or through the Kustomizations it applies.
 * Two roots that apply each other keep each other: neither is the other's part.
 */
function appliedByOtherRoot(roots: readonly Root[], ksObjects: readonly KubeObject[], ksIdsIn: (ks: KubeObject) => string[]): Set<string> {
  if (roots.length < 2) return new Set();
  const byId = new Map(ksObjects.map((o) => [o.id, o]));
  const reach = new Map<string, Set<string>>();
  for (const { object } of roots) {
    const seen = new Set<string>();
    const queue = [object.id];
    for (let head = 0; head < queue.length; head++) {
      const ks = byId.get(queue[head]);
      if (!ks) continue;
      for (const id of ksIdsIn(ks)) {
        if (seen.has(id)) continue;
        seen.add(id);
        queue.push(id);
      }
    }
    reach.set(object.id, seen);
  }
  const out = new Set<string>();
  for (const a of roots) {
    for (const b of roots) {
      if (a === b) continue;
      if (reach.get(a.object.id)!.has(b.object.id) && !reach.get(b.object.id)!.has(a.object.id)) out.add(b.object.id);
    }
  }
  return out;
}

/**
 * Kustomizations that apply each other in a cycle (a spec.path such as `./` or `..` that includes
 * the file of the Kustomization applying it) are all "applied by another", so none would be a
 * root and the whole cluster would vanish from the tree and the checks. Each such cycle reached
 * from no root gets one: the member with the narrowest (deepest) spec.path, the one that does
 * not reach above its own place; the members applying it are reported as `apply-cycle`.
 */
function cycleRoots(
  ksObjects: KubeObject[],
  roots: KubeObject[],
  appliesKs: Map<string, string[]>,
  selfApplying: Set<string>,
  root: string,
  problems: ModelProblem[],
): KubeObject[] {
  const reached = new Set(roots.map((r) => r.id));
  const queue = [...reached];
  for (let head = 0; head < queue.length; head++) {
    for (const id of appliesKs.get(queue[head]) ?? []) {
      if (!reached.has(id)) {
        reached.add(id);
        queue.push(id);
      }
    }
  }
  const stranded = new Map(ksObjects.filter((o) => !reached.has(o.id)).map((o) => [o.id, o]));
  if (stranded.size === 0) return [];
  const next = (id: string) => (appliesKs.get(id) ?? []).filter((t) => stranded.has(t));
  const component = stronglyConnected(stranded.keys(), next);
  const entered = new Set<number>();
  for (const id of stranded.keys()) for (const t of next(id)) if (component.get(t) !== component.get(id)) entered.add(component.get(t)!);
  const members = new Map<number, KubeObject[]>();
  for (const [id, c] of component) {
    if (entered.has(c)) continue;
    const list = members.get(c);
    if (list) list.push(stranded.get(id)!);
    else members.set(c, [stranded.get(id)!]);
  }
  const depthOf = (o: KubeObject) => {
    const p = normalizeVirtual(asString(asRecord(o.body.spec)?.path) ?? '') ?? '';
    return p === '' ? 0 : p.split('/').length;
  };
  const chosen: KubeObject[] = [];
  for (const list of members.values()) {
    const [first] = [...list].sort(
      (a, b) => depthOf(b) - depthOf(a) || Number(selfApplying.has(b.id)) - Number(selfApplying.has(a.id)) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
    );
    chosen.push(first);
    const label = `${first.namespace ?? DEFAULT_NAMESPACE}/${first.name}`;
    for (const m of list) {
      if (m === first || !(appliesKs.get(m.id) ?? []).includes(first.id)) continue;
      const written = asString(asRecord(m.body.spec)?.path) ?? '';
      const ownDir = m.file.slice(root.length + 1, m.file.lastIndexOf('/'));
      const path = normalizeVirtual(written) ?? '';
      const ancestor = path === '' || ownDir === path || ownDir.startsWith(path + '/');
      problems.push({
        code: 'apply-cycle',
        message:
          `spec.path '${written}' includes Kustomization ${label}, which applies this one: point spec.path at a folder of only what this one applies.\n` +
          `${label} is in ${first.file.slice(root.length + 1)}${list.length > 2 ? ` (a cycle of ${list.length} Kustomizations)` : ''}; they apply each other, so neither is the root of a cluster, and Flux would have each reconcile the other.` +
          `${ancestor ? ' The path is the folder of this very file or one above it.' : ''}`,
        doc: m.doc,
        path: ['spec', 'path'],
        related: [{ doc: first.doc, path: ['metadata', 'name'], message: `Kustomization ${label}, treated as the cluster root` }],
      });
    }
  }
  return chosen;
}

