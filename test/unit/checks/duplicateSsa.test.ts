import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
const cm = (metadata = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: default\n${metadata}`;
const rules = (files: Record<string, string>) =>
  check(memoryRepo({ 'clusters/c/root.yaml': ks('root', './clusters/c/ks'), 'clusters/c/ks/a.yaml': ks('a', './a'), 'clusters/c/ks/b.yaml': ks('b', './b'), ...files })).diagnostics.map(
    (d) => `${d.rule}|${d.file.slice(6)}`,
  );

test('duplicate-object: a copy that Flux only creates when missing (ssa: IfNotPresent) or never applies (Ignore) fights no one', () => {
  assert.deepEqual(rules({ 'a/cm.yaml': cm(), 'b/cm.yaml': cm() }), ['duplicate-object|a/cm.yaml', 'duplicate-object|b/cm.yaml']);
  assert.deepEqual(rules({ 'a/cm.yaml': cm(), 'b/cm.yaml': cm('  annotations:\n    kustomize.toolkit.fluxcd.io/ssa: IfNotPresent\n') }), []);
  assert.deepEqual(rules({ 'a/cm.yaml': cm(), 'b/cm.yaml': cm('  labels:\n    kustomize.toolkit.fluxcd.io/ssa: Ignore\n') }), []);
  // Two copies that both still apply do fight, whatever a third one does.
  const third = { 'clusters/c/ks/d.yaml': ks('d', './d'), 'd/cm.yaml': cm('  annotations:\n    kustomize.toolkit.fluxcd.io/ssa: IfNotPresent\n') };
  assert.deepEqual(rules({ 'a/cm.yaml': cm(), 'b/cm.yaml': cm(), ...third }), ['duplicate-object|a/cm.yaml', 'duplicate-object|b/cm.yaml']);
  // Within one Kustomization kustomize refuses the duplicate whatever its annotations.
  const once = cm('  annotations:\n    kustomize.toolkit.fluxcd.io/ssa: IfNotPresent\n');
  assert.deepEqual(rules({ 'a/one.yaml': once, 'a/two.yaml': once, 'b/other.yaml': cm().replace('shared', 'other') }), ['duplicate-object|a/one.yaml', 'duplicate-object|a/two.yaml']);
});
