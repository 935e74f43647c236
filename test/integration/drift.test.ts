// Drift preview against the real test kube-apiserver: every verdict, Secret masking, immutable
// fields, missing CRDs, RBAC, cancellation, both HelmRelease modes, and proof from the audit log
// that nothing but dry-run writes were sent. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { clusterDriftApi } from '../../src/cluster/dryRun';
import type { ClusterClient } from '../../src/cluster/client';
import { driftHelmRelease, type DriftRunContext } from '../../src/workflows/drift';
import { readReleases } from '../../src/cluster/helmStorage';
import type { KubeJson } from '../../src/core/kubeJson';
import { counts, manifestObjects, compareManifests, reportJson, reportText, runDrift, type DesiredObject, type DriftReport } from '../../src/core/drift';
import { Engine } from '../../src/engine/engine';
import { memoryHost } from '../../src/core/workspace/host';
import { getTestCluster, readAuditLog, type TestCluster } from '../cluster/harness';
import { DRIFT_UA, applyAs, driftClient, editAs, engineDriftContext, ensureNamespace, writeHelmRelease, writeStatus } from './driftSupport';

const NS = `drift-it-${process.pid}`;
const FLUX_NS = `drift-it-flux-${process.pid}`;
const HELM_NS = `drift-it-helm-${process.pid}`;
const ksTarget = { kind: 'Kustomization' as const, name: 'apps', namespace: FLUX_NS };
const cm = (name: string, data: Record<string, string>, meta: Record<string, unknown> = {}): KubeJson => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, ...meta },
  data,
});
const deployment = (name: string, ns: string, replicas: number, meta: Record<string, unknown> = {}): KubeJson => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: ns, ...meta },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: 'ghcr.io/example/app:1.0.0', ports: [{ containerPort: 8080 }] }] } },
  },
});
const asDesired = (...objs: KubeJson[]): DesiredObject[] => objs.map((object) => ({ object }));
const verdicts = (r: DriftReport) => Object.fromEntries(r.entries.map((e) => [e.subject, e.verdict]));

