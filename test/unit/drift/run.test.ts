import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeJson } from '../../../src/core/kubeJson';
import { counts, reportJson, reportText, runDrift, type DesiredObject, type DriftReport } from '../../../src/core/drift';
import { fakeApi, key } from './fakeApi';

const target = { kind: 'Kustomization' as const, name: 'apps', namespace: 'flux-system' };
const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}): KubeJson => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...extra },
  data,
});
const desired = (...objs: KubeJson[]): DesiredObject[] => objs.map((object) => ({ object }));
const verdicts = (r: DriftReport) => Object.fromEntries(r.entries.map((e) => [e.subject, e.verdict]));

describe('runDrift, kustomization mode', () => {
  test('created, drifted, unchanged and the fields that drifted', async () => {
    const api = fakeApi([cm('same', { a: '1' }), cm('changed', { a: '1', b: '2' })]);
    const r = await runDrift(api, desired(cm('same', { a: '1' }), cm('changed', { a: '9', b: '2' }), cm('new', { a: '1' })), { mode: 'kustomization', target });
    assert.deepEqual(verdicts(r), { 'ConfigMap/default/same': 'unchanged', 'ConfigMap/default/changed': 'drifted', 'ConfigMap/default/new': 'created' });
    const changed = r.entries.find((e) => e.id.name === 'changed')!;
    assert.deepEqual(changed.changes, [{ path: ['data', 'a'], op: 'replace', live: '1', desired: '9' }]);
    assert.equal(changed.live?.metadata.managedFields, undefined, 'managedFields never shown');
    assert.equal(changed.live?.metadata.resourceVersion, undefined);
    assert.ok(api.calls.every((c) => !c.startsWith('PATCH') || c.endsWith('kustomize-controller')));
    assert.equal(r.requests, 6, 'one GET and one dry-run per object');
  });

  test('skipped: reconcile disabled / ssa ignore on either side, ifnotpresent only when it exists', async () => {
    const api = fakeApi([cm('live-off', { a: '1' }, { annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'Disabled' } }), cm('inp', { a: '1' })]);
    const r = await runDrift(
      api,
      desired(
        cm('off', { a: '1' }, { labels: { 'kustomize.toolkit.fluxcd.io/ssa': 'ignore' } }),
        cm('live-off', { a: '2' }),
        cm('inp', { a: '2' }, { annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'IfNotPresent' } }),
        cm('inp-new', { a: '2' }, { annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'IfNotPresent' } }),
      ),
      { mode: 'kustomization', target },
    );
    assert.deepEqual(verdicts(r), {
      'ConfigMap/default/off': 'skipped',
      'ConfigMap/default/live-off': 'skipped',
      'ConfigMap/default/inp': 'skipped',
      'ConfigMap/default/inp-new': 'created',
    });
    assert.ok(!api.calls.some((c) => c.includes('default/off')), 'an excluded object is not even read');
  });

  test('errors carry the server message; a missing kind says CRD missing', async () => {
    const api = fakeApi([{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'default' }, spec: { clusterIP: '10.0.0.5' } }]);
    api.dryRunErrors.set('Service/default/svc', { kind: 'invalid', reason: 'Invalid', message: 'Service "svc" is invalid: spec.clusterIP: Invalid value: "10.0.0.9": field is immutable' });
    api.missingKinds.add('example.com/v1/Widget');
    const r = await runDrift(
      api,
      desired(
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'default' }, spec: { clusterIP: '10.0.0.9' } },
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } },
      ),
      { mode: 'kustomization', target, prune: true, liveKustomization: { status: { inventory: { entries: [{ id: 'default_old__ConfigMap', v: 'v1' }] } } } },
    );
    const [svc, widget] = r.entries;
    assert.equal(svc.verdict, 'error');
    assert.match(svc.reason!, /^Service\/default\/svc dry-run failed \(Invalid\): .*field is immutable/);
    assert.equal(widget.verdict, 'error');
    assert.match(widget.reason!, /no matches for kind "Widget" in version "example.com\/v1" \(CRD missing\)/);
    assert.equal(counts(r.entries).deleted, 0, 'no deleted entries when something failed (flux diff)');
    assert.ok(r.notes.some((n) => /not computed/.test(n)));
  });

  test('force: enabled turns an immutable error into a recreate', async () => {
    const api = fakeApi([cm('f', { a: '1' })]);
    api.dryRunErrors.set('ConfigMap/default/f', { kind: 'invalid', message: 'x: field is immutable' });
    const r = await runDrift(api, desired(cm('f', { a: '2' }, { annotations: { 'kustomize.toolkit.fluxcd.io/force': 'enabled' } })), { mode: 'kustomization', target });
    assert.equal(r.entries[0].verdict, 'created');
    assert.match(r.entries[0].reason!, /recreated/);
  });

  test('deleted comes from the live inventory only with prune on', async () => {
    const live = { status: { inventory: { entries: [{ id: 'default_keep__ConfigMap', v: 'v1' }, { id: 'default_gone__ConfigMap', v: 'v1' }] } } };
    const api = fakeApi([cm('keep', { a: '1' }), cm('gone', { a: '1' })]);
    const on = await runDrift(api, desired(cm('keep', { a: '1' })), { mode: 'kustomization', target, prune: true, liveKustomization: live });
    assert.deepEqual(verdicts(on), { 'ConfigMap/default/keep': 'unchanged', 'ConfigMap/default/gone': 'deleted' });
    const off = await runDrift(api, desired(cm('keep', { a: '1' })), { mode: 'kustomization', target, prune: false, liveKustomization: live });
    assert.deepEqual(verdicts(off), { 'ConfigMap/default/keep': 'unchanged' });
    assert.ok(off.notes.some((n) => /prune is off/.test(n)));
  });

  test('objects in a namespace the same run creates are created, not errors', async () => {
    const api = fakeApi();
    api.dryRunErrors.set('ConfigMap/team/c', { kind: 'notFound', message: 'namespaces "team" not found' });
    const r = await runDrift(
      api,
      desired({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'team' }, data: {} }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }),
      { mode: 'kustomization', target },
    );
    assert.deepEqual(verdicts(r), { 'ConfigMap/team/c': 'created', 'Namespace/team': 'created' });
  });

  test('spec.ignore paths are stripped before comparing', async () => {
    const api = fakeApi([{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 5 } }]);
    const d = desired({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 1 } });
    const plain = await runDrift(api, d, { mode: 'kustomization', target });
    assert.equal(plain.entries[0].verdict, 'drifted');
    const ignored = await runDrift(api, d, { mode: 'kustomization', target, ignore: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment' } }] });
    assert.equal(ignored.entries[0].verdict, 'unchanged');
  });

  test('concurrency is bounded', async () => {
    const api = fakeApi();
    api.delayMs = 3;
    const objs = desired(...Array.from({ length: 30 }, (_, i) => cm(`c${i}`, { i: String(i) })));
    const r = await runDrift(api, objs, { mode: 'kustomization', target, concurrency: 4 });
    assert.equal(counts(r.entries).created, 30);
    assert.ok(api.maxInFlight <= 4, `max in flight ${api.maxInFlight}`);
    assert.ok(api.maxInFlight >= 2, 'requests do run in parallel');
  });

  test('cancellation stops issuing requests and reports cancelled', async () => {
    const api = fakeApi();
    const ac = new AbortController();
    const objs = desired(...Array.from({ length: 40 }, (_, i) => cm(`c${i}`, {})));
    const r = await runDrift(api, objs, {
      mode: 'kustomization',
      target,
      concurrency: 2,
      signal: ac.signal,
      onProgress: (done) => {
        if (done === 4) ac.abort();
      },
    });
    assert.equal(r.cancelled, true);
    const c = counts(r.entries);
    assert.equal(c.created + c.cancelled, 40);
    assert.ok(c.cancelled >= 30, `cancelled ${c.cancelled}`);
    assert.ok(api.calls.length < 20, `calls after cancel: ${api.calls.length}`);
    assert.match(reportText(r), /cancelled: \d+ object\(s\) not checked/);
  });
});

