/**
 * The cluster before Flux: CRDs a repository's bootstrap installs (task-runner kubectl steps,
 * helmfiles by their content) exist before any Kustomization runs, so custom resources needing
 * them are not crd-order findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crdGroupsOfUrl } from '../../../src/core/bootstrap/crdBundles';
import { commandsOf, kubectlApply } from '../../../src/core/bootstrap/commands';
import { repoBootstrapFacts } from '../../../src/core/bootstrap/index';
import { memoryRepo } from '../helpers';
import { check } from '../checks/helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
const hr = `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: external-secrets\n  namespace: external-secrets\nspec:\n  chart:\n    spec:\n      chart: external-secrets\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n`;
const store = 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n';

/** Two clusters, each with its own folder; the external-secrets chart and a store in sibling Kustomizations. */
function cluster(name: string): Record<string, string> {
  return {
    [`kubernetes/${name}/flux/root.yaml`]: ks('flux-system', `./kubernetes/${name}/flux`),
    [`kubernetes/${name}/flux/es.yaml`]: ks('es', `./kubernetes/${name}/es`),
    [`kubernetes/${name}/flux/stores.yaml`]: ks('stores', `./kubernetes/${name}/stores`),
    [`kubernetes/${name}/es/hr.yaml`]: hr,
    [`kubernetes/${name}/es/repo.yaml`]: 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n',
    [`kubernetes/${name}/stores/store.yaml`]: store,
  };
}
const findings = (files: Record<string, string>) => check(memoryRepo(files)).diagnostics.map((d) => `${d.rule}|${d.file.slice(6)}`);

const kubectlTargets = (text: string) => {
  const out = { kustomize: [] as string[], files: [] as string[] };
  for (const c of commandsOf(text)) {
    const k = kubectlApply(c.words);
    if (k) {
      out.kustomize.push(...k.kustomize);
      out.files.push(...k.files);
    }
  }
  return out;
};

test('kubectl steps: -k/--kustomize folders and -f/--filename targets of apply and create, up to the next command of a pipe', () => {
  assert.deepEqual(kubectlTargets('kubectl apply --server-side --kustomize {{.CLUSTER_DIR}}/bootstrap/crds/\nkubectl apply -f https://x/a_b.yaml'), {
    kustomize: ['{{.CLUSTER_DIR}}/bootstrap/crds/'],
    files: ['https://x/a_b.yaml'],
  });
  assert.deepEqual(kubectlTargets('kubectl create -k=ignored --kustomize=./crds && kubectl apply -f - | kubectl get -f x'), { kustomize: ['ignored', './crds'], files: [] });
  assert.deepEqual(kubectlTargets('kubectl get pods -f x.yaml'), { kustomize: [], files: [] });
});

test('CRD groups from upstream URLs: controller-gen file names and well-known bundles; unknown ones give nothing', () => {
  assert.deepEqual(crdGroupsOfUrl('https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.71.2/example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml'), ['monitoring.coreos.com']);
  assert.deepEqual(crdGroupsOfUrl('https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.0/standard-install.yaml'), ['gateway.networking.k8s.io']);
  assert.deepEqual(crdGroupsOfUrl('https://example.com/manifests/install.yaml'), []);
  assert.deepEqual(crdGroupsOfUrl('https://example.com/not_a-group.yaml'), []);
});

