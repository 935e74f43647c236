/**
 * What a HelmRelease installs, as the model holds it: helm-controller's render of the release
 * (engine/helmRefine.ts renders it off the editor thread, from a chart already at hand) or why
 * there is none. Plain JSON, so the engine's build cache can keep it between sessions.
 *
 * The chart's `crds/` folder is kept apart from the release manifest: helm installs that folder
 * (or not) by the HelmRelease's CRD policy, outside the manifest, so the same render answers for
 * every policy and a policy edit needs no new render.
 */
import type { BuiltObject } from '../model/rendered';
import type { HelmReleaseNode, RepoModel } from '../model/types';

/** The chart a render used: where it was found, and what identifies its content. */
export interface HelmChartInfo {
  /** `name` of its Chart.yaml. */
  readonly name: string;
  readonly version: string;
  /** Hex sha256: of the package (chart cache), or of the chart folder's files (workspace). */
  readonly digest: string;
  readonly from: 'workspace' | 'chart cache';
}

export type HelmInstall =
  | {
      readonly ok: true;
      readonly chart: HelmChartInfo;
      /** The Kubernetes version given to `.Capabilities.KubeVersion`, and where it came from. */
      readonly kubeVersion: { readonly version: string; readonly origin: string };
      /** The chart's `crds/` folder (subcharts' included), whatever the policy says. */
      readonly crds: readonly BuiltObject[];
      /** The release manifest: templates rendered (templated CRDs among them), post-renderers applied, hooks left out. */
      readonly objects: readonly BuiltObject[];
      /**
       * Values the render could not see (a `valuesFrom` object outside the workspace, SOPS or Secret
       * values masked): the cluster's render may differ, so the release is not the last word.
       */
      readonly incomplete: readonly string[];
      /** Top-level keys of spec.values the chart never reads, and the keys it knows (render/helm.ts). */
      readonly unread?: { readonly keys: readonly string[]; readonly known: readonly string[] };
    }
  | {
      readonly ok: false;
      /** False: the chart is not at hand (outside the workspace and not in the chart cache); true: helm failed on it. */
      readonly atHand: boolean;
      readonly message: string;
      /** When the chart's values.schema.json refused the values: each value it refused. */
      readonly violations?: readonly ValuesViolation[];
      /** Values the failed render could not see: the cluster's render may not fail so. */
      readonly incomplete?: readonly string[];
    };

/** One value a chart's values.schema.json refuses: its path in the merged values (subchart names first). */
export interface ValuesViolation {
  readonly path: readonly string[];
  /** The chart whose schema refuses it (a subchart's name for its values). */
  readonly chart: string;
  readonly message: string;
  /** The refused value when it is a scalar: which source holds it, and whether it is a masked one. */
  readonly value?: string | number | boolean;
}

/**
 * The model's question to the engine: the install of `hr` as the model sees it now, or undefined
 * while its render is still to come.
 */
export type HelmInstallLookup = (hr: HelmReleaseNode, model: RepoModel) => HelmInstall | undefined;

/**
 * Gives each HelmRelease of the model its install (or none while pending). Run after every model
 * build: a reused HelmRelease node gets the answer for the model it is in now.
 */
export function attachHelmInstalls(model: RepoModel, lookup: HelmInstallLookup | undefined): RepoModel {
  if (!lookup) return model;
  for (const cluster of model.clusters) for (const hr of cluster.helmReleases) hr.install = lookup(hr, model);
  return model;
}

/** The CRD policies helm-controller applies to the chart's `crds/` folder (v2 API, defaults included). */
export type CrdPolicy = 'Skip' | 'Create' | 'CreateReplace';

function policy(v: unknown, fallback: CrdPolicy): CrdPolicy {
  return v === 'Skip' || v === 'Create' || v === 'CreateReplace' ? v : fallback;
}

/** `spec.install.crds` (default Create) and `spec.upgrade.crds` (default Skip). */
export function crdPolicies(hr: HelmReleaseNode): { install: CrdPolicy; upgrade: CrdPolicy } {
  const spec = (hr.applied.object.body.spec ?? {}) as Record<string, any>;
  return { install: policy(spec.install?.crds, 'Create'), upgrade: policy(spec.upgrade?.crds, 'Skip') };
}

/**
 * The CRDs a fresh install of the release creates: templated ones always (they are part of the
 * manifest), the `crds/` folder's unless `install.crds` is Skip. A later upgrade adds the folder's
 * only under `upgrade.crds` Create or CreateReplace, which a fresh cluster's ordering never sees.
 */
export function installedCrds(hr: HelmReleaseNode, install: HelmInstall & { ok: true }): { object: BuiltObject; fromCrdsFolder: boolean }[] {
  const out: { object: BuiltObject; fromCrdsFolder: boolean }[] = [];
  if (crdPolicies(hr).install !== 'Skip') for (const object of install.crds) out.push({ object, fromCrdsFolder: true });
  for (const object of install.objects) if (object.kind === 'CustomResourceDefinition') out.push({ object, fromCrdsFolder: false });
  return out;
}
