import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';
import { SHARED } from './helpers';
import { corpusRemotes } from '../helpers';
import { Folder } from '../../../src/engine/folder';
import { diskHost } from '../../../src/node/fsHost';
import { checkModel } from '../../../src/core/checks/index';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Real public Flux repositories: no errors except where the repository really is wrong for Flux
 * 2.8 (kustomize-controller v1.9 / helm-controller v1.6 / source-controller v1.9). Each such case
 * is listed with the reason. Each cluster is built from its root down as the editor and `check`
 * see it: every Kustomization rendered (kustomize as WebAssembly), children from their parent's build.
 */
const results = new Map<string, Promise<{ rule: string; severity: string; file: string; line: number; message: string }[]>>();

function run(name: string) {
  let result = results.get(name);
  if (!result) results.set(name, (result = refinedCheck(name)));
  return result;
}

async function refinedCheck(name: string) {
  const dir = `${SHARED}/corpora/${name}`;
  assert.ok(fs.existsSync(dir), `corpus ${dir} missing`);
  // As a clone of the corpus's repository (origin = its GitHub URL, its default branch `main`
  // checked out), the way users open it: a GitRepository of another branch is another source.
  const folder = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(name), checkout: { branch: 'main' } }, {});
  const refined = await folder.refine({ allowNetwork: false });
  assert.equal(refined?.pending, 0, `${name}: every build done`);
  const model = folder.model();
  assert.ok(model.builds.some((b) => b.state === 'built'), `${name}: Kustomizations were built`);
  const result = checkModel(model);
  assert.deepEqual(result.failures, []);
  const rel = (p: string) => p.slice(dir.length + 1);
  return result.diagnostics.map((d) => ({ rule: d.rule, severity: d.severity, file: rel(d.file), line: d.range.start.line + 1, message: d.message }));
}

const count = (list: { rule: string }[]) => list.reduce<Record<string, number>>((m, d) => ({ ...m, [d.rule]: (m[d.rule] ?? 0) + 1 }), {});

test('flux2-kustomize-helm-example: clean', async () => {
  assert.deepEqual(await run('flux2-kustomize-helm-example'), []);
});

test('flux2-monitoring-example: clean', async () => {
  assert.deepEqual(await run('flux2-monitoring-example'), []);
});

test('flux2-multi-tenancy: only its OCIRepository still on v1beta2', async () => {
  // source-controller v1.9 serves OCIRepository at v1 only; v1beta2 is rejected by the API server.
  const list = await run('flux2-multi-tenancy');
  assert.deepEqual(list.map((d) => [d.rule, d.file, d.line]), [['api-version-unserved', 'infrastructure/kyverno/source.yaml', 1]]);
});

