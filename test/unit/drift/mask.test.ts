import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MASK_AFTER, MASK_BEFORE, maskSecretPair, scrubSecretValues } from '../../../src/core/drift';
import { MASK } from '../../../src/core/flux/mask';

const secret = (data: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', ...(annotations ? { annotations } : {}) },
  data,
});

describe('maskSecretPair (Flux SanitizeUnstructuredData)', () => {
  test('changed values become before/after, equal and one-sided ones ***', () => {
    const live = secret({ same: 'c2FtZQ==', changed: 'b2xk', gone: 'eA==' });
    const desired = secret({ same: 'c2FtZQ==', changed: 'bmV3', added: 'eQ==' });
    maskSecretPair(live, desired);
    assert.deepEqual(live.data, { same: MASK, changed: MASK_BEFORE, gone: MASK });
    assert.deepEqual(desired.data, { same: MASK, changed: MASK_AFTER, added: MASK });
  });
  test('one side only, and last-applied-configuration annotation masked', () => {
    const live = secret({ a: 'c2VjcmV0' }, { 'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"a":"c2VjcmV0"}}' });
    maskSecretPair(live, undefined);
    assert.deepEqual(live.data, { a: MASK });
    assert.equal(live.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration'], MASK);
  });
});

describe('scrubSecretValues', () => {
  test('removes plain and base64 values from a server message', () => {
    const s = secret({ token: Buffer.from('hunter22').toString('base64') });
    const msg = `Secret "s" is invalid: data[token]: Invalid value: "hunter22" (aHVudGVyMjI=)`;
    const out = scrubSecretValues(msg, s);
    assert.ok(!out.includes('hunter22'), out);
    assert.ok(!out.includes('aHVudGVyMjI='), out);
    assert.match(out, /Invalid value: "\*\*\*"/);
  });
});
