/**
 * Which API groups an upstream CRD manifest defines, told from its URL or file name alone (the
 * bootstrap applies it before Flux; the workspace does not hold its text). CRD files of
 * controller-gen projects are named `<group>_<plural>.yaml` (prometheus-operator's
 * `monitoring.coreos.com_servicemonitors.yaml`, external-secrets' `external-secrets.io_…`); a few
 * projects publish one bundle under a well-known name.
 */
const FLUX_GROUPS = ['source.toolkit.fluxcd.io', 'kustomize.toolkit.fluxcd.io', 'helm.toolkit.fluxcd.io', 'notification.toolkit.fluxcd.io', 'image.toolkit.fluxcd.io'];

const BUNDLES: readonly { host: string; file: string; groups: readonly string[] }[] = [
  { host: 'kubernetes-sigs/gateway-api', file: 'standard-install.yaml', groups: ['gateway.networking.k8s.io'] },
  { host: 'kubernetes-sigs/gateway-api', file: 'experimental-install.yaml', groups: ['gateway.networking.k8s.io', 'gateway.networking.x-k8s.io'] },
  { host: 'prometheus-operator/prometheus-operator', file: 'stripped-down-crds.yaml', groups: ['monitoring.coreos.com'] },
  { host: 'kubernetes-csi/external-snapshotter', file: '', groups: ['snapshot.storage.k8s.io'] },
  { host: 'dragonflydb/dragonfly-operator', file: 'crd.yaml', groups: ['dragonflydb.io'] },
  { host: 'cert-manager/cert-manager', file: 'cert-manager.crds.yaml', groups: ['cert-manager.io', 'acme.cert-manager.io'] },
  { host: 'external-secrets/external-secrets', file: 'bundle.yaml', groups: ['external-secrets.io', 'generators.external-secrets.io'] },
  // Flux itself (`kubectl apply -k github.com/fluxcd/flux2/manifests/install?ref=v2.9.3`).
  { host: 'fluxcd/flux2', file: '', groups: FLUX_GROUPS },
  { host: 'fluxcd/flux2', file: 'install.yaml', groups: FLUX_GROUPS },
  { host: 'prometheus-operator/prometheus-operator', file: 'bundle.yaml', groups: ['monitoring.coreos.com'] },
  { host: 'kyverno/kyverno', file: 'install.yaml', groups: ['kyverno.io', 'policies.kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'] },
  { host: 'metallb/metallb', file: 'metallb-native.yaml', groups: ['metallb.io'] },
  { host: 'rancher/system-upgrade-controller', file: 'crd.yaml', groups: ['upgrade.cattle.io'] },
  { host: 'cert-manager/cert-manager', file: 'cert-manager.yaml', groups: ['cert-manager.io', 'acme.cert-manager.io'] },
  // cert-manager's releases before it left the jetstack organisation.
  { host: 'jetstack/cert-manager', file: 'cert-manager.crds.yaml', groups: ['cert-manager.io', 'acme.cert-manager.io'] },
  { host: 'jetstack/cert-manager', file: 'cert-manager.yaml', groups: ['cert-manager.io', 'acme.cert-manager.io'] },
  { host: 'grafana/grafana-operator', file: 'crds.yaml', groups: ['grafana.integreatly.org'] },
  { host: 'kubernetes-sigs/external-dns', file: 'crd-manifest.yaml', groups: ['externaldns.k8s.io'] },
  { host: 'k8snetworkplumbingwg/network-attachment-definition-client', file: 'networks-crd.yaml', groups: ['k8s.cni.cncf.io'] },
  { host: 'controlplaneio-fluxcd/flux-operator', file: 'install.yaml', groups: ['fluxcd.controlplane.io'] },
];

/** A DNS-style group, an underscore, a plural: the controller-gen CRD file name. */
function groupOfCrdFileName(name: string): string | undefined {
  const base = name.endsWith('.yaml') ? name.slice(0, -5) : name.endsWith('.yml') ? name.slice(0, -4) : undefined;
  if (!base) return undefined;
  const us = base.indexOf('_');
  if (us <= 0 || us !== base.lastIndexOf('_')) return undefined;
  const group = base.slice(0, us);
  const plural = base.slice(us + 1);
  if (!/^[a-z0-9]+$/.test(plural)) return undefined;
  const labels = group.split('.');
  if (labels.length < 2 || !labels.every((l) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return undefined;
  return group;
}

/** The groups a CRD URL or file path names; empty when it cannot be told. */
export function crdGroupsOfUrl(url: string): string[] {
  const clean = url.split(/[?#]/, 1)[0];
  const file = clean.slice(clean.lastIndexOf('/') + 1);
  const group = groupOfCrdFileName(file);
  if (group) return [group];
  // `owner/repo/` or a URL ending in it: `fluxcd/flux2` is not `fluxcd/flux2-multi-tenancy`.
  for (const b of BUNDLES) if ((clean.includes(`${b.host}/`) || clean.endsWith(b.host)) && (b.file === '' || file === b.file)) return [...b.groups];
  return [];
}
