import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { check, diskRepo, SHARED } from './helpers';

/**
 * Real public Flux repositories: no errors except where the repository really is wrong for Flux
 * 2.8 (kustomize-controller v1.9 / helm-controller v1.6 / source-controller v1.9). Each such case
 * is listed with the reason.
 */
function run(name: string) {
  const dir = `${SHARED}/corpora/${name}`;
  assert.ok(fs.existsSync(dir), `corpus ${dir} missing`);
  const repo = diskRepo(dir);
  const result = check(repo);
  assert.deepEqual(result.failures, []);
  const rel = (p: string) => p.slice(repo.workspace.root.length + 1);
  return result.diagnostics.map((d) => ({ rule: d.rule, severity: d.severity, file: rel(d.file), line: d.range.start.line + 1, message: d.message }));
}

const count = (list: { rule: string }[]) => list.reduce<Record<string, number>>((m, d) => ({ ...m, [d.rule]: (m[d.rule] ?? 0) + 1 }), {});

test('flux2-kustomize-helm-example: clean', () => {
  assert.deepEqual(run('flux2-kustomize-helm-example'), []);
});

test('flux2-monitoring-example: clean', () => {
  assert.deepEqual(run('flux2-monitoring-example'), []);
});

test('flux2-multi-tenancy: only its OCIRepository still on v1beta2', () => {
  // source-controller v1.9 serves OCIRepository at v1 only; v1beta2 is rejected by the API server.
  const list = run('flux2-multi-tenancy');
  assert.deepEqual(list.map((d) => [d.rule, d.file, d.line]), [['api-version-unserved', 'infrastructure/kyverno/source.yaml', 1]]);
});

test('flux2-hub-spoke-example: only HelmRepository v1beta2 / HelmRelease v2beta2 documents', () => {
  // The example predates Flux 2.8, which no longer serves these versions.
  const list = run('flux2-hub-spoke-example');
  assert.equal(list.length, 8);
  for (const d of list) {
    assert.equal(d.rule, 'api-version-unserved');
    assert.match(d.message, /(HelmRepository source.toolkit.fluxcd.io\/v1beta2|HelmRelease helm.toolkit.fluxcd.io\/v2beta2)/);
  }
  // The per-cluster values files are kustomize patches of the HelmRelease: they must move with it.
  const patches = list.filter((d) => d.file.endsWith('podinfo-values.yaml'));
  assert.equal(patches.length, 2);
  for (const d of patches) assert.match(d.message, /^This kustomize patch targets HelmRelease helm.toolkit.fluxcd.io\/v2beta2/);
});

test('bjw-s-labs-home-ops: one real ordering bug (paperless lacks dependsOn dragonfly-operator)', () => {
  // Every other app using the dragonfly component depends on database/dragonfly-operator;
  // selfhosted/paperless does not, so on a fresh cluster its Dragonfly is applied before the CRD.
  // CRDs its bootstrap helmfile installs before Flux (external-secrets, kube-prometheus-stack, …)
  // are not flagged.
  const list = run('bjw-s-labs-home-ops');
  assert.deepEqual(list.map((d) => [d.rule, d.severity, d.file, d.line]), [['crd-order', 'error', 'kubernetes/components/dragonfly/cluster.yaml', 4]]);
  assert.match(list[0].message, /Dragonfly paperless-dragonfly is applied by Kustomization selfhosted\/paperless.*Add dependsOn 'database\/dragonfly-operator'/);
});

test('allenporter-k8s-gitops: unserved API versions and real CRD ordering gaps', () => {
  const list = run('allenporter-k8s-gitops');
  // 34 sources/HelmReleases still on v1beta2/v2beta1/v2beta2.
  // monitoring applies PodMonitors/PrometheusRules whose CRDs the `crds` Kustomization applies, without
  // depending on it; iot and network-wifi apply volsync ReplicationSources without depending on
  // `storage`; network-certs depends on `network`, which does not wait for cert-manager.
  assert.deepEqual(count(list), { 'api-version-unserved': 34, 'crd-order': 7, 'crd-order-no-wait': 1 });
  const order = list.filter((d) => d.rule === 'crd-order').map((d) => `${d.file}:${d.line}`);
  assert.deepEqual(order, [
    'kubernetes/iot/prod/supernote/backup.yaml:3',
    'kubernetes/monitoring/base/flux-monitoring/podmonitor.yaml:3',
    'kubernetes/monitoring/base/flux-monitoring/podmonitor.yaml:18',
    'kubernetes/monitoring/base/flux-monitoring/podmonitor.yaml:33',
    'kubernetes/monitoring/base/flux-monitoring/podmonitor.yaml:48',
    'kubernetes/monitoring/base/flux-monitoring/prometheus-rules.yaml:3',
    'kubernetes/network/prod/wifi/unifi-backup.yaml:3',
  ]);
  const noWait = list.find((d) => d.rule === 'crd-order-no-wait')!;
  assert.equal(noWait.file, 'kubernetes/network/prod/network-certs.yaml');
  assert.match(noWait.message, /flux-system\/network has neither `wait: true` nor a `healthChecks` entry/);
});
