import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FORCE_AT, REQUESTED_AT, RESET_AT, actionAllowed, reconcilePatch, requestToken, resumePatch, suspendPatch } from '../../../src/core/status/requests';

test('request tokens are Go RFC3339Nano in UTC with trailing zeros trimmed', () => {
  const t = Date.UTC(2025, 5, 1, 10, 20, 30, 120);
  assert.equal(requestToken(t), '2025-06-01T10:20:30.12Z');
  assert.equal(requestToken(Date.UTC(2025, 0, 2, 3, 4, 5, 0)), '2025-01-02T03:04:05Z');
  assert.equal(requestToken(t, 4567), '2025-06-01T10:20:30.120004567Z');
  assert.equal(requestToken(Date.UTC(2025, 0, 2, 3, 4, 5, 0), 100), '2025-01-02T03:04:05.0000001Z');
  assert.notEqual(requestToken(t, 1), requestToken(t, 2));
});

test('reconcile, force and reset patches carry the same token in each annotation', () => {
  assert.deepEqual(reconcilePatch('reconcile', 'T'), { metadata: { annotations: { [REQUESTED_AT]: 'T' } } });
  assert.deepEqual(reconcilePatch('force', 'T'), { metadata: { annotations: { [REQUESTED_AT]: 'T', [FORCE_AT]: 'T' } } });
  assert.deepEqual(reconcilePatch('reset', 'T'), { metadata: { annotations: { [REQUESTED_AT]: 'T', [RESET_AT]: 'T' } } });
  assert.equal(REQUESTED_AT, 'reconcile.fluxcd.io/requestedAt');
  assert.equal(FORCE_AT, 'reconcile.fluxcd.io/forceAt');
  assert.equal(RESET_AT, 'reconcile.fluxcd.io/resetAt');
});

test('suspend and resume patches', () => {
  assert.deepEqual(suspendPatch(), { spec: { suspend: true } });
  assert.deepEqual(resumePatch('T'), { spec: { suspend: false }, metadata: { annotations: { [REQUESTED_AT]: 'T' } } });
});

test('force and reset only for HelmReleases', () => {
  assert.equal(actionAllowed('HelmRelease', 'force'), true);
  assert.equal(actionAllowed('Kustomization', 'force'), false);
  assert.equal(actionAllowed('Kustomization', 'reset'), false);
  assert.equal(actionAllowed('GitRepository', 'reconcile'), true);
  assert.equal(actionAllowed('Kustomization', 'suspend'), true);
});
