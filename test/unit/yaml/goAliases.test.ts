import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSourceFile, parseYaml } from '../../../src/core/yaml/document';

const text = 'metadata:\n  name: &app littlelink\nspec:\n  controllers:\n    *app:\n      containers:\n        app: {image: x}\n  pair: [*app: 1]\n';
const value = { metadata: { name: 'littlelink' }, spec: { controllers: { littlelink: { containers: { app: { image: 'x' } } } }, pair: [{ littlelink: 1 }] } };

test('an alias used as a map key (`*app:`) is read as go-yaml reads it: the alias `app`, then the key indicator', () => {
  const file = parseSourceFile('/r/hr.yaml', `${text}---\nb: *app\n`);
  assert.deepEqual(file.docs[0].problems, []);
  // Anchors do not reach past their document.
  assert.equal(file.docs[1].problems.length, 1);
  assert.deepEqual(file.docs[0].value, value);
  assert.deepEqual(parseYaml(text), value);
  // Offsets are the text's own: the key's range covers `*app`.
  const key = (file.docs[0].node.contents as any).get('spec', true).get('controllers', true).items[0].key;
  assert.equal(file.text.slice(key.range[0], key.range[1]), '*app');
});
