/**
 * The cluster before Flux: what the repository's own bootstrap installs before any Kustomization
 * runs (helmfiles, Talos machine configs, task runners and scripts, and what `.gitops-preview.yaml`
 * declares), as facts with their reader, file and line. Their CRD groups exist on a fresh cluster.
 */
import type { ClusterModel, RepoModel } from '../model/graph';
import type { Workspace } from '../workspace/workspace';
import { bootstrapFiles } from './files';
import { readContext } from './steps';
import { taskRunnerFacts } from './taskRunners';
import { helmfileFacts } from './helmfiles';
import { talosFacts } from './talos';
import { declaredBootstrap } from './declared';
import type { BootstrapFact } from './facts';
import { parseFluxVersion, type FluxVersion } from '../model/fluxVersion';

export type { BootstrapFact, BootstrapReader } from './facts';

const repoCache = new WeakMap<RepoModel, readonly BootstrapFact[]>();
const stepsCache = new WeakMap<Workspace, { version: number; ctx: ReturnType<typeof readContext>; facts: readonly BootstrapFact[] }>();

/** The task runners' and scripts' facts, once per workspace version (the model's roots read them before the model exists). */
function stepFacts(ws: Workspace): { ctx: ReturnType<typeof readContext>; facts: readonly BootstrapFact[] } {
  const known = stepsCache.get(ws);
  if (known && known.version === ws.version) return known;
  const ctx = readContext(ws, bootstrapFiles(ws));
  const entry = { version: ws.version, ctx, facts: taskRunnerFacts(ctx) };
  stepsCache.set(ws, entry);
  return entry;
}

/** Ids of the Flux Kustomizations a bootstrap step applies (`kubectl apply -k kubernetes/main/flux/config`): clusters' roots. */
export function bootstrapAppliedKustomizations(ws: Workspace): ReadonlySet<string> {
  const out = new Set<string>();
  for (const f of stepFacts(ws).facts) if (f.kustomization) out.add(f.kustomization);
  return out;
}

/** Every fact of the repository, whichever cluster it is for, in file and line order. */
export function repoBootstrapFacts(model: RepoModel): readonly BootstrapFact[] {
  const cached = repoCache.get(model);
  if (cached) return cached;
  const ws = model.workspace;
  const { ctx, facts: steps } = stepFacts(ws);
  // Task runners first: the helmfiles their steps run are helmfiles whatever their names.
  const facts = [...steps, ...helmfileFacts(ctx), ...talosFacts(ctx), ...declaredBootstrap(ws).facts];
  facts.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  repoCache.set(model, facts);
  return facts;
}

const clusterCache = new WeakMap<ClusterModel, readonly BootstrapFact[]>();

/**
 * The facts that hold for `cluster`. A fact scoped to folders (a step written for a templated
 * folder) counts for the clusters rooted below them, or for every cluster when none is; a fact
 * declared for named clusters, for those; a fact in a file under a folder named like some of the
 * repository's clusters (`bootstrap/main/helmfile.d`), for those; the rest for every cluster.
 */
export function bootstrapFacts(model: RepoModel, cluster: ClusterModel): readonly BootstrapFact[] {
  const cached = clusterCache.get(cluster);
  if (cached) return cached;
  const rootOf = (c: ClusterModel) => c.root.applied.object.doc.file.path;
  const under = (c: ClusterModel, dirs: readonly string[]) => dirs.some((d) => rootOf(c).startsWith(`${d}/`));
  const names = new Set(model.clusters.map((c) => c.name));
  const root = model.workspace.root;
  const out = repoBootstrapFacts(model).filter((f) => {
    if (f.clusters) return f.clusters.includes(cluster.name);
    if (f.scope) return under(cluster, f.scope) || !model.clusters.some((c) => under(c, f.scope!));
    if (names.size < 2) return true;
    const named = f.file.slice(root.length + 1).split('/').filter((seg) => names.has(seg));
    return named.length === 0 || named.includes(cluster.name);
  });
  clusterCache.set(cluster, out);
  return out;
}

/** API groups whose CRDs the bootstrap installs before Flux runs `cluster`. */
export function preinstalledCrdGroups(model: RepoModel, cluster: ClusterModel): Set<string> {
  const out = new Set<string>();
  for (const f of bootstrapFacts(model, cluster)) for (const g of f.groups) out.add(g);
  return out;
}

/** `namespace/name` of every release the bootstrap installs (helmfile releases, `helm install`): a HelmRelease of that name is installed before Flux. */
export function bootstrapReleases(model: RepoModel): Set<string> {
  const out = new Set<string>();
  for (const f of repoBootstrapFacts(model)) if (f.release) out.add(f.release);
  return out;
}

/**
 * The Flux release the bootstrap installs in `cluster` when the repository's own manifests pin none:
 * a helmfile's flux-instance release with `instance.distribution.version` in its values.
 */
export function bootstrapFluxVersion(model: RepoModel, cluster: ClusterModel): FluxVersion | undefined {
  for (const f of bootstrapFacts(model, cluster)) {
    const v = f.fluxVersion && parseFluxVersion(f.fluxVersion, `helmfile release ${f.release ?? f.name} distribution.version (${f.file.slice(model.workspace.root.length + 1)}:${f.line})`);
    if (v) return v;
  }
  return undefined;
}
