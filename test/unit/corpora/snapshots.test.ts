/**
 * The shared corpora are the regression suite: every corpus's clusters, placements and findings, on
 * its default branch and on a feature branch, are exactly its reviewed snapshot
 * (test/unit/corpora/snapshots/<corpus>.json). A change in what the tool answers on a real
 * repository fails here until the snapshot is written anew (`npm run corpora:snapshot`), reviewed
 * and explained in its commit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusNames, readSnapshot, snapshotOf } from './snapshot';

const names = corpusNames();

test('every shared corpus has a reviewed snapshot', () => {
  assert.ok(names.length >= 29, `only ${names.length} corpora`);
  for (const name of names) {
    const snapshot = readSnapshot(name);
    assert.ok(snapshot, `${name}: no snapshot (npm run corpora:snapshot -- ${name})`);
    if (snapshot.view.findings.length) assert.ok(snapshot.review?.length, `${name}: its findings have no review notes`);
    if (snapshot.feature) assert.ok(snapshot.featureReason, `${name}: the feature branch differs and no reason is given`);
  }
});

for (const name of names) {
  test(`${name}: as reviewed, on the default branch and on a feature branch`, { timeout: 600_000 }, async () => {
    const reviewed = readSnapshot(name);
    assert.ok(reviewed, `${name}: no snapshot`);
    const fresh = await snapshotOf(name);
    assert.deepEqual(fresh.view, reviewed.view, `${name} on ${fresh.branch} differs from its snapshot`);
    assert.deepEqual(fresh.feature, reviewed.feature, `${name}: the feature branch differs from its snapshot`);
  });
}
