/**
 * Releases of the repository's helmfiles, which home-lab repositories run before bootstrapping Flux
 * (CNI, cert-manager, external-secrets, CRDs-only charts): what they install exists before any
 * Kustomization runs.
 */
import type { RepoModel } from '../model/graph';
import { asArray, asRecord, asString } from '../model/objects';
import { chartName, KNOWN_CHARTS } from '../checks/knownCharts';

/** What bootstrap helmfiles of the workspace install before Flux runs. */
export interface HelmfileReleases {
  /** `namespace/name` of each release. */
  readonly names: Set<string>;
  /**
   * API groups whose CRDs a release's chart installs whatever its values, by the well-known charts
   * (a CRDs-only chart such as prometheus-operator-crds); the helmfile's values are not read.
   */
  readonly crdGroups: Set<string>;
}

const helmfileCache = new WeakMap<RepoModel, HelmfileReleases>();

/**
 * Home-lab repositories commonly install CNI, cert-manager, external-secrets and CRD charts with
 * helmfile before bootstrapping Flux; their CRDs exist before any Kustomization runs.
 */
export function helmfileReleases(model: RepoModel): HelmfileReleases {
  const cached = helmfileCache.get(model);
  if (cached) return cached;
  const out: HelmfileReleases = { names: new Set(), crdGroups: new Set() };
  for (const file of model.workspace.files.values()) {
    // A helmfile by its name, or by its content wherever it is (`bootstrap/crds.yaml`): releases
    // that name charts, and no apiVersion.
    const named = file.path.includes('helmfile');
    for (const doc of file.docs) {
      const v = asRecord(doc.value);
      if (!v || v.apiVersion !== undefined || !Array.isArray(v.releases)) continue;
      if (!named && !v.releases.some((r) => asString(asRecord(r)?.chart))) continue;
      for (const r of asArray(v.releases)) {
        const rel = asRecord(r);
        const name = asString(rel?.name);
        if (name) out.names.add(`${asString(rel?.namespace) ?? 'default'}/${name}`);
        const chart = asString(rel?.chart);
        const known = chart ? KNOWN_CHARTS[chartName(chart)] : undefined;
        if (known && !known.enabledBy) for (const g of known.groups) out.crdGroups.add(g);
      }
    }
  }
  helmfileCache.set(model, out);
  return out;
}

