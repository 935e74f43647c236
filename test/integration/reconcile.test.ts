// Reconcile / force / reset / suspend / resume against the test cluster, with the test playing the
// controller through the status subresource. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getTestCluster, readAuditLog, type AuditEvent, type TestCluster } from '../cluster/harness';
import type { ClusterClient } from '../../src/cluster/client';
import { exitCodeOf, runAction, type ObjectKey } from '../../src/workflows/reconcile';
import { FORCE_AT, REQUESTED_AT, RESET_AT } from '../../src/core/status/requests';
import { fluxType } from '../../src/core/kinds';
import { runCli } from '../../src/cli/main';
import { clientFor, createFlux, createNamespace, fakeController, uniqueName, writeStatus } from './cluster-helpers';

const TOKEN_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;

describe('reconcile actions', () => {
  let cluster: TestCluster;
  let admin: ClusterClient;
  let actor: ClusterClient;
  let ns: string;
  const actorAgent = uniqueName('gitops-preview-reconcile-test');
  const sent: Array<{ method: string; path: string; body?: string }> = [];

  before(async () => {
    cluster = await getTestCluster();
    admin = clientFor(cluster.kubeconfig, 'gitops-preview-test-setup');
    actor = clientFor(cluster.kubeconfig, actorAgent, (method, path, body) => sent.push({ method, path, body }));
    ns = uniqueName('reconcile');
    await createNamespace(admin, ns);
  });

  after(async () => {
    await cluster?.stop();
  });

  /**
   * The patch bodies our actor sent to object `name`, after checking against the API server's audit
   * log (which records patches without their body) that the server received exactly these writes.
   */
  async function patchesTo(name: string): Promise<unknown[]> {
    const bodies = sent.filter((r) => r.method !== 'GET' && r.path.split('?')[0].endsWith(`/${name}`)).map((r) => JSON.parse(r.body ?? 'null'));
    const writes = (evs: AuditEvent[]) =>
      evs.filter((e) => e.userAgent === actorAgent && e.stage === 'ResponseComplete' && e.objectRef?.name === name && !['get', 'list', 'watch'].includes(e.verb));
    const events = writes(await readAuditLog(cluster, { until: (evs) => writes(evs).length >= bodies.length }));
    assert.deepEqual(events.map((e) => [e.verb, e.objectRef?.subresource, e.responseStatus?.code]), bodies.map(() => ['patch', undefined, 200]));
    return bodies;
  }

  const ks = (name: string): ObjectKey => ({ kind: 'Kustomization', namespace: ns, name });
  const hr = (name: string): ObjectKey => ({ kind: 'HelmRelease', namespace: ns, name });

  test('reconcile writes requestedAt with an RFC3339Nano token and waits for Ready=True', async () => {
    const name = uniqueName('ok');
    await createFlux(admin, 'Kustomization', ns, name);
    const ctl = fakeController(admin, [ks(name)], () => ({ status: 'True', message: 'Applied revision: main@sha1:abc' }));
    try {
      const r = await runAction(actor, ks(name), 'reconcile', { timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok, !r.ok ? r.error.message : '');
      assert.equal(r.value.outcome, 'ready');
      assert.equal(r.value.message, 'Applied revision: main@sha1:abc');
      assert.match(r.value.token!, TOKEN_RE);
      assert.equal(exitCodeOf('reconcile', r), 0);
      assert.deepEqual(await patchesTo(name), [{ metadata: { annotations: { [REQUESTED_AT]: r.value.token } } }]);
      const obj = await admin.getObject(fluxType('Kustomization')!, ns, name);
      assert.ok(obj.ok);
      assert.equal(obj.value.metadata?.annotations?.[REQUESTED_AT], r.value.token);
    } finally {
      await ctl.stop();
    }
  });

  test('a failed reconciliation reports the Ready=False message and exit code 1', async () => {
    const name = uniqueName('fail');
    await createFlux(admin, 'Kustomization', ns, name);
    const ctl = fakeController(admin, [ks(name)], () => ({ status: 'False', message: 'kustomize build failed: accumulating resources' }));
    try {
      const r = await runAction(actor, ks(name), 'reconcile', { timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok);
      assert.equal(r.value.outcome, 'failed');
      assert.equal(r.value.message, 'kustomize build failed: accumulating resources');
      assert.equal(exitCodeOf('reconcile', r), 1);
    } finally {
      await ctl.stop();
    }
  });

  test('a stale Ready condition (old token) is not taken for the answer', async () => {
    const name = uniqueName('stale');
    await createFlux(admin, 'Kustomization', ns, name);
    // Ready=True from an earlier request: must not end the wait.
    await writeStatus(admin, ks(name), { status: 'True', message: 'old' }, '2020-01-01T00:00:00Z');
    const r = await runAction(actor, ks(name), 'reconcile', { timeoutMs: 700, pollMs: 50 });
    assert.ok(r.ok);
    assert.equal(r.value.outcome, 'timeout');
    assert.match(r.value.message, /waiting for the controller to handle the request \(last handled: 2020-01-01T00:00:00Z\)/);
    assert.equal(exitCodeOf('reconcile', r), 1);
  });

  test('Ready=Unknown keeps waiting until the verdict', async () => {
    const name = uniqueName('unknown');
    await createFlux(admin, 'Kustomization', ns, name);
    const waiting = runAction(actor, ks(name), 'reconcile', { timeoutMs: 20_000, pollMs: 50 });
    const token = await waitForAnnotation(admin, ks(name), REQUESTED_AT);
    await writeStatus(admin, ks(name), { status: 'Unknown', message: 'Reconciliation in progress' }, token);
    await new Promise((r) => setTimeout(r, 300));
    await writeStatus(admin, ks(name), { status: 'True', message: 'done now' }, token);
    const r = await waiting;
    assert.ok(r.ok);
    assert.equal(r.value.outcome, 'ready');
    assert.equal(r.value.message, 'done now');
  });

  test('cancelling stops the wait without another write', async () => {
    const name = uniqueName('cancel');
    await createFlux(admin, 'Kustomization', ns, name);
    const abort = new AbortController();
    const waiting = runAction(actor, ks(name), 'reconcile', { timeoutMs: 60_000, pollMs: 50, signal: abort.signal });
    await waitForAnnotation(admin, ks(name), REQUESTED_AT);
    abort.abort();
    const r = await waiting;
    assert.ok(r.ok);
    assert.equal(r.value.outcome, 'cancelled');
    assert.equal(exitCodeOf('reconcile', r), 1);
    // Several poll intervals later, the API server's audit log still holds the one requestedAt patch.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await patchesTo(name), [{ metadata: { annotations: { [REQUESTED_AT]: r.value.token } } }]);
  });

  test('a suspended object says so and is not annotated', async () => {
    const name = uniqueName('susp');
    await createFlux(admin, 'Kustomization', ns, name, { suspend: true });
    const r = await runAction(actor, ks(name), 'reconcile', { timeoutMs: 5_000, pollMs: 50 });
    assert.ok(r.ok);
    assert.equal(r.value.outcome, 'suspended');
    assert.match(r.value.message, /is suspended/);
    assert.deepEqual(await patchesTo(name), []);
    const obj = await admin.getObject(fluxType('Kustomization')!, ns, name);
    assert.ok(obj.ok);
    assert.equal(obj.value.metadata?.annotations?.[REQUESTED_AT], undefined);
  });

  test('suspend sets spec.suspend: true; resume unsuspends, requests a reconcile and waits', async () => {
    const name = uniqueName('sr');
    await createFlux(admin, 'Kustomization', ns, name);
    const s = await runAction(actor, ks(name), 'suspend', { timeoutMs: 5_000 });
    assert.ok(s.ok);
    assert.equal(s.value.outcome, 'suspended');
    assert.equal(exitCodeOf('suspend', s), 0);
    let obj = await admin.getObject(fluxType('Kustomization')!, ns, name);
    assert.ok(obj.ok);
    assert.equal(obj.value.spec?.suspend, true);

    const ctl = fakeController(admin, [ks(name)], () => ({ status: 'True', message: 'resumed and applied' }));
    try {
      const r = await runAction(actor, ks(name), 'resume', { timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok, !r.ok ? r.error.message : '');
      assert.equal(r.value.outcome, 'ready');
      obj = await admin.getObject(fluxType('Kustomization')!, ns, name);
      assert.ok(obj.ok);
      assert.equal(obj.value.spec?.suspend, false);
      assert.deepEqual(
        await patchesTo(name),
        [{ spec: { suspend: true } }, { spec: { suspend: false }, metadata: { annotations: { [REQUESTED_AT]: r.value.token } } }],
      );
    } finally {
      await ctl.stop();
    }
  });

  test('force and reset write forceAt/resetAt with the same token as requestedAt (HelmRelease only)', async () => {
    const name = uniqueName('hr');
    await createFlux(admin, 'HelmRelease', ns, name);
    const ctl = fakeController(admin, [hr(name)], () => ({ status: 'True', message: 'Helm upgrade succeeded' }));
    try {
      const f = await runAction(actor, hr(name), 'force', { timeoutMs: 20_000, pollMs: 50 });
      assert.ok(f.ok && f.value.outcome === 'ready', JSON.stringify(f));
      const x = await runAction(actor, hr(name), 'reset', { timeoutMs: 20_000, pollMs: 50 });
      assert.ok(x.ok && x.value.outcome === 'ready', JSON.stringify(x));
      assert.notEqual(f.value.token, x.value.token);
      assert.deepEqual(
        await patchesTo(name),
        [
          { metadata: { annotations: { [REQUESTED_AT]: f.value.token, [FORCE_AT]: f.value.token } } },
          { metadata: { annotations: { [REQUESTED_AT]: x.value.token, [RESET_AT]: x.value.token } } },
        ],
      );
    } finally {
      await ctl.stop();
    }
    const bad = await runAction(actor, ks('whatever'), 'force', { timeoutMs: 1000 });
    assert.ok(!bad.ok);
    assert.equal(bad.error.kind, 'invalid');
  });

  test('--with-source on a Kustomization reconciles its GitRepository first', async () => {
    const name = uniqueName('ws');
    const repo = uniqueName('repo');
    await createFlux(admin, 'GitRepository', ns, repo);
    await createFlux(admin, 'Kustomization', ns, name, { sourceRef: { kind: 'GitRepository', name: repo } });
    const keys = [{ kind: 'GitRepository', namespace: ns, name: repo }, ks(name)];
    const ctl = fakeController(admin, keys, (k) => ({ status: 'True', message: `${k.kind} ok` }));
    try {
      const r = await runAction(actor, ks(name), 'reconcile', { withSource: true, timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok && r.value.outcome === 'ready', JSON.stringify(r));
      assert.deepEqual(ctl.handled.map((h) => h.split('=')[0]), [`GitRepository ${ns}/${repo}`, `Kustomization ${ns}/${name}`]);
    } finally {
      await ctl.stop();
    }
  });

  test('--with-source on a chart-template HelmRelease: HelmRepository, then HelmChart <ns>-<name>, then the release', async () => {
    const name = uniqueName('hrws');
    const repo = uniqueName('charts');
    const srcNs = uniqueName('src');
    await createNamespace(admin, srcNs);
    await createFlux(admin, 'HelmRepository', srcNs, repo);
    await createFlux(admin, 'HelmChart', srcNs, `${ns}-${name}`, { sourceRef: { kind: 'HelmRepository', name: repo } });
    await createFlux(admin, 'HelmRelease', ns, name, {
      chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: repo, namespace: srcNs } } },
    });
    const keys = [
      { kind: 'HelmRepository', namespace: srcNs, name: repo },
      { kind: 'HelmChart', namespace: srcNs, name: `${ns}-${name}` },
      hr(name),
    ];
    const ctl = fakeController(admin, keys, (k) => ({ status: 'True', message: `${k.kind} ok` }));
    try {
      const r = await runAction(actor, hr(name), 'reconcile', { withSource: true, timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok && r.value.outcome === 'ready', JSON.stringify(r));
      assert.deepEqual(
        ctl.handled.map((h) => h.split('=')[0]),
        [`HelmRepository ${srcNs}/${repo}`, `HelmChart ${srcNs}/${ns}-${name}`, `HelmRelease ${ns}/${name}`],
      );
    } finally {
      await ctl.stop();
    }
  });

  test('--with-source on a chartRef HelmRelease reconciles the OCIRepository; a failing source stops before the release', async () => {
    const name = uniqueName('hrref');
    const oci = uniqueName('oci');
    await createFlux(admin, 'OCIRepository', ns, oci);
    await createFlux(admin, 'HelmRelease', ns, name, { chart: undefined, chartRef: { kind: 'OCIRepository', name: oci } });
    const keys = [{ kind: 'OCIRepository', namespace: ns, name: oci }, hr(name)];
    let sourceFails = false;
    const ctl = fakeController(admin, keys, (k) =>
      k.kind === 'OCIRepository' && sourceFails ? { status: 'False', message: 'failed to pull artifact: 401 Unauthorized' } : { status: 'True', message: `${k.kind} ok` },
    );
    try {
      const r = await runAction(actor, hr(name), 'reconcile', { withSource: true, timeoutMs: 20_000, pollMs: 50 });
      assert.ok(r.ok && r.value.outcome === 'ready', JSON.stringify(r));
      assert.deepEqual(ctl.handled.map((h) => h.split('=')[0]), [`OCIRepository ${ns}/${oci}`, `HelmRelease ${ns}/${name}`]);
      sourceFails = true;
      const before = ctl.handled.length;
      const f = await runAction(actor, hr(name), 'reconcile', { withSource: true, timeoutMs: 20_000, pollMs: 50 });
      assert.ok(f.ok);
      assert.equal(f.value.outcome, 'failed');
      assert.match(f.value.message, /^source OCIRepository .*: failed to pull artifact: 401 Unauthorized$/);
      assert.deepEqual(ctl.handled.slice(before).map((h) => h.split('=')[0]), [`OCIRepository ${ns}/${oci}`]);
    } finally {
      await ctl.stop();
    }
  });

  test("the read-only user's patch is refused with a Forbidden message naming the user and resource", async () => {
    const name = uniqueName('ro');
    await createFlux(admin, 'Kustomization', ns, name);
    const ro = clientFor(cluster.readonlyKubeconfig, actorAgent);
    const r = await runAction(ro, ks(name), 'reconcile', { timeoutMs: 5_000 });
    assert.ok(!r.ok);
    assert.equal(r.error.kind, 'forbidden');
    assert.equal(r.error.status, 403);
    assert.match(r.error.message, /^Forbidden: user gitops-preview-readonly cannot patch resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace/);
    assert.equal(exitCodeOf('reconcile', r), 2);
  });

  test('missing object: not-found error naming it', async () => {
    const r = await runAction(actor, ks('does-not-exist'), 'reconcile', { timeoutMs: 5_000 });
    assert.ok(!r.ok);
    assert.equal(r.error.kind, 'not-found');
    assert.match(r.error.message, new RegExp(`Kustomization ${ns}/does-not-exist does not exist`));
  });

  test('CLI: reconcile / suspend / resume with the same waiting rules and exit codes 0, 1, 2', async () => {
    const good = uniqueName('cli');
    const bad = uniqueName('clibad');
    await createFlux(admin, 'Kustomization', ns, good);
    await createFlux(admin, 'Kustomization', ns, bad);
    const ctl = fakeController(admin, [ks(good), ks(bad)], (k) =>
      k.name === good ? { status: 'True', message: 'Applied revision: main@sha1:1' } : { status: 'False', message: 'health check failed' },
    );
    const cli = async (args: string[], kubeconfig = cluster.kubeconfig) => {
      let out = '';
      let err = '';
      const code = await runCli([...args, '--kubeconfig', kubeconfig, '--poll-interval', '50ms'], {
        stdout: (t) => (out += t),
        stderr: (t) => (err += t),
        cwd: process.cwd(),
        env: {},
      });
      return { code, out, err };
    };
    try {
      let r = await cli(['reconcile', 'ks', good, '-n', ns, '--timeout', '20s']);
      assert.equal(r.code, 0, r.err);
      assert.match(r.out, /✔ Kustomization .*: Applied revision: main@sha1:1/);
      r = await cli(['reconcile', 'ks', bad, '-n', ns, '--timeout', '20s']);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /reconciliation failed: Kustomization .*: health check failed/);
      r = await cli(['reconcile', 'ks', good, '-n', ns], cluster.readonlyKubeconfig);
      assert.equal(r.code, 2);
      assert.match(r.err, /Forbidden: user gitops-preview-readonly cannot patch/);
      r = await cli(['suspend', 'ks', good, '-n', ns]);
      assert.equal(r.code, 0, r.err);
      r = await cli(['reconcile', 'ks', good, '-n', ns]);
      assert.equal(r.code, 1);
      assert.match(r.err, /is suspended/);
      r = await cli(['resume', 'ks', good, '-n', ns, '--timeout', '20s']);
      assert.equal(r.code, 0, r.err);
      r = await cli(['reconcile', 'ks', good, '-n', ns, '--force']);
      assert.equal(r.code, 2);
      assert.match(r.err, /--force only applies to HelmReleases/);
      r = await cli(['reconcile', 'ks', good, '-n', ns, '--timeout', 'soon']);
      assert.equal(r.code, 2);
      assert.match(r.err, /not a duration/);
    } finally {
      await ctl.stop();
    }
  });
});

async function waitForAnnotation(admin: ClusterClient, key: ObjectKey, annotation: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const obj = await admin.getObject(fluxType(key.kind)!, key.namespace, key.name);
    const v = obj.ok ? obj.value.metadata?.annotations?.[annotation] : undefined;
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${annotation} never appeared on ${key.kind} ${key.namespace}/${key.name}`);
}
