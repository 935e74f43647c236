import assert from 'node:assert/strict';
import { test } from 'node:test';
import { needsConfirmation } from '../../../src/core/status/confirm';

test('default asks for every context; globs select contexts; an empty list never asks', () => {
  assert.equal(needsConfirmation('kind-dev', ['*']), true);
  assert.equal(needsConfirmation('prod-eu', ['prod-*']), true);
  assert.equal(needsConfirmation('dev', ['prod-*']), false);
  assert.equal(needsConfirmation('arn:aws:eks:eu-west-1:1:cluster/prod', ['arn:aws:eks:*:cluster/prod']), true);
  assert.equal(needsConfirmation('a.b', ['a?b']), true);
  assert.equal(needsConfirmation('axxb', ['a.b']), false);
  assert.equal(needsConfirmation('dev', []), false);
  assert.equal(needsConfirmation('dev', 'nonsense'), true);
});
