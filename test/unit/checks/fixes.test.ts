import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { quickFixes, type TextEdit } from '../../../src/core/fixes/index';
import type { Diagnostic, RuleId } from '../../../src/core/checks/index';
import { check, FIXTURES, memoryRepo } from './helpers';
import { Repo } from '../../../src/core/repo';

/** Loads a fixture repo into memory so fixes can be applied as editor buffers would be. */
function loadFixture(rel: string): Repo {
  const dir = `${FIXTURES}/${rel}`;
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else files[p.slice(dir.length + 1)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return memoryRepo(files);
}

function applyEdits(repo: Repo, edits: TextEdit[]): void {
  const byFile = new Map<string, TextEdit[]>();
  for (const e of edits) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e]);
  for (const [file, list] of byFile) {
    const source = repo.workspace.files.get(file)!;
    let text = source.text;
    const withOffsets = list.map((e) => ({ e, start: source.lines.offset(e.range.start), end: source.lines.offset(e.range.end) })).sort((a, b) => b.start - a.start);
    for (const { e, start, end } of withOffsets) text = text.slice(0, start) + e.newText + text.slice(end);
    repo.setBuffer(file, text);
  }
}

function only(repo: Repo, rule: RuleId): Diagnostic[] {
  return check(repo).diagnostics.filter((d) => d.rule === rule);
}

/** Applies the preferred (or `pick`ed) fix of every diagnostic of the rule, one at a time, and re-checks. */
function fixAll(repo: Repo, rule: RuleId, pick = 0): string[] {
  const titles: string[] = [];
  for (let guard = 0; guard < 10; guard++) {
    const list = only(repo, rule);
    if (list.length === 0) break;
    const fixes = quickFixes(list[0], repo.model());
    assert.ok(fixes.length > pick, `no fix for ${list[0].message}`);
    titles.push(fixes[pick].title);
    applyEdits(repo, fixes[pick].edits);
  }
  return titles;
}

test('depends-on-not-found: fixes set the namespace and correct the typo', () => {
  const repo = loadFixture('depends-on-not-found/fail');
  const titles = fixAll(repo, 'depends-on-not-found');
  assert.deepEqual(titles.sort(), ["Change to 'database'", 'Set namespace: infra-system']);
  assert.deepEqual(check(repo).diagnostics, []);
  const text = repo.workspace.readText('/repo/clusters/test/apps.yaml')!;
  assert.match(text, /- name: infra {2}# expect: depends-on-not-found\n {6}namespace: infra-system\n/);
});

test('crd-order: the fix adds dependsOn on the providing Kustomization', () => {
  const repo = loadFixture('crd-order/fail');
  const titles = fixAll(repo, 'crd-order');
  assert.deepEqual(titles.sort(), ["Add dependsOn 'crds'", "Add dependsOn 'infra-controllers'"]);
  assert.deepEqual(check(repo).diagnostics, []);
  assert.match(repo.workspace.readText('/repo/clusters/test/apps.yaml')!, /\n {2}dependsOn:\n {4}- name: crds\n/);
});

test('crd-order-no-wait: both fixes (wait, healthCheck) clear the warning', () => {
  for (const pick of [0, 1]) {
    const repo = loadFixture('crd-order-no-wait/fail');
    fixAll(repo, 'crd-order-no-wait', pick);
    assert.deepEqual(check(repo).diagnostics, []);
    const text = repo.workspace.readText('/repo/clusters/test/infra-controllers.yaml')!;
    assert.match(text, pick === 0 ? /\n {2}wait: true\n/ : /healthChecks:\n {4}- apiVersion: helm.toolkit.fluxcd.io\/v2\n {6}kind: HelmRelease/);
  }
});

test('api-version-unserved: migration rewrites versions and removed fields', () => {
  const repo = loadFixture('api-version-unserved/fail');
  fixAll(repo, 'api-version-unserved');
  assert.deepEqual(check(repo).diagnostics, []);
  const ks = repo.workspace.readText('/repo/clusters/test/apps.yaml')!;
  assert.match(ks, /apiVersion: kustomize.toolkit.fluxcd.io\/v1 /);
  assert.doesNotMatch(ks, /validation:/);
  const hr = repo.workspace.readText('/repo/apps/release.yaml')!;
  assert.match(hr, /valuesFiles:\n\s+- values-prod.yaml/);
  assert.doesNotMatch(hr, /valuesFile:/);
});

test('api-version-unserved: patchesStrategicMerge and patchesJson6902 become patches', () => {
  const repo = memoryRepo({
    'ks.yaml': [
      'apiVersion: kustomize.toolkit.fluxcd.io/v1beta2',
      'kind: Kustomization',
      'metadata:',
      '  name: apps',
      '  namespace: flux-system',
      'spec:',
      '  path: ./apps',
      '  patchesStrategicMerge:',
      '    - apiVersion: v1',
      '      kind: ConfigMap',
      '      metadata:',
      '        name: x',
      '  patchesJson6902:',
      '    - target:',
      '        kind: ConfigMap',
      '        name: x',
      '      patch:',
      '        - op: add',
      '          path: /data/a',
      '          value: b',
      '  sourceRef:',
      '    kind: GitRepository',
      '    name: flux-system',
      '',
    ].join('\n'),
  });
  fixAll(repo, 'api-version-unserved');
  const text = repo.workspace.readText('/repo/ks.yaml')!;
  const value = repo.workspace.files.get('/repo/ks.yaml')!.docs[0].value as any;
  assert.equal(value.apiVersion, 'kustomize.toolkit.fluxcd.io/v1');
  assert.equal(value.spec.patchesStrategicMerge, undefined);
  assert.equal(value.spec.patchesJson6902, undefined);
  assert.equal(value.spec.patches.length, 2, text);
  assert.match(value.spec.patches[0].patch, /kind: ConfigMap/);
  assert.deepEqual(value.spec.patches[1].target, { kind: 'ConfigMap', name: 'x' });
  assert.match(value.spec.patches[1].patch, /op: add/);
  assert.deepEqual(value.spec.sourceRef, { kind: 'GitRepository', name: 'flux-system' });
});
