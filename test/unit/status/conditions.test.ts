import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generationObserved, liveStatusOf, revisionOf, type FluxObjectJson } from '../../../src/core/status/conditions';

const ready = (status: string, message = 'm', observedGeneration = 1) => ({ type: 'Ready', status, message, reason: 'R', observedGeneration });
const obj = (extra: Partial<FluxObjectJson> & { conditions?: unknown[]; gen?: number } = {}): FluxObjectJson => ({
  kind: extra.kind ?? 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system', generation: extra.gen ?? 1 },
  spec: extra.spec ?? {},
  status: { ...(extra.status ?? {}), ...(extra.conditions ? { conditions: extra.conditions } : {}) },
});

test('Ready=True is Ready with the condition message and revision', () => {
  const s = liveStatusOf(obj({ conditions: [ready('True', 'Applied revision: main@sha1:abc')], status: { lastAppliedRevision: 'main@sha1:abc', lastHandledReconcileAt: 'T' } }));
  assert.deepEqual(s, {
    kind: 'Kustomization',
    namespace: 'flux-system',
    name: 'apps',
    state: 'Ready',
    message: 'Applied revision: main@sha1:abc',
    revision: 'main@sha1:abc',
    lastHandledReconcileAt: 'T',
  });
});

test('states: NotReady, Reconciling (Unknown or old generation), Suspended, Unknown', () => {
  assert.equal(liveStatusOf(obj({ conditions: [ready('False', 'build failed')] })).state, 'NotReady');
  assert.equal(liveStatusOf(obj({ conditions: [ready('False', 'build failed')] })).message, 'build failed');
  assert.equal(liveStatusOf(obj({ conditions: [ready('Unknown')] })).state, 'Reconciling');
  assert.equal(liveStatusOf(obj({ gen: 2, conditions: [ready('True')] })).state, 'Reconciling');
  assert.equal(liveStatusOf(obj({ conditions: [ready('True'), { type: 'Reconciling', status: 'True', message: 'x' }] })).state, 'Reconciling');
  assert.equal(liveStatusOf(obj({ spec: { suspend: true }, conditions: [ready('True')] })).state, 'Suspended');
  assert.equal(liveStatusOf(obj()).state, 'Unknown');
  assert.equal(liveStatusOf(obj({ conditions: [{ type: 'Reconciling', status: 'True', message: 'Fetching' }] })).state, 'Reconciling');
});

test('generation: the Ready condition observedGeneration, else status.observedGeneration', () => {
  assert.equal(generationObserved(obj({ gen: 3, conditions: [ready('True', 'm', 3)] })), true);
  assert.equal(generationObserved(obj({ gen: 3, conditions: [ready('True', 'm', 2)] })), false);
  assert.equal(generationObserved(obj({ gen: 3, conditions: [{ type: 'Ready', status: 'True' }], status: { observedGeneration: 3 } })), true);
  assert.equal(generationObserved(obj({ gen: 3, conditions: [{ type: 'Ready', status: 'True' }] })), false);
});

test('revision per kind: HelmRelease history, source artifact, Kustomization lastAppliedRevision', () => {
  assert.equal(revisionOf(obj({ kind: 'HelmRelease', status: { history: [{ chartName: 'podinfo', chartVersion: '6.5.0' }] } })), 'podinfo@6.5.0');
  assert.equal(revisionOf(obj({ kind: 'HelmRelease', status: { lastAttemptedRevision: '6.4.0' } })), '6.4.0');
  assert.equal(revisionOf(obj({ kind: 'GitRepository', status: { artifact: { revision: 'main@sha1:1' } } })), 'main@sha1:1');
  assert.equal(revisionOf(obj({ status: { lastAppliedRevision: 'r' } })), 'r');
  assert.equal(revisionOf(obj()), undefined);
});
