/** API groups and kinds of Flux and kustomize, and the few facts about them the model needs. */

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

export const SOURCE_KINDS: readonly FluxKind[] = [
  'GitRepository',
  'OCIRepository',
  'HelmRepository',
  'HelmChart',
  'Bucket',
  'ExternalArtifact',
];

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