describe('runDrift, Secrets', () => {
  test('values never appear in text or JSON output; changes show *** (before)/(after)', async () => {
    const plainOld = 'old-password-123';
    const plainNew = 'new-password-456';
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const api = fakeApi([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ data: { p: b64(plainOld) } }) } },
        data: { p: b64(plainOld), same: b64('same-value-xyz') },
      },
    ]);
    const r = await runDrift(
      api,
      desired({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, stringData: { p: plainNew, same: 'same-value-xyz' } }, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'fresh', namespace: 'default' },
        stringData: { token: 'brand-new-token' },
      }),
      { mode: 'kustomization', target },
    );
    const out = reportText(r) + JSON.stringify(reportJson(r)) + JSON.stringify(r.entries);
    for (const secret of [plainOld, plainNew, 'same-value-xyz', 'brand-new-token']) {
      assert.ok(!out.includes(secret), `${secret} leaked`);
      assert.ok(!out.includes(b64(secret)), `base64 of ${secret} leaked`);
    }
    const s = r.entries[0];
    assert.equal(s.verdict, 'drifted');
    assert.ok(s.changes.some((c) => c.path.join('.') === 'data.p' && c.live === '*** (before)' && c.desired === '*** (after)'), JSON.stringify(s.changes));
    assert.ok(!s.changes.some((c) => c.path.join('.') === 'data.same'), 'equal values are not a change');
  });

  test('SOPS-masked values: only keys compared', async () => {
    const api = fakeApi([{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { k: 'cmVhbA==' } }]);
    const same = await runDrift(api, desired({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { k: '***' } }), { mode: 'kustomization', target });
    assert.equal(same.entries[0].verdict, 'unchanged');
    const more = await runDrift(api, desired({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { k: '***', k2: '***' } }), { mode: 'kustomization', target });
    assert.equal(more.entries[0].verdict, 'drifted');
  });
});

describe('runDrift, helm-live mode', () => {
  test('helm-controller field manager, driftDetection annotation, whole-object ignore, cluster-only labels', async () => {
    const api = fakeApi([cm('a', { x: '1' }, { labels: { 'added-by-cluster': 'y' } }), cm('b', { x: '1' }), cm('c', { x: '1' })]);
    const r = await runDrift(
      api,
      desired(cm('a', { x: '1' }), cm('b', { x: '2' }, { annotations: { 'helm.toolkit.fluxcd.io/driftDetection': 'disabled' } }), cm('c', { x: '2' })),
      { mode: 'helm-live', target: { kind: 'HelmRelease', name: 'r', namespace: 'flux-system' }, ignore: [{ paths: [''], target: { name: 'c' } }] },
    );
    assert.deepEqual(verdicts(r), { 'ConfigMap/default/a': 'unchanged', 'ConfigMap/default/b': 'skipped', 'ConfigMap/default/c': 'skipped' });
    assert.ok(api.calls.filter((c) => c.startsWith('PATCH')).every((c) => c.endsWith('helm-controller')));
    assert.ok(!api.calls.some((c) => c.includes('default/c')), 'an object ignored as a whole is not read');
    assert.equal(key({ kind: 'x', name: 'y' }), 'x//y');
  });
});
