import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adversarialGit, linkedWorktree, OUTSIDE_SHA, OUTSIDE_URL, submodule, type FsFixture } from './adversarialFs';
import { Repo } from '../../../src/core/repo';
import { diskBuildOptions } from '../../../src/engine/node';
import { diskHost } from '../../../src/node/fsHost';
import { gitCheckout, gitRemotes, isValidRefName } from '../../../src/node/gitMetadata';

/**
 * File-system confinement beyond the manifests: `.git` metadata read only inside the repository
 * (or the git directory that names it back), and every name the walk cannot read reported.
 */
const GUARD = { timeout: 120_000 };

function withFs<T>(fixture: FsFixture, body: (f: FsFixture) => T): T {
  try {
    return body(fixture);
  } finally {
    fixture.cleanup();
  }
}

/** Nothing of the outside git directory (hash, branch, tag, remote) reached what was read. */
function assertNothingOutside(repo: string): void {
  const checkout = gitCheckout(repo);
  assert.notEqual(checkout?.commit, OUTSIDE_SHA, 'a hash from outside the repository was read');
  assert.ok(!checkout?.tags?.includes('leaked'), 'a tag from outside the repository was read');
  assert.notEqual(checkout?.branch, 'packed');
  assert.ok(!gitRemotes(repo).includes(OUTSIDE_URL), 'a remote from outside the repository was read');
}

for (const [name, make] of Object.entries(adversarialGit)) {
  test(`.git metadata is not read outside the repository: ${name}`, GUARD, () => withFs(make(), (f) => assertNothingOutside(f.repo)));
}

test('a HEAD ref climbing out of the repository does not leak a hash into the tree', GUARD, () =>
  withFs(adversarialGit.headRefClimbsOut(), (f) => {
    const model = new Repo(f.repo, diskHost, diskBuildOptions(f.repo)).model();
    const fleet = model.clusters.flatMap((c) => c.kustomizations).find((k) => k.applied.name === 'fleet-apps');
    assert.ok(fleet, 'the fleet-apps Kustomization is in the model');
    // The tree's tooltip for a Kustomization shows its source's description.
    assert.ok(!fleet.source.description.includes(OUTSIDE_SHA.slice(0, 12)), `the source description shows a hash read from outside: ${fleet.source.description}`);
  }));

test('a gitdir pointer leaving the repository is followed only to a git directory that names this checkout back', GUARD, () => {
  withFs(adversarialGit.gitdirPointerOut(), (f) => assert.equal(gitCheckout(f.repo), undefined));
  withFs(linkedWorktree(), (f) => {
    assert.deepEqual(gitCheckout(f.repo), { branch: 'main', commit: OUTSIDE_SHA, tags: ['leaked'] });
    assert.deepEqual(gitRemotes(f.repo), [OUTSIDE_URL]);
  });
  withFs(submodule(), (f) => assert.deepEqual(gitCheckout(f.repo), { branch: 'main', commit: OUTSIDE_SHA, tags: ['leaked'] }));
});

test('ref names are accepted as git accepts them', () => {
  for (const ok of ['refs/heads/main', 'refs/heads/feature/x-1', 'refs/tags/v1.2.3']) assert.equal(isValidRefName(ok), true, ok);
  for (const bad of ['refs/heads/../../x', '/etc/passwd', 'HEAD', 'refs/heads/a..b', 'refs/heads/.hidden', 'refs/heads/x.lock', 'refs/heads/a b', 'refs/heads/a\\b', 'refs/heads/x/', 'refs/heads/x.', 'refs/heads/a@{1}', 'refs//x']) {
    assert.equal(isValidRefName(bad), false, bad);
  }
});
