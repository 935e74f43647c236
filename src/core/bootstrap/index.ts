/**
 * The cluster before Flux: what the repository's own bootstrap installs before any Kustomization
 * runs (helmfiles, task-runner `kubectl apply` steps). Its CRD groups exist on a fresh cluster.
 */
import type { ClusterModel, RepoModel } from '../model/graph';
import { helmfileReleases } from './helmfiles';
import { taskRunnerSteps } from './taskRunners';

export { helmfileReleases } from './helmfiles';
export { taskRunnerSteps, type BootstrapStep } from './taskRunners';

/**
 * API groups whose CRDs the bootstrap installs before Flux runs `cluster`. A step written for a
 * templated folder counts for the clusters rooted under the folder its variables stood for, or
 * for every cluster when none is.
 */
export function preinstalledCrdGroups(model: RepoModel, cluster: ClusterModel): Set<string> {
  const out = new Set(helmfileReleases(model).crdGroups);
  const rootFile = cluster.root.applied.object.doc.file.path;
  const steps = taskRunnerSteps(model);
  const rooted = (scope: readonly string[]) => scope.some((dir) => rootFile.startsWith(`${dir}/`));
  for (const step of steps) {
    if (step.scope && !rooted(step.scope)) {
      // Scoped to folders no cluster is rooted in: the variables' meaning is unknown, so it counts everywhere.
      const anyRooted = model.clusters.some((c) => step.scope!.some((dir) => c.root.applied.object.doc.file.path.startsWith(`${dir}/`)));
      if (anyRooted) continue;
    }
    for (const g of step.groups) out.add(g);
  }
  return out;
}
