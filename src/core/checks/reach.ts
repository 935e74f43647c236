import { isKustomizationFile } from '../model/bootstrap';
import { asArray, asRecord, asString, kustomizeConfigOf } from '../model/objects';
import type { RepoModel } from '../model/types';
import { normalizeVirtual } from '../model/view';

/**
 * Which workspace files kustomize or Flux could ever parse as YAML, for the file-local findings
 * (syntax, unreadable paths, unserved versions of patches): a file only a generator reads as bytes,
 * or one nothing names, is no build's problem.
 */
export interface Reach {
  /** Files some cluster's Kustomization reads (manifests and kustomization files). */
  readonly clustersRead: ReadonlySet<string>;
  /** Files and folders a kustomization file names as YAML to parse: resources, components, patches, … */
  readonly listed: ReadonlySet<string>;
  /** Files a `configMapGenerator`/`secretGenerator` reads as data (`files`, `envs`, `env`). */
  readonly generatorInputs: ReadonlySet<string>;
  /** Patch file → the kustomization files using it as a patch. */
  readonly patchedBy: ReadonlyMap<string, readonly string[]>;
  /** Folders a Flux Kustomization's `spec.path` names (applied ones as resolved in their source, unapplied ones from the repository root). */
  readonly fluxPaths: ReadonlySet<string>;
}

const cache = new WeakMap<RepoModel, Reach>();

export function reachOf(model: RepoModel): Reach {
  let reach = cache.get(model);
  if (!reach) cache.set(model, (reach = computeReach(model)));
  return reach;
}

/** Whether Flux's generated kustomization of some Kustomization's `spec.path` takes `path` (a file or folder). */
export function underFluxPath(model: RepoModel, path: string): boolean {
  const { fluxPaths } = reachOf(model);
  const root = model.workspace.root;
  for (let dir = path.slice(0, path.lastIndexOf('/')); dir.length >= root.length; dir = dir.slice(0, dir.lastIndexOf('/'))) {
    // A kustomization file decides alone what its folder contributes (listed entries only).
    if (model.workspace.kustomizationFileIn(dir)) return false;
    if (fluxPaths.has(dir)) return true;
  }
  return false;
}

/** Whether some kustomization or Flux Kustomization could make kustomize parse `path` (or, for a folder, what is in it). */
export function includable(model: RepoModel, path: string): boolean {
  const reach = reachOf(model);
  if (reach.clustersRead.has(path) || reach.listed.has(path) || underFluxPath(model, path)) return true;
  // A folder on the way to a Kustomization's path.
  const prefix = `${path}/`;
  for (const p of reach.fluxPaths) if (p.startsWith(prefix)) return true;
  return false;
}

function computeReach(model: RepoModel): Reach {
  const clustersRead = new Set<string>();
  for (const c of model.clusters) for (const k of c.kustomizations) for (const f of k.files) clustersRead.add(f);
  const listed = new Set<string>();
  const generatorInputs = new Set<string>();
  const patchedBy = new Map<string, string[]>();
  for (const file of model.workspace.files.values()) {
    if (!isKustomizationFile(file.path)) continue;
    const config = asRecord(kustomizeConfigOf(file)?.value);
    if (!config) continue;
    const dir = file.path.slice(0, file.path.lastIndexOf('/'));
    const resolve = (entry: unknown): string | undefined => {
      const rel = asString(entry);
      if (!rel || rel.includes('\n') || rel.includes('://')) return undefined;
      const abs = normalizeVirtual(`${dir.slice(1)}/${rel}`);
      return abs === undefined ? undefined : `/${abs}`;
    };
    const list = (entry: unknown) => {
      const p = resolve(entry);
      if (p) listed.add(p);
    };
    const patch = (entry: unknown) => {
      const p = resolve(entry);
      if (!p) return;
      listed.add(p);
      const users = patchedBy.get(p);
      if (users) users.push(file.path);
      else patchedBy.set(p, [file.path]);
    };
    for (const field of ['resources', 'bases', 'components', 'crds', 'configurations', 'transformers', 'generators', 'validators']) asArray(config[field]).forEach(list);
    asArray(config.replacements).forEach((r) => list(asRecord(r)?.path));
    asArray(config.patches).forEach((p) => patch(asRecord(p)?.path));
    asArray(config.patchesJson6902).forEach((p) => patch(asRecord(p)?.path));
    asArray(config.patchesStrategicMerge).forEach(patch);
    for (const field of ['configMapGenerator', 'secretGenerator']) {
      for (const g of asArray(config[field])) {
        const r = asRecord(g) ?? {};
        for (const entry of [...asArray(r.files), ...asArray(r.envs), r.env]) {
          const s = asString(entry);
          // `key=path` or `path`
          const p = s === undefined ? undefined : resolve(s.slice(s.indexOf('=') + 1));
          if (p) generatorInputs.add(p);
        }
      }
    }
  }
  const fluxPaths = new Set<string>();
  const root = model.workspace.root;
  const add = (base: string, rel: string | undefined) => {
    if (rel === undefined) return;
    const abs = normalizeVirtual(`${base.slice(1)}/${rel}`);
    if (abs !== undefined) fluxPaths.add(`/${abs}`);
  };
  for (const c of model.clusters) {
    for (const k of c.kustomizations) {
      if (k.source.kind === 'view' && k.source.root !== undefined) add(k.source.root ? `${root}/${k.source.root}` : root, k.path);
    }
  }
  // An unapplied one's source is unknown: its path is taken in this repository. An applied one from
  // another source (flux-manifests' `path: ./`) says nothing about this repository's folders.
  for (const o of model.allObjects) {
    if (o.fluxKind === 'Kustomization' && !model.appliedById.get(o.id)?.length) add(root, asString(asRecord(o.body.spec)?.path));
  }
  return { clustersRead, listed, generatorInputs, patchedBy, fluxPaths };
}
