import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { BASE, writeRepo } from './adversarial';
import { adversarialGit, linkedWorktree, nonUtf8Name, OUTSIDE_SHA, OUTSIDE_URL, overlongPath, submodule, type FsFixture } from './adversarialFs';
import { checkCli } from './cli';
import { Repo } from '../../../src/core/repo';
import { diskBuildOptions } from '../../../src/engine/node';
import { diskHost } from '../../../src/node/fsHost';
import { gitCheckout, gitRemotes, isValidRefName } from '../../../src/node/gitMetadata';
import { escapeFileName } from '../../../src/node/fileNames';

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

test('names that are not UTF-8 are reported once each, escaped, and give no false build failure', GUARD, async () => {
  const fixture = nonUtf8Name();
  try {
    const run = await checkCli(fixture.dir);
    assert.equal(run.code, 0, `${run.stderr}${JSON.stringify(run.diagnostics)}`);
    assert.deepEqual(run.diagnostics.filter((d) => d.rule === 'build-failed'), []);
    const unreadable = run.diagnostics.filter((d) => d.rule === 'file-unreadable');
    assert.deepEqual(unreadable.map((d) => d.file).sort(), ['apps/bad-\\xff\\xfe.yaml', 'apps/dir-\\xc3('].sort());
    assert.match(unreadable[0].message, /name is not valid UTF-8/);
  } finally {
    fixture.cleanup();
  }
});

test('a path over the system limit is reported, not dropped silently', GUARD, async () => {
  const fixture = overlongPath();
  try {
    const run = await checkCli(fixture.dir);
    assert.equal(run.code, 0, run.stderr);
    const [d, ...more] = run.diagnostics.filter((x) => x.rule === 'file-unreadable');
    assert.ok(d, 'the over-long path is reported');
    assert.deepEqual(more, []);
    assert.ok(d.file.startsWith('apps/ddd'), d.file);
    assert.match(d.message, /path is \d+ bytes long, over the 4096-byte limit/);
  } finally {
    fixture.cleanup();
  }
});

test('a folder that cannot be listed (permission denied) is reported, not dropped silently', GUARD, async (t) => {
  const fixture = writeRepo(BASE);
  // Run as root, chmod cannot deny a read: the listing itself fails as it does for other users.
  const readdirSync = fs.readdirSync;
  t.mock.method(fs, 'readdirSync', (p: fs.PathLike, ...rest: unknown[]) => {
    if (String(p) === `${fixture.dir}/apps`) throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(p)}'`), { code: 'EACCES' });
    return (readdirSync as (...a: unknown[]) => unknown)(p, ...rest);
  });
  try {
    const run = await checkCli(fixture.dir);
    assert.equal(run.code, 0, run.stderr);
    const [d] = run.diagnostics.filter((x) => x.rule === 'file-unreadable');
    assert.equal(d?.file, 'apps');
    assert.match(d.message, /Folder could not be listed \(permission denied\)/);
  } finally {
    t.mock.restoreAll();
    fixture.cleanup();
  }
});

test('a file name is shown with its undecodable bytes escaped, and only those', () => {
  const name = (...parts: (string | number[])[]) => escapeFileName(Buffer.concat(parts.map((p) => Buffer.from(p as string))));
  assert.equal(name('café-', [0xff], '.yaml'), 'café-\\xff.yaml');
  // Overlong, surrogate and truncated sequences are not UTF-8; a backslash cannot pass for an escape.
  assert.equal(name([0xc0, 0xaf], [0xed, 0xa0, 0x80], 'a\\x', [0xe2, 0x82]), '\\xc0\\xaf\\xed\\xa0\\x80a\\\\x\\xe2\\x82');
  assert.equal(name('✓ 𝄞'), '✓ 𝄞');
});
