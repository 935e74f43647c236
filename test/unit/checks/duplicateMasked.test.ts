/**
 * A build substitutes `***` for a value from a Secret: names built from two different Secret values
 * come out the same (`***-wildcard`), yet are different objects in the cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
const cert = (name: string) => `apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: "${name}"\n  namespace: network\nspec:\n  secretName: x\n`;
const duplicates = (files: Record<string, string>) =>
  check(memoryRepo({ 'clusters/c/root.yaml': ks('root', './clusters/c/ks'), 'clusters/c/ks/a.yaml': ks('a', './a'), ...files }))
    .diagnostics.filter((d) => d.rule === 'duplicate-object')
    .map((d) => d.file.slice(6));

test('duplicate-object: a name holding a masked Secret value is unknown, not equal to another masked one', () => {
  assert.deepEqual(duplicates({ 'a/certs.yaml': `${cert('***-wildcard')}---\n${cert('***-wildcard')}`, 'a/kustomization.yaml': 'resources: [certs.yaml]\n' }), []);
  // Known names still collide.
  assert.deepEqual(duplicates({ 'a/certs.yaml': `${cert('example-wildcard')}---\n${cert('example-wildcard')}`, 'a/kustomization.yaml': 'resources: [certs.yaml]\n' }), [
    'a/certs.yaml',
    'a/certs.yaml',
  ]);
});
