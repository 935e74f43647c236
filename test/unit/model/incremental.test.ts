import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryRepo } from '../helpers';
import { treeJson } from '../../../src/core/tree/treeData';
import { generateRepo } from '../../../bench/generate';

/** Applies edits through the incremental path and compares with a model built from scratch. */
function assertSameAsFresh(files: Record<string, string>, edits: [string, string][]) {
  const repo = memoryRepo(files);
  repo.model();
  const current = { ...files };
  for (const [rel, text] of edits) {
    current[rel] = text;
    repo.setBuffer(`/repo/${rel}`, text);
    assert.deepEqual(treeJson(repo.model()), treeJson(memoryRepo(current).model()), `after editing ${rel}`);
  }
  return repo;
}

test('incremental rebuilds equal fresh builds across edits of specs, kustomizations and sources', () => {
  const { files } = generateRepo();
  const ks = 'apps/g05/app-500/ks.yaml';
  const group = 'apps/g05/kustomization.yaml';
  assertSameAsFresh(files, [
    [ks, files[ks].replace('spec:\n', 'spec:\n  dependsOn:\n    - name: app-499\n')],
    [ks, files[ks].replace('interval: 1h', 'interval: 2h')],
    [ks, files[ks].replace('app-500', 'app-500-renamed')],
    [group, files[group].replace('namespace: g05', 'namespace: moved')],
    [group, files[group].replace('  - ./app-500/ks.yaml\n', '')],
    ['apps/g07/app-700/app/kustomization.yaml', 'resources:\n  - ./service.yaml\n'],
    ['clusters/prod/flux-system/gotk-sync.yaml', files['clusters/prod/flux-system/gotk-sync.yaml'].replace('./clusters/prod', './clusters/prod/')],
    [ks, files[ks]],
  ]);
});

test('an edit keeps every unaffected Kustomization node (same object), and replaces the edited ones', () => {
  const { files } = generateRepo();
  const repo = memoryRepo(files);
  const before = repo.model().clusters[0];
  const byName = (c: typeof before) => new Map(c.kustomizations.map((k) => [k.applied.name, k]));
  const old = byName(before);
  const ks = 'apps/g05/app-500/ks.yaml';
  repo.setBuffer(`/repo/${ks}`, files[ks].replace('interval: 1h', 'interval: 3h'));
  const after = byName(repo.model().clusters[0]);
  assert.equal(after.size, old.size);
  assert.notEqual(after.get('app-500'), old.get('app-500'), 'the edited Kustomization is rebuilt');
  assert.notEqual(after.get('g05'), old.get('g05'), 'so is the one applying it');
  assert.equal(after.get('app-100'), old.get('app-100'), 'another group is reused as is');
  assert.equal(after.get('app-501'), old.get('app-501'), 'a sibling is reused as is');
  assert.equal(after.get('app-501')!.applied.appliedBy, after.get('g05'), 'and points at its new parent');
});