test('CRD bundles the fresh repositories apply before Flux (Talos extraManifests, scripts): grafana-operator, external-dns, NAD, jetstack cert-manager, flux-operator', () => {
  const cases: [string, string[]][] = [
    ['https://github.com/grafana/grafana-operator/releases/download/v5.24.0/crds.yaml', ['grafana.integreatly.org']],
    ['https://raw.githubusercontent.com/kubernetes-sigs/external-dns/refs/tags/v0.16.1/docs/sources/crd/crd-manifest.yaml', ['externaldns.k8s.io']],
    ['https://github.com/k8snetworkplumbingwg/network-attachment-definition-client/raw/refs/tags/v1.7.7/artifacts/networks-crd.yaml', ['k8s.cni.cncf.io']],
    ['https://github.com/jetstack/cert-manager/releases/download/v1.7.1/cert-manager.crds.yaml', ['cert-manager.io', 'acme.cert-manager.io']],
    ['https://github.com/controlplaneio-fluxcd/flux-operator/releases/latest/download/install.yaml', ['fluxcd.controlplane.io']],
    // Another file of the same projects tells nothing.
    ['https://github.com/grafana/grafana-operator/releases/download/v5.24.0/kustomize-cluster_scoped.yaml', []],
  ];
  for (const [url, groups] of cases) assert.deepEqual(crdGroupsOfUrl(url), groups, url);
});

test('a Taskfile applying a templated CRD folder before Flux provides its CRDs to the cluster rooted there, not to the others', () => {
  const files = {
    ...cluster('hegira'),
    ...cluster('helios'),
    '.taskfiles/Kubernetes/Tasks.yml': 'version: "3"\ntasks:\n  bootstrap:\n    cmds:\n      - kubectl apply --server-side --kustomize {{.CLUSTER_DIR}}/bootstrap/crds/\n',
    'kubernetes/hegira/bootstrap/crds/kustomization.yaml':
      'resources:\n  - https://raw.githubusercontent.com/external-secrets/external-secrets/main/config/crds/bases/external-secrets.io_clustersecretstores.yaml\n',
  };
  const facts = repoBootstrapFacts(memoryRepo(files).model());
  assert.deepEqual(
    facts.map((f) => [f.what, f.name, f.via, f.scope, f.line]),
    [['crd-group', 'external-secrets.io', 'kubectl apply -k {{.CLUSTER_DIR}}/bootstrap/crds/', ['/repo/kubernetes/hegira'], 5]],
  );
  assert.deepEqual(findings(files), ['crd-order|kubernetes/helios/stores/store.yaml']);
  // Without the step both clusters wait for a retry.
  const { ['.taskfiles/Kubernetes/Tasks.yml']: _, ...noTask } = files;
  assert.deepEqual(findings(noTask), ['crd-order|kubernetes/helios/stores/store.yaml', 'crd-order|kubernetes/hegira/stores/store.yaml'].sort());
});

test('a helmfile is known by its content wherever it is: releases naming charts (a CRDs-only bootstrap file)', () => {
  const files = { ...cluster('main') };
  assert.deepEqual(findings(files), ['crd-order|kubernetes/main/stores/store.yaml']);
  const crds = 'helmDefaults:\n  args: [--include-crds]\nreleases:\n  - name: es-crds\n    namespace: external-secrets\n    chart: oci://ghcr.io/external-secrets/charts/external-secrets\n';
  assert.deepEqual(findings({ ...files, 'bootstrap/crds.yaml': crds }), []);
  // A list named releases without charts, outside a helmfile, is not one.
  assert.deepEqual(findings({ ...files, 'docs/releases.yaml': 'releases:\n  - name: v1\n' }), ['crd-order|kubernetes/main/stores/store.yaml']);
  // Written in flow style, as JSON is (d4rkfella/home-ops' bootstrap/helmfile.d/00-crds.yaml).
  const flow = '---\n{\n  helmDefaults: { args: ["--include-crds"] },\n  releases: [{\n    name: "es-crds",\n    namespace: "external-secrets",\n    chart: "oci://ghcr.io/external-secrets/charts/external-secrets",\n  }],\n}\n';
  assert.deepEqual(findings({ ...files, 'bootstrap/helmfile.d/00-crds.yaml': flow }), []);
  // A flow mapping whose nested key is named releases is no helmfile.
  assert.deepEqual(findings({ ...files, 'docs/notes.yaml': '{ project: { releases: [{ name: v1 }] } }\n' }), ['crd-order|kubernetes/main/stores/store.yaml']);
});