test('flux2-hub-spoke-example: only HelmRepository v1beta2 / HelmRelease v2beta2 documents', async () => {
  // The example predates Flux 2.8, which no longer serves these versions.
  const list = await run('flux2-hub-spoke-example');
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

test('bjw-s-labs-home-ops: one real ordering gap (paperless lacks dependsOn dragonfly-operator: it converges on retry, a warning)', async () => {
  // Every other app using the dragonfly component depends on database/dragonfly-operator;
  // selfhosted/paperless does not, so on a fresh cluster its Dragonfly is applied before the CRD.
  // CRDs its bootstrap helmfile installs before Flux (external-secrets, kube-prometheus-stack, …)
  // are not flagged.
  const list = await run('bjw-s-labs-home-ops');
  assert.deepEqual(list.map((d) => [d.rule, d.severity, d.file, d.line]), [['crd-order', 'warning', 'kubernetes/components/dragonfly/cluster.yaml', 4]]);
  assert.match(list[0].message, /Dragonfly paperless-dragonfly is applied by Kustomization selfhosted\/paperless.*Add dependsOn 'database\/dragonfly-operator'/);
});

test('allenporter-k8s-gitops: unserved API versions and real CRD ordering gaps', async () => {
  const list = await run('allenporter-k8s-gitops');
  // 34 sources/HelmReleases still on v1beta2/v2beta1/v2beta2.
  // monitoring applies PodMonitors/PrometheusRules whose CRDs the `crds` Kustomization applies, without
  // depending on it; iot and network-wifi apply volsync ReplicationSources without depending on
  // `storage`; network-certs depends on `network`, which does not wait for cert-manager.
  assert.deepEqual(count(list), { 'api-version-unserved': 34, 'crd-order': 7, 'crd-order-no-wait': 1 });
  // The repository pins Flux v2.4.0 (flux-manifests tag), which still serves these versions: warnings.
  const unserved = list.filter((d) => d.rule === 'api-version-unserved');
  assert.ok(unserved.every((d) => d.severity === 'warning' && /no longer served from Flux 2\.[78]: move to .* before upgrading Flux\.\nThe Flux v2\.4\.0 this repository runs .* still serves it/.test(d.message)), unserved[0].message);
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

test('billimek-k8s-gitops: two real ordering bugs (tailscale Connector, barman-cloud ObjectStore next to their charts)', async () => {
  // cluster-apps applies the tailscale-operator HelmRelease and a Connector, and the plugin-barman-cloud
  // HelmRelease and an ObjectStore: their dry-run runs before helm-controller has installed the charts' CRDs.
  const list = await run('billimek-k8s-gitops');
  assert.deepEqual(
    list.map((d) => [d.rule, d.severity, d.file, d.line]),
    [
      ['crd-order', 'error', 'kubernetes/default/cloudnative-pg/cluster/objectstore.yaml', 4],
      ['crd-order', 'error', 'kubernetes/kube-system/tailscale/connector.yaml', 3],
    ],
  );
});

test('controlplaneio-fluxcd-d2-fleet: clean (the Flux Operator exists before the FluxInstance it runs)', async () => {
  assert.deepEqual(await run('controlplaneio-fluxcd-d2-fleet'), []);
});

test('joryirving-home-ops: app Kustomizations using the postgres/dragonfly components without depending on the operators; folders applied twice', async () => {
  const list = await run('joryirving-home-ops');
  // One finding per component file, for every app that includes it (one per cause): 14, 14 and 7 apps
  // (llm/open-webui depends on llm/searxng, which applies a Dragonfly itself: once searxng is Ready the CRD exists).
  assert.deepEqual(count(list), { 'crd-order': 3, 'duplicate-object': 13 });
  const order = list.filter((d) => d.rule === 'crd-order');
  // The components add dependsOn to the HelmReleases only; the Kustomization applying the
  // Cluster/ScheduledBackup/Dragonfly does not depend on the Kustomization installing the operator.
  assert.deepEqual([...new Set(order.map((d) => d.file))], ['kubernetes/components/dragonfly/cluster.yaml', 'kubernetes/components/postgres/cluster.yaml', 'kubernetes/components/postgres/scheduledbackup.yaml']);
  assert.ok(order.every((d) => /comes from HelmRelease database\/(cloudnative-pg|dragonfly-operator)/.test(d.message)));
  assert.deepEqual(order.map((d) => /Also in (\d+) other Kustomizations/.exec(d.message)?.[1]), ['6', '13', '13']);
  // clusters/X has no kustomization.yaml: Flux's generated one includes flux-instance/, which the
  // flux-instance Kustomization applies as well; and two apps ship the same GrafanaDashboards.
  const dup = list.filter((d) => d.rule === 'duplicate-object').map((d) => d.file);
  assert.equal(dup.filter((f) => /^kubernetes\/clusters\/(main|test|utility)\/flux-instance\//.test(f)).length, 9);
  assert.equal(dup.filter((f) => /grafanadashboard\.yaml$/.test(f)).length, 4);
});

// Every corpus's findings, placements and clusters, on its default and a feature branch, are pinned by
// test/unit/corpora/snapshots.test.ts (reviewed notes in each snapshot, docs/real-world*.md).
