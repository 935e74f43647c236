import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MASK_SENTINEL, maskSecrets, maskSops, restoreMasks, toManifest } from '../../../src/core/flux/mask';

test('SOPS ENC[] values become *** and the sops metadata is dropped', () => {
  const obj: Record<string, any> = { kind: 'Secret', stringData: { a: 'ENC[AES256_GCM,data:x,type:str]', b: 'plain' }, list: ['ENC[x]'], sops: { mac: 'ENC[y]' } };
  assert.equal(maskSops(obj), true);
  assert.deepEqual(obj, { kind: 'Secret', stringData: { a: '***', b: 'plain' }, list: ['***'] });
  assert.equal(maskSops({ kind: 'ConfigMap', data: { a: 'ENCODED' } }), false);
});

test('maskSecrets hides Secret data and stringData values, keeps keys, leaves other kinds alone', () => {
  const s = { kind: 'Secret', data: { token: 'czNjcmV0' }, stringData: { pw: 'x' } };
  assert.deepEqual(maskSecrets(s), { kind: 'Secret', data: { token: '***' }, stringData: { pw: '***' } });
  assert.equal(s.data.token, 'czNjcmV0', 'the input is not modified');
  const cm = { kind: 'ConfigMap', data: { a: 'b' } };
  assert.equal(maskSecrets(cm), cm);
});

test('restoreMasks and toManifest', () => {
  assert.deepEqual(restoreMasks({ a: `x-${MASK_SENTINEL}`, b: [MASK_SENTINEL] }), { a: 'x-***', b: ['***'] });
  assert.deepEqual(toManifest({ kind: 'A', origin: { file: 'f', docIndex: 0 } }), { kind: 'A' });
});
