/**
 * The cluster before Flux as records: one per thing the repository's bootstrap installs before any
 * Kustomization runs, with the reader that found it and the file and line it was read from.
 */

/** What reads a fact: the kind of file it is written in. */
export type BootstrapReader = 'helmfile' | 'talos' | 'taskfile' | 'justfile' | 'makefile' | 'shell' | 'config';

export interface BootstrapFact {
  /**
   * `crd-group`: every CRD of a group (a known upstream bundle, a declaration); `crd`: one CRD
   * (`<plural>.<group>`); `chart`: a Helm release; `manifest`: an applied file or URL whose CRDs
   * cannot be told (its groups are unknown, not absent); `root`: the folder a cluster is synced from;
   * `artifact`: an OCI artifact pushed from a folder (`flux push artifact`), `dir` the folder.
   */
  readonly what: 'crd-group' | 'crd' | 'chart' | 'manifest' | 'root' | 'artifact';
  /** The group, CRD name, chart, URL, or folder. */
  readonly name: string;
  /** API groups whose CRDs exist before Flux because of it (empty when none, or unknown). */
  readonly groups: readonly string[];
  readonly reader: BootstrapReader;
  /** Absolute path of the file it was read from. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** What installs it, as written (`kubectl apply -k ./crds`, `release cilium`), for display. */
  readonly via?: string;
  /** For a helmfile release: `namespace/name`, matched against the HelmRelease of the same name. */
  readonly release?: string;
  /**
   * Absolute folders: the fact counts for the clusters rooted below one of them (a step written for
   * `{{.CLUSTER_DIR}}/bootstrap/crds` is for the cluster whose folder the variable stood for).
   */
  readonly scope?: readonly string[];
  /** For a flux-instance release: the Flux release its values pin (`instance.distribution.version`, as written). */
  readonly fluxVersion?: string;
  /** For an artifact: the workspace folder (absolute) pushed as it. */
  readonly dir?: string;
  /** The cluster names it counts for (a declaration with `cluster:`). */
  readonly clusters?: readonly string[];
  /**
   * For a `root` a step applies as a Flux Kustomization (`kubectl apply -k flux/config` of a folder
   * holding one): that document's id (`file#index`). Flux reconciles it first: it is a cluster's root.
   */
  readonly kustomization?: string;
}

/** `crd` facts from CustomResourceDefinition documents. */
export function crdFact(body: Record<string, any>, base: Omit<BootstrapFact, 'what' | 'name' | 'groups'>): BootstrapFact | undefined {
  const spec = body.spec && typeof body.spec === 'object' ? body.spec : undefined;
  const group = typeof spec?.group === 'string' ? spec.group : undefined;
  const plural = typeof spec?.names?.plural === 'string' ? spec.names.plural : undefined;
  if (!group) return undefined;
  return { ...base, what: 'crd', name: plural ? `${plural}.${group}` : group, groups: [group] };
}
