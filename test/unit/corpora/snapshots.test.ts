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

test('every finding of a snapshot is accounted for in its review, rule by rule', () => {
  for (const name of names) {
    const snapshot = readSnapshot(name);
    if (!snapshot) continue;
    const found = new Map<string, number>();
    for (const f of snapshot.view.findings) {
      const rule = f.split(' ')[1];
      found.set(rule, (found.get(rule) ?? 0) + 1);
    }
    const reviewed = new Map<string, number>();
    for (const line of snapshot.review ?? []) {
      // "<TRUE|TRANSIENT|FALSE> <count> <rule>[ (severity)]: why"
      const m = /^(?:TRUE|TRANSIENT|FALSE) (\d+) ([a-z-]+)[ :]/.exec(line);
      assert.ok(m, `${name}: review line not in the form "<verdict> <count> <rule>: why": ${line.slice(0, 80)}`);
      reviewed.set(m[2], (reviewed.get(m[2]) ?? 0) + Number(m[1]));
    }
    assert.deepEqual(Object.fromEntries([...reviewed].sort()), Object.fromEntries([...found].sort()), `${name}: review counts differ from the findings`);
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
