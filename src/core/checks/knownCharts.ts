import { trimEndChars } from '../text';

/**
 * Well-known Helm charts and the API groups of the CRDs they install, for charts that cannot be
 * read offline. Matched on the chart name (the last path segment of `chart.spec.chart` or of an
 * OCIRepository URL). `enabledBy` lists value paths of which one must be true when a chart installs
 * its CRDs only on request (cert-manager); charts that install them by default have none.
 *
 * Keep entries to charts whose CRDs really come with the release: a group missing here only means
 * "provider unknown", and custom resources with unknown providers are never flagged.
 */
export interface KnownChart {
  readonly groups: readonly string[];
  readonly enabledBy?: readonly (readonly string[])[];
}

export const KNOWN_CHARTS: Readonly<Record<string, KnownChart>> = {
  'cert-manager': { groups: ['cert-manager.io', 'acme.cert-manager.io'], enabledBy: [['installCRDs'], ['crds', 'enabled']] },
  'trust-manager': { groups: ['trust.cert-manager.io'] },
  'kube-prometheus-stack': { groups: ['monitoring.coreos.com'] },
  'prometheus-operator-crds': { groups: ['monitoring.coreos.com'] },
  'victoria-metrics-operator': { groups: ['operator.victoriametrics.com'] },
  'victoria-metrics-k8s-stack': { groups: ['operator.victoriametrics.com'] },
  'external-secrets': { groups: ['external-secrets.io', 'generators.external-secrets.io'] },
  'gateway-helm': { groups: ['gateway.envoyproxy.io', 'gateway.networking.k8s.io'] },
  'gateway-crds-helm': { groups: ['gateway.envoyproxy.io', 'gateway.networking.k8s.io'] },
  // wiremind's chart of the upstream gateway-api bundle (standard and experimental channels).
  'gateway-api-crds': { groups: ['gateway.networking.k8s.io', 'gateway.networking.x-k8s.io'] },
  kyverno: { groups: ['kyverno.io', 'policies.kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'] },
  traefik: { groups: ['traefik.io', 'traefik.containo.us', 'hub.traefik.io'] },
  'traefik-crds': { groups: ['traefik.io', 'traefik.containo.us', 'hub.traefik.io'] },
  longhorn: { groups: ['longhorn.io'] },
  'rook-ceph': { groups: ['ceph.rook.io'] },
  'cloudnative-pg': { groups: ['postgresql.cnpg.io'] },
  // Its ObjectStore CRD is behind `crds.create`, which defaults to true.
  'plugin-barman-cloud': { groups: ['barmancloud.cnpg.io'] },
  metallb: { groups: ['metallb.io'] },
  keda: { groups: ['keda.sh', 'eventing.keda.sh'] },
  velero: { groups: ['velero.io'] },
  volsync: { groups: ['volsync.backube'] },
  'snapshot-controller': { groups: ['snapshot.storage.k8s.io'] },
  'grafana-operator': { groups: ['grafana.integreatly.org'] },
  'sealed-secrets': { groups: ['bitnami.com'] },
  'tf-controller': { groups: ['infra.contrib.fluxcd.io'] },
  'flux-operator': { groups: ['fluxcd.controlplane.io'] },
  'dragonfly-operator': { groups: ['dragonflydb.io'] },
  'intel-device-plugins-operator': { groups: ['deviceplugin.intel.com'] },
  'node-feature-discovery': { groups: ['nfd.k8s-sigs.io'] },
  'gha-runner-scale-set-controller': { groups: ['actions.github.com'] },
  'system-upgrade-controller': { groups: ['upgrade.cattle.io'] },
  'tailscale-operator': { groups: ['tailscale.com'] },
  'opentelemetry-operator': { groups: ['opentelemetry.io'] },
  'secrets-store-csi-driver': { groups: ['secrets-store.csi.x-k8s.io'] },
  'strimzi-kafka-operator': { groups: ['kafka.strimzi.io', 'core.strimzi.io'] },
  'mariadb-operator': { groups: ['k8s.mariadb.com'] },
  'mariadb-operator-crds': { groups: ['k8s.mariadb.com'] },
  'postgres-operator': { groups: ['acid.zalan.do'] },
  crossplane: { groups: ['pkg.crossplane.io', 'apiextensions.crossplane.io'] },
  'argo-rollouts': { groups: ['argoproj.io'] },
  k8up: { groups: ['k8up.io'] },
  'emqx-operator': { groups: ['apps.emqx.io'] },
};

/** Chart name of a chart reference: `oci://…/charts/cert-manager:1.2` or `./charts/foo` → its last segment. */
export function chartName(ref: string): string {
  const trimmed = trimEndChars(ref, '/');
  const last = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  const tag = last.search(/[@:]/);
  return tag === -1 ? last : last.slice(0, tag);
}
