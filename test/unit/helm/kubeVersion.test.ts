/**
 * `.Capabilities.KubeVersion` of the model's HelmRelease renders (src/core/helm/kubeVersion.ts):
 * what the repository pins for its cluster, else the documented default.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryRepo } from '../helpers';
import { clusterKubeVersion, DEFAULT_KUBE_VERSION } from '../../../src/core/helm/kubeVersion';

const root = (cluster: string) => ({
  [`clusters/${cluster}/flux-system/gotk-sync.yaml`]: `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/${cluster}
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
});

test('no pin: the default, said so', () => {
  const model = memoryRepo(root('prod')).model();
  assert.deepEqual(clusterKubeVersion(model, model.clusters[0]), { version: DEFAULT_KUBE_VERSION, origin: `no version pinned in the repository: the default ${DEFAULT_KUBE_VERSION}` });
});

test("talhelper's kubernetesVersion, Talos machine-config images and a Renovate-kept kubelet version are pins", () => {
  const cases: [string, string, string][] = [
    ['talos/talconfig.yaml', 'clusterName: home\ntalosVersion: v1.10.0\nkubernetesVersion: v1.33.2\n', '1.33.2'],
    ['talos/machineconfig.yaml.j2', 'machine:\n  kubelet:\n    image: ghcr.io/siderolabs/kubelet:v1.34.1\n  install:\n    disk: {{ disk }}\n', '1.34.1'],
    ['talos/version.yaml', '# renovate: datasource=docker depName=ghcr.io/siderolabs/kubelet\nk8s_version: v1.36.2\n', '1.36.2'],
  ];
  for (const [file, text, version] of cases) {
    const model = memoryRepo({ ...root('prod'), [file]: text }).model();
    const got = clusterKubeVersion(model, model.clusters[0]);
    assert.equal(got.version, version, file);
    assert.match(got.origin, new RegExp(`^pinned in ${file.replace(/\./g, '\\.')}:\\d+$`));
  }
});

test("a pin under a cluster's folder counts for that cluster; the newest pin for every cluster wins otherwise", () => {
  const model = memoryRepo({
    ...root('main'),
    ...root('staging'),
    'talos/main/talconfig.yaml': 'kubernetesVersion: v1.35.0\n',
    'talos/staging/talconfig.yaml': 'kubernetesVersion: v1.36.1\n',
    'bootstrap/versions.yaml': '# renovate: datasource=docker depName=ghcr.io/siderolabs/kubelet\nkubelet: v1.30.0\n',
  }).model();
  const byName = Object.fromEntries(model.clusters.map((c) => [c.name, clusterKubeVersion(model, c).version]));
  assert.deepEqual(byName, { main: '1.35.0', staging: '1.36.1' });
});
