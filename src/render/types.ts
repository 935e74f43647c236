import type { Allowance } from '../core/budgets';

/** A Kubernetes object as a render produced it (plain JSON), after Flux's post-build layer. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
  /**
   * Where it came from, when known: the workspace file (absolute path) and document index.
   * Not part of the object: strip it before sending anything to a cluster (see `toManifest`).
   */
  origin?: { file: string; docIndex: number };
}

export interface RenderOptions {
  /**
   * Path of the helm binary (setting gitopsPreview.helmPath), used only to pull a chart of a
   * HelmRepository or OCIRepository that is not in the chart cache; default: `helm` on PATH.
   */
  helmBin?: string;
  /** Time limit of one build (kustomize build, helm template: default 60 s) or helm pull (default 120 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** No call runs past this moment (performance.now() clock): what is left of a command's build-time budget. */
  deadline?: number;
  /** Where pulled charts are cached; default `~/.cache/gitops-preview/charts`. */
  cacheDir?: string;
  /**
   * False in untrusted workspaces: then nothing is spawned. Builds never spawn anything (they run
   * as WebAssembly without access to the host); only a chart pull fails, with kind 'not-allowed'.
   */
  allowProcesses: boolean;
  /** Kubernetes version passed to `helm template --kube-version` (default 1.33.0, the test cluster's). */
  kubeVersion?: string;
  /**
   * kustomize-controller's `--feature-gates=StrictPostBuildSubstitutions` (default on since v1.9):
   * a `${var}` without default and without value fails the build.
   */
  strictSubstitution?: boolean;
  /**
   * Values taken from Secrets (postBuild substituteFrom, HelmRelease valuesFrom) come out as `***`
   * unless this is true; only for code that compares without displaying.
   */
  revealSecretValues?: boolean;
  /**
   * Text post-build substitution may produce: per build (default Budgets.substitutedBytesPerBuild)
   * and, when given, drawn from an allowance shared by every build of a command.
   */
  substitution?: { perBuild?: number; total?: Allowance };
  /** Environment for `helm pull` (PATH lookup too); default process.env. The builds see no environment. */
  env?: NodeJS.ProcessEnv;
}

export interface RenderResult {
  objects: RenderedObject[];
  /** Things that do not stop the render but make it differ from the cluster (masked SOPS values, variables from objects outside the workspace...). */
  warnings: string[];
}

export interface HelmRenderResult extends RenderResult {
  releaseName: string;
  /** Namespace the release installs into (targetNamespace, else the HelmRelease's). */
  namespace: string;
  /** `chart@version` or the chart path, for display. */
  chart: string;
  /** The merged values passed to helm (valuesFrom in order, then spec.values). SOPS values are masked. */
  values: unknown;
}
