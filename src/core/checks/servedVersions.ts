/**
 * `api-version-unserved` beyond Flux's kinds: an applied object whose API version its API server
 * does not serve is refused whole ("no matches for kind … in version …"):
 *   - a custom resource at a version none of the known CRDs of its kind serves (workspace CRDs,
 *     CRDs of rendered charts, the connected cluster's; all must lack it, since the cluster runs one of them);
 *   - a built-in kind at a version Kubernetes removed, once the cluster's Kubernetes version (the
 *     one the repository pins, else the documented default) is at or past the removal.
 */
import { clusterKubeVersion, kubeMinor } from '../helm/kubeVersion';
import { groupOf, versionOf } from '../kinds';
import { asRecord } from '../model/objects';
import { crdServedVersions } from '../schema/catalog';
import type { CheckContext } from './context';

/**
 * Kinds at group/versions Kubernetes stopped serving, with the minor release that removed them.
 * By kind, not by group/version: a removed version can come back for new kinds
 * (admissionregistration.k8s.io/v1beta1 for MutatingAdmissionPolicy, networking.k8s.io/v1beta1 for
 * ServiceCIDR, coordination.k8s.io/v1beta1 for LeaseCandidate).
 */
export const KUBE_REMOVED: Readonly<Record<string, string>> = Object.fromEntries(
  (
    [
      ['1.16', 'extensions/v1beta1', ['Deployment', 'DaemonSet', 'ReplicaSet', 'NetworkPolicy', 'PodSecurityPolicy']],
      ['1.22', 'extensions/v1beta1', ['Ingress']],
      ['1.16', 'apps/v1beta1', ['Deployment', 'StatefulSet', 'ControllerRevision']],
      ['1.16', 'apps/v1beta2', ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ControllerRevision']],
      ['1.22', 'networking.k8s.io/v1beta1', ['Ingress', 'IngressClass']],
      ['1.22', 'rbac.authorization.k8s.io/v1beta1', ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']],
      ['1.22', 'rbac.authorization.k8s.io/v1alpha1', ['Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']],
      ['1.22', 'apiextensions.k8s.io/v1beta1', ['CustomResourceDefinition']],
      ['1.22', 'admissionregistration.k8s.io/v1beta1', ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']],
      ['1.22', 'scheduling.k8s.io/v1beta1', ['PriorityClass']],
      ['1.22', 'storage.k8s.io/v1beta1', ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment']],
      ['1.27', 'storage.k8s.io/v1beta1', ['CSIStorageCapacity']],
      ['1.22', 'coordination.k8s.io/v1beta1', ['Lease']],
      ['1.22', 'certificates.k8s.io/v1beta1', ['CertificateSigningRequest']],
      ['1.22', 'apiregistration.k8s.io/v1beta1', ['APIService']],
      ['1.25', 'batch/v1beta1', ['CronJob']],
      ['1.25', 'policy/v1beta1', ['PodDisruptionBudget', 'PodSecurityPolicy']],
      ['1.25', 'autoscaling/v2beta1', ['HorizontalPodAutoscaler']],
      ['1.26', 'autoscaling/v2beta2', ['HorizontalPodAutoscaler']],
      ['1.25', 'discovery.k8s.io/v1beta1', ['EndpointSlice']],
      ['1.25', 'events.k8s.io/v1beta1', ['Event']],
      ['1.25', 'node.k8s.io/v1beta1', ['RuntimeClass']],
      ['1.26', 'flowcontrol.apiserver.k8s.io/v1beta1', ['FlowSchema', 'PriorityLevelConfiguration']],
      ['1.29', 'flowcontrol.apiserver.k8s.io/v1beta2', ['FlowSchema', 'PriorityLevelConfiguration']],
      ['1.32', 'flowcontrol.apiserver.k8s.io/v1beta3', ['FlowSchema', 'PriorityLevelConfiguration']],
    ] as const
  ).flatMap(([release, groupVersion, kinds]) => kinds.map((kind) => [`${groupVersion}/${kind}`, release])),
);

/** Where a removed group/version's kinds went. */
const KUBE_CURRENT: Readonly<Record<string, string>> = {
  Deployment: 'apps/v1', DaemonSet: 'apps/v1', ReplicaSet: 'apps/v1', StatefulSet: 'apps/v1', Ingress: 'networking.k8s.io/v1',
  IngressClass: 'networking.k8s.io/v1', NetworkPolicy: 'networking.k8s.io/v1', CronJob: 'batch/v1', PodDisruptionBudget: 'policy/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2', CustomResourceDefinition: 'apiextensions.k8s.io/v1', PriorityClass: 'scheduling.k8s.io/v1',
  EndpointSlice: 'discovery.k8s.io/v1', Event: 'events.k8s.io/v1', RuntimeClass: 'node.k8s.io/v1', Lease: 'coordination.k8s.io/v1',
};

export function checkServedVersions(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    const kube = clusterKubeVersion(ctx.model, cluster);
    for (const applied of cluster.objects) {
      const object = applied.object;
      if (object.fluxKind || object.synthetic || !ctx.isReal(object.doc)) continue;
      if (asRecord(object.doc.value)?.kind !== object.kind) continue;
      const label = `${applied.kind} ${applied.namespace ? `${applied.namespace}/` : ''}${applied.name}`;
      const removedIn = Object.prototype.hasOwnProperty.call(KUBE_REMOVED, `${applied.apiVersion}/${applied.kind}`) ? KUBE_REMOVED[`${applied.apiVersion}/${applied.kind}`] : undefined;
      if (removedIn) {
        if (kubeMinor(kube.version) < kubeMinor(removedIn)) continue;
        const to = KUBE_CURRENT[applied.kind];
        ctx.report(
          'api-version-unserved',
          object.doc,
          ['apiVersion'],
          `${label}: ${applied.apiVersion} is not served since Kubernetes ${removedIn}${to ? `: use ${to}` : ''}. This cluster runs Kubernetes ${kube.version} (${kube.origin}); applying it fails with "no matches for kind \\"${applied.kind}\\" in version \\"${applied.apiVersion}\\"".`,
        );
        continue;
      }
      const group = groupOf(applied.apiVersion);
      if (!group) continue;
      const served = crdServedVersions(ctx.model, group, applied.kind, ctx.options.clusterCrds);
      const version = versionOf(applied.apiVersion);
      if (!served || served.versions.includes(version)) continue;
      ctx.report(
        'api-version-unserved',
        object.doc,
        ['apiVersion'],
        `${label}: ${applied.apiVersion} is a version no known CRD of ${applied.kind} serves (${served.versions.map((v) => `${group}/${v}`).join(', ')}; from ${served.origins.join(', ')}); applying it fails with "no matches for kind \\"${applied.kind}\\" in version \\"${applied.apiVersion}\\"".`,
      );
    }
  }
}
