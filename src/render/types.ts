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
  /** Time limit of one build (kustomize build, helm template: default 60 s) or chart fetch (default 120 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** No call runs past this moment (performance.now() clock): what is left of a command's build-time budget. */
  deadline?: number;
  /** The chart cache; default `$GITOPS_PREVIEW_CACHE/charts`, else `~/.cache/gitops-preview/charts`. */
  cacheDir?: string;
  /**
   * False in untrusted workspaces: then no network request is made. Builds never reach the network
   * (they run as WebAssembly without access to the host); a chart that is not in the chart cache
   * is then not fetched, with kind 'not-allowed'.
   */
  allowNetwork: boolean;
  /** Only the chart cache is used, even where the network is allowed (CLI `--offline`, setting gitopsPreview.charts.offline). */
  offline?: boolean;
  /**
   * Kubernetes version passed to `helm template --kube-version`; default: the version the
   * repository pins for the cluster, else 1.33.0 (core/helm/kubeVersion.ts).
   */
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
  /**
   * The user's environment for chart fetches (HOME, DOCKER_CONFIG, HELM_REGISTRY_CONFIG, XDG_CONFIG_HOME:
   * where registry logins are; GITOPS_PREVIEW_CACHE: the chart cache); default process.env. The builds see none.
   */
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
  /** The chart's `crds/` folder (subcharts' included), rendered whatever `install.crds` says (`objects` holds them unless it is Skip). */
  chartCrds: RenderedObject[];
  /** Why the values differ from the cluster's (a valuesFrom object outside the workspace, masked values); among `warnings` too. */
  incompleteValues: string[];
  /** The chart used: Chart.yaml's name and version, and the sha256 naming its content (package, or the workspace folder's files). */
  chartInfo: { name: string; version: string; digest: string; from: 'workspace' | 'chart cache' };
  /** Top-level keys of spec.values the chart never reads (not in values.yaml, its schema, a subchart, or any template). */
  unread: string[];
  /** The top-level keys the chart knows, for a suggestion. */
  chartKeys: string[];
}
