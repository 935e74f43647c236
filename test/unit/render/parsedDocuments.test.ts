import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument, parsedDocumentsSize } from '../../../src/render/parsedDocuments';

test('a document parsed again comes from the cache as a copy of its own', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cached-copy\ndata:\n  a: "1"\n';
  const first = parseDocument(text) as { data: Record<string, string> };
  first.data.a = 'mutated by the post-build layer';
  const before = parsedDocumentsSize().documents;
  const second = parseDocument(text) as { data: Record<string, string> };
  assert.deepEqual(second.data, { a: '1' }, 'the caller’s mutation did not reach the cache');
  assert.notEqual(second, parseDocument(text));
  assert.equal(parsedDocumentsSize().documents, before, 'served from the cache');
  assert.throws(() => parseDocument('a: [unclosed\n'), 'a YAML error is still thrown');
});

test('the cache is bounded by the total size of the texts it keeps', () => {
  const filler = 'x'.repeat(200_000);
  for (let i = 0; i < 40; i++) parseDocument(`kind: ConfigMap\nmetadata:\n  name: big-${i}\ndata:\n  v: ${filler}\n`);
  const { bytes } = parsedDocumentsSize();
  assert.ok(bytes <= 4 * 2 ** 20, `${bytes} bytes kept`);
  assert.ok(bytes > 2 * 2 ** 20, 'it keeps what fits');
});