describe('drift against the test cluster', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await getTestCluster();
    for (const ns of [NS, FLUX_NS, HELM_NS]) await ensureNamespace(cluster, ns);
  });

  after(async () => {
    // Every write this file's code sent (User-Agent DRIFT_UA) must have been a dry-run.
    const events = await readAuditLog(cluster);
    const ours = events.filter((e) => e.userAgent === DRIFT_UA && e.stage === 'ResponseComplete');
    assert.ok(ours.length > 0, 'our requests are in the audit log');
    const writes = ours.filter((e) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(e.verb));
    assert.ok(writes.length > 0, 'dry-run patches were sent');
    for (const w of writes) {
      assert.equal(w.verb, 'patch', `unexpected ${w.verb} ${w.requestURI}`);
      assert.match(w.requestURI, /[?&]dryRun=All(&|$)/, `write without dryRun: ${w.requestURI}`);
    }
  });

  test('Kustomization: created, drifted, unchanged, skipped and deleted (prune on)', async () => {
    await applyAs(cluster, cm('same', { a: '1' }), 'kustomize-controller');
    await applyAs(cluster, cm('changed', { a: '1' }), 'kustomize-controller');
    await applyAs(cluster, cm('old', { a: '1' }), 'kustomize-controller');
    await applyAs(cluster, cm('paused', { a: '1' }), 'kustomize-controller');
    await applyAs(cluster, deployment('web', NS, 3), 'kustomize-controller');
    await editAs(cluster, deployment('web', NS, 3), { spec: { replicas: 1 } });
    const ks = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'apps', namespace: FLUX_NS },
      spec: { interval: '10m', path: './apps', prune: true, sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
    };
    await applyAs(cluster, ks, 'test-setup');
    await writeStatus(cluster, ks, {
      inventory: {
        entries: ['same', 'changed', 'old', 'paused'].map((n) => ({ id: `${NS}_${n}__ConfigMap`, v: 'v1' })).concat([{ id: `${NS}_web_apps_Deployment`, v: 'v1' }]),
      },
    });

    const client = driftClient(cluster.kubeconfig);
    const live = await client.getObject({ group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations' }, FLUX_NS, 'apps');
    assert.ok(live.ok);
    const report = await runDrift(
      clusterDriftApi(client),
      asDesired(
        cm('same', { a: '1' }),
        cm('changed', { a: '2' }),
        cm('new', { a: '1' }),
        cm('paused', { a: '5' }, { annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' } }),
        deployment('web', NS, 3),
      ),
      { mode: 'kustomization', target: ksTarget, prune: true, liveKustomization: live.value },
    );
    assert.deepEqual(verdicts(report), {
      [`ConfigMap/${NS}/same`]: 'unchanged',
      [`ConfigMap/${NS}/changed`]: 'drifted',
      [`ConfigMap/${NS}/new`]: 'created',
      [`ConfigMap/${NS}/paused`]: 'skipped',
      [`Deployment/${NS}/web`]: 'drifted',
      [`ConfigMap/${NS}/old`]: 'deleted',
    });
    const web = report.entries.find((e) => e.id.name === 'web')!;
    assert.deepEqual(web.changes, [{ path: ['spec', 'replicas'], op: 'replace', live: 1, desired: 3 }]);
    assert.equal(web.live?.metadata?.managedFields, undefined);
    const text = reportText(report);
    assert.match(text, new RegExp(`^► ConfigMap/${NS}/old deleted$`, 'm'));
    assert.match(text, new RegExp(`^► Deployment/${NS}/web drifted$`, 'm'));

    // The same objects with prune off: nothing is deleted.
    const noPrune = await runDrift(clusterDriftApi(client), asDesired(cm('same', { a: '1' })), { mode: 'kustomization', target: ksTarget, prune: false, liveKustomization: live.value });
    assert.deepEqual(verdicts(noPrune), { [`ConfigMap/${NS}/same`]: 'unchanged' });
  });

  test('a Secret: drift is found, values never appear in any output', async () => {
    const oldValue = 'old-s3cr3t-value';
    const newValue = 'new-s3cr3t-value';
    const kept = 'kept-s3cr3t-value';
    await applyAs(cluster, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: NS }, stringData: { password: oldValue, user: kept } }, 'kustomize-controller');
    const client = driftClient(cluster.kubeconfig);
    const report = await runDrift(
      clusterDriftApi(client),
      asDesired(
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: NS }, stringData: { password: newValue, user: kept } },
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fresh', namespace: NS }, data: { token: Buffer.from('fresh-t0ken-value').toString('base64') } },
      ),
      { mode: 'kustomization', target: ksTarget },
    );
    assert.deepEqual(verdicts(report), { [`Secret/${NS}/creds`]: 'drifted', [`Secret/${NS}/fresh`]: 'created' });
    const everything = reportText(report) + JSON.stringify(reportJson(report)) + JSON.stringify(report);
    for (const v of [oldValue, newValue, kept, 'fresh-t0ken-value']) {
      assert.ok(!everything.includes(v), `${v} appears in the output`);
      assert.ok(!everything.includes(Buffer.from(v).toString('base64')), `base64 of ${v} appears in the output`);
    }
    const creds = report.entries[0];
    assert.deepEqual(creds.changes, [{ path: ['data', 'password'], op: 'replace', live: '*** (before)', desired: '*** (after)' }]);
    assert.equal(creds.live?.data?.user, '***');
  });

  test('immutable field changes (Service clusterIP, Job template) are errors with the server message', async () => {
    const svc = (ip?: string): KubeJson => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'fixed-ip', namespace: NS },
      spec: { ...(ip ? { clusterIP: ip } : {}), ports: [{ port: 80 }] },
    });
    const job = (image: string): KubeJson => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: NS },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image }] } } },
    });
    // The API server allocates the IP; the desired one is another address in the range.
    const created = await applyAs(cluster, svc(), 'kustomize-controller');
    const allocated = String(created.spec.clusterIP);
    const last = Number(allocated.split('.').pop());
    const other = `10.0.0.${last === 200 ? 201 : 200}`;
    await applyAs(cluster, job('ghcr.io/example/migrate:1'), 'kustomize-controller');
    const report = await runDrift(clusterDriftApi(driftClient(cluster.kubeconfig)), asDesired(svc(other), job('ghcr.io/example/migrate:2')), {
      mode: 'kustomization',
      target: ksTarget,
    });
    const [s, j] = report.entries;
    assert.equal(s.verdict, 'error');
    assert.equal(s.error?.kind, 'invalid');
    assert.match(s.reason!, new RegExp(`^Service/${NS}/fixed-ip dry-run failed \\(Invalid\\): Service "fixed-ip" is invalid: spec.clusterIPs\\[0\\]: .*may not change once set`));
    assert.equal(j.verdict, 'error');
    assert.match(j.reason!, new RegExp(`^Job/${NS}/migrate dry-run failed \\(Invalid\\): .*spec.template: .*field is immutable`));
  });

  test('a kind whose CRD is not installed is an error saying so', async () => {
    const report = await runDrift(
      clusterDriftApi(driftClient(cluster.kubeconfig)),
      asDesired({ apiVersion: 'widgets.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: NS }, spec: {} }, cm('beside-widget', {})),
      { mode: 'kustomization', target: ksTarget },
    );
    assert.equal(report.entries[0].verdict, 'error');
    assert.match(report.entries[0].reason!, /no matches for kind "Widget" in version "widgets.example.com\/v1" \(CRD missing\)/);
    assert.equal(report.entries[1].verdict, 'created', 'other objects still get a verdict');
  });

  test('the read-only user gets 403 from the dry-run: error, with the server message', async () => {
    await applyAs(cluster, cm('ro', { a: '1' }), 'kustomize-controller');
    const report = await runDrift(clusterDriftApi(driftClient(cluster.readonlyKubeconfig)), asDesired(cm('ro', { a: '2' })), { mode: 'kustomization', target: ksTarget });
    const [e] = report.entries;
    assert.equal(e.verdict, 'error');
    assert.equal(e.error?.kind, 'forbidden');
    assert.equal(e.error?.status, 403);
    assert.match(e.reason!, /gitops-preview-readonly.*cannot patch/);
  });

  test('a cancelled run stops sending requests and reports cancelled', async () => {
    const many = Array.from({ length: 80 }, (_, i) => cm(`bulk-${i}`, { i: String(i) }));
    const ac = new AbortController();
    setMaxListeners(0, ac.signal);
    let patches = 0;
    const client = driftClient(cluster.kubeconfig, (method) => {
      if (method === 'PATCH') patches++;
    });
    const report = await runDrift(clusterDriftApi(client), asDesired(...many), {
      mode: 'kustomization',
      target: ksTarget,
      concurrency: 4,
      signal: ac.signal,
      onProgress: (done) => {
        if (done === 6) ac.abort();
      },
    });
    const c = counts(report.entries);
    assert.equal(report.cancelled, true);
    assert.ok(c.cancelled >= 60, `cancelled: ${c.cancelled}`);
    assert.equal(c.created + c.cancelled, 80);
    assert.ok(patches < 20, `dry-runs sent after cancelling: ${patches}`);
  });

  describe('HelmRelease', () => {
    const release = 'podinfo';
    const manifestV1 = [cm('podinfo-config', { color: 'blue' }), deployment('podinfo', HELM_NS, 1)];
    const manifestV2 = [
      { ...cm('podinfo-config', { color: 'green' }), metadata: { name: 'podinfo-config' } },
      { ...deployment('podinfo', HELM_NS, 2), metadata: { name: 'podinfo' } },
      { ...cm('podinfo-frozen', { a: '1' }), metadata: { name: 'podinfo-frozen', annotations: { 'helm.toolkit.fluxcd.io/driftDetection': 'disabled' } } },
      { ...cm('podinfo-extra', { a: '1' }), metadata: { name: 'podinfo-extra' } },
    ];
    const toManifest = (objs: KubeJson[]) => objs.map((o) => `---\n# Source: podinfo/templates/${o.metadata.name}.yaml\n${JSON.stringify(o)}\n`).join('');
    const helmMeta = (o: KubeJson): KubeJson => ({
      ...o,
      metadata: {
        ...o.metadata,
        namespace: HELM_NS,
        labels: { ...(o.metadata.labels ?? {}), 'app.kubernetes.io/managed-by': 'Helm' },
        annotations: { ...(o.metadata.annotations ?? {}), 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': HELM_NS },
      },
    });
    const repoFiles = (ignore?: unknown) => ({
      'clusters/test/flux-system/gotk-sync.yaml': [
        'apiVersion: source.toolkit.fluxcd.io/v1',
        'kind: GitRepository',
        'metadata: {name: flux-system, namespace: flux-system}',
        'spec: {interval: 1m, url: "https://example.com/repo.git", ref: {branch: main}}',
        '---',
        'apiVersion: kustomize.toolkit.fluxcd.io/v1',
        'kind: Kustomization',
        'metadata: {name: flux-system, namespace: flux-system}',
        'spec: {interval: 10m, path: ./clusters/test, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}',
      ].join('\n'),
      'clusters/test/podinfo.yaml': JSON.stringify({
        apiVersion: 'helm.toolkit.fluxcd.io/v2',
        kind: 'HelmRelease',
        metadata: { name: release, namespace: HELM_NS },
        spec: {
          interval: '10m',
          chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } } },
          driftDetection: { mode: 'enabled', ...(ignore ? { ignore } : {}) },
        },
      }),
    });
    const hrContext = async (client: ClusterClient, ignore?: unknown): Promise<DriftRunContext> => {
      const root = '/repo';
      const engine = new Engine({ host: memoryHost(root, repoFiles(ignore)), buildOptions: () => ({ remotes: ['https://example.com/repo.git'] }), debounceMs: 0 });
      engine.open([root]);
      const ctx = await engineDriftContext(engine, { kind: 'HelmRelease', name: release }, client, { allowNetwork: false });
      assert.equal(ctx.subject.releaseName, release);
      assert.equal(ctx.subject.storageNamespace, HELM_NS);
      return ctx;
    };

    before(async () => {
      await writeHelmRelease(cluster, { name: release, namespace: HELM_NS, storageNamespace: HELM_NS, version: 1, status: 'superseded', manifest: toManifest(manifestV1) });
      await writeHelmRelease(cluster, { name: release, namespace: HELM_NS, storageNamespace: HELM_NS, version: 2, status: 'deployed', manifest: toManifest(manifestV2) });
      // helm installed v2 (not podinfo-extra: someone deleted it since), then someone scaled and edited.
      for (const o of manifestV2.slice(0, 3)) await applyAs(cluster, helmMeta(o), 'helm');
      await editAs(cluster, helmMeta(manifestV2[1]), { spec: { replicas: 5 } });
      await editAs(cluster, helmMeta(manifestV2[2]), { data: { a: 'edited' } });
    });

    test('live mode: deployed release from Helm storage, dry-run as helm-controller', async () => {
      const client = driftClient(cluster.kubeconfig);
      const res = await driftHelmRelease(await hrContext(client));
      assert.ok(res.ok, res.ok ? '' : res.error.message);
      assert.deepEqual(verdicts(res.value), {
        [`ConfigMap/${HELM_NS}/podinfo-config`]: 'unchanged',
        [`Deployment/${HELM_NS}/podinfo`]: 'drifted',
        [`ConfigMap/${HELM_NS}/podinfo-frozen`]: 'skipped',
        [`ConfigMap/${HELM_NS}/podinfo-extra`]: 'created',
      });
      const dep = res.value.entries.find((e) => e.id.kind === 'Deployment')!;
      assert.deepEqual(dep.changes, [{ path: ['spec', 'replicas'], op: 'replace', live: 5, desired: 2 }]);
      assert.ok(res.value.notes.some((n) => /revision v2/.test(n)), res.value.notes.join('\n'));

      const ignored = await driftHelmRelease(await hrContext(client, [{ paths: ['/spec/replicas'], target: { kind: 'Deployment' } }]));
      assert.ok(ignored.ok);
      assert.equal(verdicts(ignored.value)[`Deployment/${HELM_NS}/podinfo`], 'unchanged', 'spec.driftDetection.ignore honoured');
    });

    test('desired vs deployed: a values change shows against the stored manifest', async () => {
      const stored = await readReleases(driftClient(cluster.kubeconfig), HELM_NS, release);
      assert.ok(stored.ok);
      assert.deepEqual(stored.value.records.map((r) => [r.version, r.status]).sort(), [[1, 'superseded'], [2, 'deployed']]);
      const deployed = manifestObjects(stored.value.records.find((r) => r.version === 2)!.manifest);
      // The chart rendered with a changed value (color) and one template removed.
      const desired = manifestObjects(toManifest([manifestV2[0], manifestV2[1], manifestV2[2]]).replace('"green"', '"red"'));
      const report = compareManifests(deployed, desired, { kind: 'HelmRelease', name: release, namespace: HELM_NS });
      assert.deepEqual(verdicts(report), {
        'ConfigMap/podinfo-config': 'drifted',
        'Deployment/podinfo': 'unchanged',
        'ConfigMap/podinfo-frozen': 'unchanged',
        'ConfigMap/podinfo-extra': 'deleted',
      });
      assert.deepEqual(report.entries[0].changes, [{ path: ['data', 'color'], op: 'replace', live: 'green', desired: 'red' }]);
    });

    test('no deployed release: a clear error', async () => {
      const ctx = await hrContext(driftClient(cluster.kubeconfig));
      const res = await driftHelmRelease({ ...ctx, subject: { ...ctx.subject, releaseName: 'never-installed' } });
      assert.equal(res.ok, false);
      assert.match(!res.ok ? res.error.message : '', /No deployed Helm release .*never-installed: no sh.helm.release.v1 Secret was found/);
    });
  });
});
