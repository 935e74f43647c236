import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evaluateWait } from '../../../src/core/status/wait';
import type { FluxObjectJson } from '../../../src/core/status/conditions';

function o(opts: { handled?: string; ready?: string; message?: string; gen?: number; observed?: number; suspend?: boolean }): FluxObjectJson {
  return {
    kind: 'HelmRelease',
    metadata: { name: 'podinfo', namespace: 'apps', generation: opts.gen ?? 2 },
    spec: opts.suspend ? { suspend: true } : {},
    status: {
      ...(opts.handled ? { lastHandledReconcileAt: opts.handled } : {}),
      conditions: opts.ready ? [{ type: 'Ready', status: opts.ready, message: opts.message ?? '', reason: 'X', observedGeneration: opts.observed ?? 2 }] : [],
    },
  };
}

test('not done until lastHandledReconcileAt equals the token, even if Ready=True', () => {
  const s = evaluateWait(o({ handled: 'old', ready: 'True' }), 'new');
  assert.equal(s.done, false);
  assert.match(!s.done ? s.reason : '', /last handled: old/);
  assert.equal(evaluateWait(o({ ready: 'True' }), 'new').done, false);
});

test('not done while Ready is Unknown or describes an older generation', () => {
  assert.equal(evaluateWait(o({ handled: 'T', ready: 'Unknown', message: 'Running upgrade' }), 'T').done, false);
  assert.equal(evaluateWait(o({ handled: 'T', ready: 'True', observed: 1 }), 'T').done, false);
  assert.equal(evaluateWait(o({ handled: 'T' }), 'T').done, false);
});

test('Ready=True succeeds and Ready=False fails, with the condition message', () => {
  assert.deepEqual(evaluateWait(o({ handled: 'T', ready: 'True', message: 'Helm upgrade succeeded' }), 'T'), { done: true, outcome: 'ready', message: 'Helm upgrade succeeded' });
  assert.deepEqual(evaluateWait(o({ handled: 'T', ready: 'False', message: 'install retries exhausted' }), 'T'), { done: true, outcome: 'failed', message: 'install retries exhausted' });
});

test('a suspended object ends the wait at once, saying so', () => {
  const s = evaluateWait(o({ suspend: true }), 'T');
  assert.equal(s.done && s.outcome, 'suspended');
  assert.match(s.done ? s.message : '', /HelmRelease apps\/podinfo is suspended/);
});
