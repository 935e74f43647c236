import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LAST_APPLIED_ANNOTATION, MASK, MASK_SENTINEL, maskRenderedSecrets, maskSecrets, maskSops, restoreMasks, scrubValues, toManifest } from '../../../src/core/flux/mask';
import { dataOf } from '../../../src/core/flux/postbuild';
import type { KubeObject } from '../../../src/core/model/objects';

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

test('maskSecrets masks a Secret\'s last-applied-configuration annotation, and only a Secret\'s', () => {
  const lastApplied = JSON.stringify({ kind: 'Secret', stringData: { pw: 'hunter2' } });
  const s = { kind: 'Secret', metadata: { name: 's', annotations: { [LAST_APPLIED_ANNOTATION]: lastApplied, other: 'kept' } }, stringData: { pw: 'hunter2' } };
  assert.deepEqual(maskSecrets(s).metadata.annotations, { [LAST_APPLIED_ANNOTATION]: '***', other: 'kept' });
  assert.equal(s.metadata.annotations[LAST_APPLIED_ANNOTATION], lastApplied, 'the input is not modified');
  const cm = { kind: 'ConfigMap', metadata: { annotations: { [LAST_APPLIED_ANNOTATION]: '{}' } } };
  assert.equal(maskSecrets(cm), cm);
});

test('maskRenderedSecrets masks Secret values wherever they stand as a word, as written or base64-decoded', () => {
  const secret = { kind: 'Secret', data: { token: Buffer.from('s3cr3t-token').toString('base64') }, stringData: { user: 'admin', short: 'ab' } };
  const cm = {
    kind: 'ConfigMap',
    data: {
      whole: 's3cr3t-token',
      encoded: Buffer.from('s3cr3t-token').toString('base64'),
      url: 'admin:s3cr3t-token@db',
      inside: 'administrator',
      short: 'ab',
      list: ['x admin y', 'xadmin'],
    },
  };
  const [maskedSecret, maskedCm] = maskRenderedSecrets([secret, cm]);
  assert.deepEqual(maskedSecret, { kind: 'Secret', data: { token: '***' }, stringData: { user: '***', short: '***' } });
  assert.deepEqual(maskedCm.data, { whole: '***', encoded: '***', url: '***:***@db', inside: 'administrator', short: 'ab', list: ['x *** y', 'xadmin'] });
  assert.equal(cm.data.whole, 's3cr3t-token', 'the input is not modified');
});

test('scrubValues replaces every occurrence, the longest value first, and ignores values under 3 characters', () => {
  assert.equal(scrubValues('literal sources [k=hunter2]: invalid hunter2x', ['k=hunter2', 'hunter2', 'k']), 'literal sources [***]: invalid ***x');
  assert.equal(scrubValues('no values here', []), 'no values here');
});

test('a SOPS-encrypted ConfigMap taken from a build (its values already `***`) substitutes as masked, never as a bare `***`', () => {
  const object = (rendered: boolean) =>
    ({ kind: 'ConfigMap', rendered: rendered || undefined, body: { data: { LB_IP: MASK, PLAIN: 'x' } } }) as unknown as KubeObject;
  const built = dataOf(object(true));
  assert.equal(built.masked, true);
  assert.deepEqual([...built.data], [['LB_IP', MASK], ['PLAIN', 'x']]);
  // Written in the repository, `***` is just a value.
  assert.equal(dataOf(object(false)).masked, false);
});

test('a Secret generated from a SOPS-encrypted file or env file holds ***, as its values are never decrypted here; plain data stays', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const yamlFile = 'password: ENC[AES256_GCM,data:abc=,iv:x=,tag:y=,type:str]\nsops:\n    age: []\n    mac: ENC[AES256_GCM,data:m=,iv:i=,tag:t=,type:str]\n';
  const envValue = 'ENC[AES256_GCM,data:w3tD=,iv:Ow=,tag:Mg=,type:str]';
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'app' }, data: { 'values.yaml': b64(yamlFile), TOKEN: b64(envValue), 'config.yaml': b64('badge:\n  size: 13\n') } };
  assert.equal(maskSops(secret), true);
  assert.deepEqual(secret.data, { 'values.yaml': '***', TOKEN: '***', 'config.yaml': b64('badge:\n  size: 13\n') });
  // A ConfigMap's data is not a Secret's: left as it is.
  const cm = { kind: 'ConfigMap', data: { 'values.yaml': b64(yamlFile) } };
  assert.equal(maskSops(cm), false);
  assert.equal(cm.data['values.yaml'], b64(yamlFile));
});
