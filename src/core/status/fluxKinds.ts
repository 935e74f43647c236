/** API group/version/plural of a Kubernetes resource type. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

/**
 * The Flux kinds this extension watches and reconciles, at the versions served by
 * kustomize-controller v1.9 / helm-controller v1.6 / source-controller v1.9 (their storage versions).
 */
export const FLUX_TYPES: readonly ResourceType[] = [
  { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', kind: 'Kustomization', namespaced: true },
  { group: 'helm.toolkit.fluxcd.io', version: 'v2', plural: 'helmreleases', kind: 'HelmRelease', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'gitrepositories', kind: 'GitRepository', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'ocirepositories', kind: 'OCIRepository', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'helmrepositories', kind: 'HelmRepository', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'helmcharts', kind: 'HelmChart', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'buckets', kind: 'Bucket', namespaced: true },
  { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'externalartifacts', kind: 'ExternalArtifact', namespaced: true },
];

export function fluxType(kind: string): ResourceType | undefined {
  const k = kind.toLowerCase();
  return FLUX_TYPES.find((t) => t.kind.toLowerCase() === k);
}

/** CLI/kubectl-style aliases: `ks`, `hr`, `gitrepo`, … → kind. */
const ALIASES: Record<string, string> = {
  ks: 'Kustomization',
  kustomization: 'Kustomization',
  kustomizations: 'Kustomization',
  hr: 'HelmRelease',
  helmrelease: 'HelmRelease',
  helmreleases: 'HelmRelease',
  gitrepo: 'GitRepository',
  gitrepository: 'GitRepository',
  'source git': 'GitRepository',
  ocirepo: 'OCIRepository',
  ocirepository: 'OCIRepository',
  helmrepo: 'HelmRepository',
  helmrepository: 'HelmRepository',
  hc: 'HelmChart',
  helmchart: 'HelmChart',
  bucket: 'Bucket',
  ea: 'ExternalArtifact',
  externalartifact: 'ExternalArtifact',
};

export function kindFromAlias(alias: string): string | undefined {
  return ALIASES[alias.toLowerCase()];
}

/** Kinds whose objects are Flux sources (can be reconciled as "the source"). */
export const SOURCE_KINDS = new Set(['GitRepository', 'OCIRepository', 'HelmRepository', 'HelmChart', 'Bucket', 'ExternalArtifact']);
