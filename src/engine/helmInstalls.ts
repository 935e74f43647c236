/**
 * The `helmInstalls` answer: each HelmRelease's install as the folder's model holds it, in plain
 * JSON (the build cache's objects are shared: copied here, origins left out).
 */
import { crdPolicies } from '../core/helm/install';
import type { BuiltObject } from '../core/model/rendered';
import type { RepoModel } from '../core/model/graph';
import type { HelmReleaseInstall } from './protocol';
import { refOfApplied } from './targets';

/** Refinement passes `helmInstalls` runs at most (each renders what its time budget allows). */
export const MAX_HELM_PASSES = 8;

export function helmInstallsOf(model: RepoModel, root: string): HelmReleaseInstall[] {
  const out: HelmReleaseInstall[] = [];
  for (const cluster of model.clusters) {
    for (const hr of cluster.helmReleases) {
      const target = { ...refOfApplied(hr.applied), cluster: cluster.name, root };
      const install = hr.install;
      if (!install) out.push({ target, install: { ok: false, atHand: true, message: 'its render did not finish' } });
      else if (!install.ok) out.push({ target, install: { ok: false, atHand: install.atHand, message: install.message } });
      else {
        out.push({
          target,
          install: {
            ok: true,
            chart: `${install.chart.name}@${install.chart.version} (${install.chart.from})`,
            objects: install.objects.map(plain),
            crds: install.crds.map(plain),
            crdPolicy: crdPolicies(hr),
          },
        });
      }
    }
  }
  return out;
}

function plain(o: BuiltObject): Record<string, unknown> {
  const { origin: _origin, ...rest } = o;
  return structuredClone(rest) as Record<string, unknown>;
}
