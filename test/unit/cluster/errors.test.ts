import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyError, errorForStatus, HttpStatusError } from '../../../src/cluster/errors';

const forbiddenBody = {
  kind: 'Status',
  message: 'kustomizations.kustomize.toolkit.fluxcd.io "apps" is forbidden: User "readonly" cannot patch resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace "flux-system"',
  reason: 'Forbidden',
  code: 403,
};

test('HTTP statuses map to kinds with one human line', () => {
  const f = errorForStatus(403, JSON.stringify(forbiddenBody));
  assert.equal(f.kind, 'forbidden');
  assert.equal(f.message, 'Forbidden: user readonly cannot patch resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace "flux-system"');
  assert.equal(errorForStatus(401, '').kind, 'unauthorized');
  assert.equal(errorForStatus(404, { message: 'x not found' }).message, 'Not found: x not found');
  assert.equal(errorForStatus(409, {}).kind, 'conflict');
  assert.equal(errorForStatus(422, { message: 'spec.interval: Required value' }).message, 'Invalid: spec.interval: Required value');
  assert.equal(errorForStatus(504, {}).kind, 'timeout');
  assert.equal(errorForStatus(503, 'not json').kind, 'unreachable');
  assert.equal(errorForStatus(500, '<html>').kind, 'unknown');
});

test('client-node ApiException-like and our HttpStatusError', () => {
  assert.equal(classifyError({ code: 403, body: forbiddenBody, message: 'HTTP-Code: 403' }).kind, 'forbidden');
  assert.equal(classifyError(new HttpStatusError(401, '', { method: 'GET', url: '/' })).kind, 'unauthorized');
});

test('network, TLS, timeout, abort and credential plugin errors', () => {
  const refused = classifyError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }), 'https://127.0.0.1:6443');
  assert.deepEqual(refused, { kind: 'unreachable', message: 'Cannot reach https://127.0.0.1:6443: connection refused' });
  assert.equal(classifyError(Object.assign(new Error('getaddrinfo ENOTFOUND k8s'), { code: 'ENOTFOUND' })).message, 'Cannot reach the API server: host not found');
  assert.equal(classifyError(Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })).kind, 'timeout');
  const cert = classifyError(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'https://x');
  assert.equal(cert.kind, 'unreachable');
  assert.match(cert.message, /^TLS error talking to https:\/\/x: self-signed certificate/);
  assert.equal(classifyError(Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' })).kind, 'unauthorized');
  const aborted = new Error('aborted');
  aborted.name = 'AbortError';
  assert.equal(classifyError(aborted).kind, 'cancelled');
  assert.equal(classifyError(Object.assign(new Error('exec: executable aws not found'), { code: 'ENOENT' })).kind, 'unauthorized');
  assert.equal(classifyError('weird').kind, 'unknown');
  assert.equal(classifyError(undefined).kind, 'unknown');
});
