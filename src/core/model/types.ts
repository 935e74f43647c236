import type { PathSegment, YamlDoc } from '../yaml/document';
import { shortenReleaseName } from '../flux/validation';
import type { Workspace } from '../workspace/workspace';
import type { ExpandProblem } from './expand';
import type { FluxKind } from '../kinds';
import type { KubeObject } from './objects';
import type { BuildLookup, BuildSlot } from './rendered';
import type { GitCheckout, SourceResolution, SourceIndex } from './sources';
import type { HelmInstall, HelmInstallLookup } from '../helm/install';

/** A reference to another object (dependsOn entry, sourceRef), with where it is written. */
export interface Reference {
  readonly kind: string;
  readonly name: string;
  /** Defaulted the way Flux defaults it (the referring object's namespace). */
  readonly namespace: string;
  /** YAML path of the reference's mapping inside the referring document. */
  readonly path: PathSegment[];
}

/** An object as a cluster sees it: after kustomize transformers and Flux's targetNamespace. */
export interface AppliedObject {
  readonly object: KubeObject;
  readonly kind: string;
  readonly apiVersion: string;
  readonly name: string;
  /** Undefined for cluster-scoped objects. */
  readonly namespace: string | undefined;
  readonly cluster: ClusterModel;
  /** The Flux Kustomization applying it; undefined only for a cluster's root. */
  readonly appliedBy: KustomizationNode | undefined;
  /** Flux-specific view; set for Flux kinds. */
  flux?: FluxNode;
  /** `objectKey(kind, namespace, name)`, computed once. */
  readonly key: string;
}

interface FluxNodeBase {
  readonly applied: AppliedObject;
}

export interface KustomizationNode extends FluxNodeBase {
  readonly kind: 'Kustomization';
  readonly sourceRef: Reference | undefined;
  readonly source: SourceResolution;
  /** `spec.path` normalised inside the artifact ('' = its root). */
  readonly path: string;
  readonly dependsOn: Reference[];
  readonly targetNamespace: string | undefined;
  /** Everything the Kustomization applies (Flux objects included). */
  readonly applies: AppliedObject[];
  readonly children: KustomizationNode[];
  readonly helmReleases: HelmReleaseNode[];
  readonly sources: SourceNode[];
  /** The Kustomization applies its own definition (the bootstrap pattern). */
  appliesItself: boolean;
  readonly problems: ExpandProblem[];
  readonly remoteResources: string[];
  /** Workspace files its reading took (manifests and kustomization files, those that do not parse too). */
  readonly files: ReadonlySet<string>;
  /** `postBuild.substitute` entries the applying Kustomization's `spec.patches` add (values already substituted). */
  readonly inheritedSubstitute: Record<string, string> | undefined;
}

export interface HelmReleaseNode extends FluxNodeBase {
  readonly kind: 'HelmRelease';
  /** `spec.chart.spec.sourceRef` or `spec.chartRef`. */
  readonly chartSourceRef: Reference | undefined;
  readonly chartRef: boolean;
  readonly chart: string | undefined;
  readonly dependsOn: Reference[];
  readonly releaseName: string;
  readonly targetNamespace: string;
  readonly storageNamespace: string;
  /**
   * What the release installs (core/helm/install.ts), set on every model the engine builds;
   * undefined without an engine or while its render is still to come.
   */
  install?: HelmInstall;
}

export interface SourceNode extends FluxNodeBase {
  readonly kind: Exclude<FluxKind, 'Kustomization' | 'HelmRelease'>;
}

export type FluxNode = KustomizationNode | HelmReleaseNode | SourceNode;

export interface ClusterModel {
  readonly name: string;
  root: KustomizationNode;
  readonly kustomizations: KustomizationNode[];
  readonly helmReleases: HelmReleaseNode[];
  readonly sources: SourceNode[];
  readonly objects: AppliedObject[];
  /** `Kind/namespace/name` (namespace empty for cluster-scoped) → every object with that identity. */
  readonly byKey: Map<string, AppliedObject[]>;
}

/** A finding of the model build itself: Kustomizations applying each other, a bound of the analysis. */
export interface ModelProblem {
  readonly code: 'apply-cycle' | 'analysis-limit';
  readonly message: string;
  readonly doc: YamlDoc;
  readonly path: PathSegment[];
  readonly related: { readonly doc: YamlDoc; readonly path: PathSegment[]; readonly message: string }[];
}

export interface RepoModel {
  readonly workspace: Workspace;
  readonly version: number;
  readonly clusters: ClusterModel[];
  /** Flux objects reachable from no cluster root. */
  readonly unapplied: KubeObject[];
  /** Every Kubernetes object in the workspace (outside Helm charts), applied or not. */
  readonly allObjects: KubeObject[];
  /** Files used as kustomize patches: their objects edit others and are never applied alone. */
  readonly patchFiles: Set<string>;
  /** Every place an object document is applied, across clusters. */
  readonly appliedById: Map<string, AppliedObject[]>;
  readonly sourceIndex: SourceIndex;
  readonly isNamespaced: (kind: string, apiVersion?: string) => boolean;
  readonly problems: ModelProblem[];
  /** kustomize expansions this build computed (the rest came from the previous builds' memo). */
  readonly expansionsComputed: number;
  /** Every Kustomization whose build could be used, and whether it was (empty without `BuildOptions.builds`). */
  readonly builds: BuildSlot[];
}

export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** Namespace used for namespaced objects nobody gave one, as kubectl and the API do. */
export const DEFAULT_NAMESPACE = 'default';

/** helm-controller's release name: `[targetNamespace-]name`, shortened past 53 characters with a hash suffix. */
export function helmReleaseName(name: string, targetNamespace: string | undefined, releaseName: string | undefined, hash: (s: string) => string): string {
  // spec.releaseName is kept as written (the CRD caps it at 53): an over-long one is refused, not shortened.
  if (releaseName) return releaseName;
  return shortenReleaseName(targetNamespace ? `${targetNamespace}-${name}` : name, hash);
}

export interface BuildOptions {
  /** URLs of the workspace's Git remotes: a GitRepository with one of them is this workspace. */
  remotes?: readonly string[];
  /** What `.git/HEAD` has checked out: a GitRepository of this URL at another ref is another source. */
  checkout?: GitCheckout;
  /** The `gitopsPreview.sourceRoots` setting: `Kind/namespace/name` → workspace folder holding that source's artifact. */
  sourceRoots?: Readonly<Record<string, string>>;
  /** sha256 hex of a string (core has no crypto import; the caller passes node:crypto's). */
  sha256?: (s: string) => string;
  /**
   * Kustomization builds the engine has (rendered.ts): with it, what a Kustomization applies comes
   * from its build when there is one, else from the static reading of its files (and it is pending).
   */
  builds?: BuildLookup;
  /** HelmRelease renders the engine has (core/helm/install.ts): without it, no HelmRelease shows what it installs. */
  helmInstalls?: HelmInstallLookup;
  /**
   * The model is asked about the Kustomizations of this name alone (`build ks NAME`): another
   * Kustomization whose own files, read without building, hold no Kustomization is left unbuilt and
   * applies nothing here, since its build cannot hold one of that name. Every Kustomization is still
   * in the model; only such leaves' objects are missing.
   */
  focus?: { readonly kustomization: string };
}
