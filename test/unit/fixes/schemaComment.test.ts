/**
 * A `# yaml-language-server: $schema=` comment heading a document whose kind this tool validates
 * gets an action removing it; one heading a kind we hold no schema for gets none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaCommentFixes } from '../../../src/core/fixes/schemaComment';
import { memoryRepo } from '../helpers';

const TEXT = [
  '---',
  '# yaml-language-server: $schema=https://k8s-schemas.example.com/kustomize.toolkit.fluxcd.io/kustomization_v1.json',
  'apiVersion: kustomize.toolkit.fluxcd.io/v1',
  'kind: Kustomization',
  'metadata:',
  '  name: apps',
  'spec:',
  '  interval: 10m',
  '  path: ./apps',
  '  prune: true',
  '  sourceRef:',
  '    kind: GitRepository',
  '    name: flux-system',
  '---',
  '# yaml-language-server: $schema=https://example.com/widget.json',
  'apiVersion: example.com/v1',
  'kind: Widget',
  'metadata:',
  '  name: w',
  '',
].join('\n');

const line = (n: number) => ({ start: { line: n, character: 0 }, end: { line: n, character: 0 } });

test('a $schema comment over a kind we validate can be removed; over a kind we do not know, it stays', () => {
  const model = memoryRepo({ 'apps/ks.yaml': TEXT }).model();
  const fixes = schemaCommentFixes(model, '/repo/apps/ks.yaml', line(1));
  assert.equal(fixes.length, 1);
  assert.match(fixes[0].title, /^Remove the \$schema comment: Kustomization is validated from Flux 2\.9/);
  assert.deepEqual(fixes[0].edits, [{ file: '/repo/apps/ks.yaml', range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: '' }]);
  assert.deepEqual(schemaCommentFixes(model, '/repo/apps/ks.yaml', line(14)), [], 'Widget has no schema here');
  assert.deepEqual(schemaCommentFixes(model, '/repo/apps/ks.yaml', line(5)), [], 'not on a comment line');
});
