/**
 * The one registry of kinds: Flux's API groups, kinds, served versions, plurals and CLI aliases,
 * kustomize's build-file kinds, and the built-in cluster-scoped kinds.
 */

export const GROUP_KUSTOMIZE = 'kustomize.toolkit.fluxcd.io';
export const GROUP_HELM = 'helm.toolkit.fluxcd.io';
export const GROUP_SOURCE = 'source.toolkit.fluxcd.io';
export const GROUP_SOURCE_EXT = 'source.extensions.fluxcd.io';
export const GROUP_KUSTOMIZE_CONFIG = 'kustomize.config.k8s.io';

export type FluxKind =
  | 'Kustomization'
  | 'HelmRelease'
  | 'GitRepository'
  | 'OCIRepository'
  | 'HelmRepository'
  | 'HelmChart'
  | 'Bucket'
  | 'ExternalArtifact'
  | 'ArtifactGenerator';

const FLUX_KIND_GROUP: Record<FluxKind, string> = {
  Kustomization: GROUP_KUSTOMIZE,
  HelmRelease: GROUP_HELM,
  GitRepository: GROUP_SOURCE,
  OCIRepository: GROUP_SOURCE,
  HelmRepository: GROUP_SOURCE,
  HelmChart: GROUP_SOURCE,
  Bucket: GROUP_SOURCE,
  ExternalArtifact: GROUP_SOURCE,
  ArtifactGenerator: GROUP_SOURCE_EXT,
};

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
}

/** The Flux kind of an object, or undefined when it is not a Flux object (a kustomize Kustomization is not). */
export function fluxKindOf(apiVersion: string, kind: string): FluxKind | undefined {
  const expected = FLUX_KIND_GROUP[kind as FluxKind];
  return expected !== undefined && groupOf(apiVersion) === expected ? (kind as FluxKind) : undefined;
}

export function fluxGroupOf(kind: FluxKind): string {
  return FLUX_KIND_GROUP[kind];
}

/**
 * API versions served by the Flux 2.8 controllers (kustomize-controller v1.9, helm-controller v1.6,
 * source-controller v1.9), from their CRDs' `served: true` versions, the storage version first.
 * Embedded because the extension cannot read CRDs at runtime; a unit test compares it with
 * `../shared/flux-crds`.
 */
export const SERVED_VERSIONS: Partial<Record<FluxKind, readonly string[]>> = {
  Kustomization: ['v1'],
  HelmRelease: ['v2'],
  GitRepository: ['v1'],
  OCIRepository: ['v1'],
  HelmRepository: ['v1'],
  HelmChart: ['v1'],
  Bucket: ['v1'],
  ExternalArtifact: ['v1'],
};

/** API group/version/plural of a Kubernetes resource type. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

function fluxResource(kind: FluxKind, plural: string): ResourceType {
  return { group: FLUX_KIND_GROUP[kind], version: SERVED_VERSIONS[kind]![0], plural, kind, namespaced: true };
}

/**
 * The Flux kinds this tool watches and reconciles in a cluster, at their storage versions.
 * ArtifactGenerator is only read from the workspace.
 */
export const FLUX_TYPES: readonly ResourceType[] = [
  fluxResource('Kustomization', 'kustomizations'),
  fluxResource('HelmRelease', 'helmreleases'),
  fluxResource('GitRepository', 'gitrepositories'),
  fluxResource('OCIRepository', 'ocirepositories'),
  fluxResource('HelmRepository', 'helmrepositories'),
  fluxResource('HelmChart', 'helmcharts'),
  fluxResource('Bucket', 'buckets'),
  fluxResource('ExternalArtifact', 'externalartifacts'),
];

/** The cluster resource of a Flux kind (case-insensitive), if this tool watches it. */
export function fluxType(kind: string): ResourceType | undefined {
  const k = kind.toLowerCase();
  return FLUX_TYPES.find((t) => t.kind.toLowerCase() === k);
}

/** CLI/kubectl-style aliases: `ks`, `hr`, `gitrepo`, … → kind. */
const ALIASES: Record<string, FluxKind> = {
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

export function kindFromAlias(alias: string): FluxKind | undefined {
  return ALIASES[alias.toLowerCase()];
}

/** A kustomize build file: `kind: Kustomization|Component` with the kustomize group or no apiVersion. */
export function isKustomizeConfig(apiVersion: string | undefined, kind: string | undefined): boolean {
  if (kind !== 'Kustomization' && kind !== 'Component') return false;
  return !apiVersion || groupOf(apiVersion) === GROUP_KUSTOMIZE_CONFIG;
}

export const KUSTOMIZATION_FILE_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/**
 * Built-in cluster-scoped kinds: they keep no namespace through kustomize's namespace transformer
 * or Flux's targetNamespace. CRDs found in the workspace add their own cluster-scoped kinds.
 */
export const CLUSTER_SCOPED_KINDS = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'StorageClass',
  'CSIDriver',
  'CSINode',
  'VolumeAttachment',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'APIService',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'FlowSchema',
  'RuntimeClass',
  'IngressClass',
  'GatewayClass',
  'ClusterIssuer',
  'ClusterPolicy',
  'ClusterSecretStore',
  'ClusterExternalSecret',
  'CertificateSigningRequest',
  'ClusterTriggerAuthentication',
  'CiliumClusterwideNetworkPolicy',
  'StorageVersionMigration',
]);
