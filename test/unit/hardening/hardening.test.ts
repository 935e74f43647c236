import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adversarial, ancestorPath, withFixture } from './adversarial';
import { checkCli, checkMemory, treeCli, treeMemory, type CheckRun } from './cli';
import type { TreeJson } from '../../../src/core/tree/treeData';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { MAX_KUSTOMIZE_DEPTH } from '../../../src/core/model/expand';
import { MAX_KUSTOMIZATION_NESTING } from '../../../src/core/model/builder';

/**
 * One regression test per way a hostile repository used to hang, crash or exhaust `check` and
 * `tree`: each must now end with exit 0 or 1, say what it skipped at the file, and keep analysing
 * the rest (the `prod` cluster and its ConfigMap stay visible). A hang in old code fails through
 * the per-test timeout; it is a guard, not a speed target (see bench/hardening.bench.ts).
 */
const GUARD = { timeout: 120_000 };

function at(run: CheckRun, rule: string, file: string): CheckRun['diagnostics'] {
  return run.diagnostics.filter((d) => d.rule === rule && d.file === file);
}

/** The cluster survived: tree exits 0 and still shows `prod` with its `apps` Kustomization. */
async function assertClusterIntact(dir: string): Promise<void> {
  const { code, tree } = await treeCli(dir);
  assert.equal(code, 0);
  assertTreeIntact(tree!);
}

function assertTreeIntact(tree: TreeJson): void {
  assert.deepEqual(
    tree.clusters.map((c) => c.name),
    ['prod'],
  );
  const apps = tree.kustomizations.find((k) => k.name === 'apps');
  assert.ok(apps, 'the apps Kustomization is in the tree');
  assert.equal(apps.cluster, 'prod');
}

test('a folder link looping back (a -> ., up -> ..) is read once and reported', GUARD, () =>
  withFixture(adversarial.symlinkLoop(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.match(at(run, 'file-unreadable', 'apps/loop')[0]?.message ?? '', /already read/);
    assert.match(at(run, 'file-unreadable', 'clusters/prod/up')[0]?.message ?? '', /already read \(clusters\)/);
    await assertClusterIntact(dir);
  }));

test('a manifest linked to /dev/zero is not read', GUARD, () =>
  withFixture(adversarial.symlinkDevZero(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    const [d] = at(run, 'file-unreadable', 'apps/zero.yaml');
    assert.equal(d?.severity, 'warning');
    assert.match(d.message, /character device, not a regular file/);
    assert.equal(d.line, 1);
    await assertClusterIntact(dir);
  }));

test('links leaving the workspace and broken links are reported, never followed', GUARD, () =>
  withFixture(adversarial.symlinkOutside(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.match(at(run, 'file-unreadable', 'apps/outside.yaml')[0]?.message ?? '', /outside the workspace/);
    assert.match(at(run, 'file-unreadable', 'apps/etc')[0]?.message ?? '', /outside the workspace/);
    assert.match(at(run, 'file-unreadable', 'apps/broken.yaml')[0]?.message ?? '', /cannot be followed \(a broken symbolic link\)/);
    const repo = new Repo(dir, diskHost);
    assert.ok(![...repo.workspace.files.keys()].some((p) => p.includes('/apps/etc/')), 'nothing under the linked /etc is read');
  }));

test('a FIFO named *.yaml does not block the walk', GUARD, () =>
  withFixture(adversarial.fifo(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.match(at(run, 'file-unreadable', 'apps/pipe.yaml')[0]?.message ?? '', /FIFO/);
    await assertClusterIntact(dir);
  }));

test('a backtracking .sourceignore glob is matched in linear time, with the right answer', GUARD, () =>
  withFixture(adversarial.sourceignoreBacktracking(), async (dir) => {
    const repo = new Repo(dir, diskHost);
    const long = `${dir}/apps/${'a'.repeat(200)}.yaml`;
    // The name has no `b`, so `*a*a…*b` does not match it: the file is read and applied.
    assert.ok(repo.workspace.files.has(long));
    assert.ok(repo.model().appliedById.has(`${long}#0`));
  }));

test('tens of thousands of aliases in a document are a yaml-syntax error at the alias', GUARD, () =>
  withFixture(adversarial.manyAliases(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 1);
    const [d] = at(run, 'yaml-syntax', 'apps/aliases.yaml');
    assert.match(d?.message ?? '', /More than 1000 YAML aliases/);
    assert.ok(d.line > 1000, 'located at the alias past the limit');
    await assertClusterIntact(dir);
  }));

test('an alias bomb is a yaml-syntax error, not an expansion', GUARD, () =>
  withFixture(adversarial.aliasBomb(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 1);
    assert.match(at(run, 'yaml-syntax', 'apps/bomb.yaml')[0]?.message ?? '', /alias bomb/);
    await assertClusterIntact(dir);
  }));

test('self-referencing aliases in postBuild.substitute and HelmRelease values are yaml-syntax errors', GUARD, () =>
  withFixture(adversarial.selfAlias(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 1, run.stderr);
    const ks = at(run, 'yaml-syntax', 'clusters/prod/apps.yaml')[0];
    const hr = at(run, 'yaml-syntax', 'apps/release.yaml')[0];
    assert.match(ks?.message ?? '', /Alias \*s refers to a node that contains it/);
    assert.match(hr?.message ?? '', /Alias \*v refers to a node that contains it/);
    assert.deepEqual([ks.line, ks.column], [16, 14]);
    const { code, tree } = await treeCli(dir);
    assert.equal(code, 0);
    assert.deepEqual(tree!.clusters.map((c) => c.name), ['prod']);
  }));

test('a 1,000-deep kustomization chain stops at the depth limit with a warning', GUARD, () =>
  (async () => {
    const run = checkMemory(adversarial.kustomizeChain(1000).files);
    assert.equal(run.code, 0, run.stderr);
    const limits = run.diagnostics.filter((d) => d.rule === 'analysis-limit');
    assert.equal(limits.length, 1);
    assert.match(limits[0].message, new RegExp(`more than ${MAX_KUSTOMIZE_DEPTH} levels`));
    assertTreeIntact(treeMemory(run.repo));
  })());

test('3,000 nested Kustomizations stop at the nesting limit with a warning', GUARD, () =>
  (async () => {
    const run = checkMemory(adversarial.nestedKustomizations(3000).files);
    assert.equal(run.code, 0, run.stderr);
    const limits = run.diagnostics.filter((d) => d.rule === 'analysis-limit');
    assert.equal(limits.length, 1);
    assert.match(limits[0].message, new RegExp(`more than ${MAX_KUSTOMIZATION_NESTING} levels`));
    assertTreeIntact(treeMemory(run.repo));
  })());

test('a 2,000-member dependsOn ring is reported on each member with a bounded message', GUARD, () =>
  (async () => {
    const run = checkMemory(adversarial.dependsOnRing(2000).files);
    assert.equal(run.code, 1, run.stderr);
    const cycles = run.diagnostics.filter((d) => d.rule === 'depends-on-cycle');
    assert.equal(cycles.length, 2000);
    assert.match(cycles[0].message, /-> … 1,992 more -> flux-system\/r\d+ \(2,000 Kustomizations depend on each other here\)/);
    for (const d of run.diagnostics) {
      assert.ok(d.message.length < 1000, `message of ${d.message.length} characters`);
      assert.ok(d.related.length <= 16);
    }
    // 214 MB of JSON at 1,000 members before; now linear in the members.
    assert.ok(run.stdout.length < 5_000_000, `${run.stdout.length} bytes of JSON`);
    assertTreeIntact(treeMemory(run.repo));
  })());

test('a folder listed twice at each of 22 levels is expanded once per level', GUARD, () =>
  (async () => {
    const run = checkMemory(adversarial.doubledListing(22).files);
    const model = run.repo.model();
    // One expansion per folder and Kustomization: 22 levels, the apps and cluster folders.
    assert.ok(model.expansionsComputed <= 30, `${model.expansionsComputed} expansions`);
    const apps = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
    assert.equal(apps.applies.length, 23, 'each ConfigMap once');
    const twice = run.diagnostics.filter((d) => /listed twice/.test(d.message));
    assert.equal(twice.length, 21);
    assert.equal(twice[0].severity, 'error');
  })());

test('a million empty documents are capped at the document limit', GUARD, () =>
  (async () => {
    const run = checkMemory(adversarial.millionDocuments(1_000_000).files);
    assert.equal(run.code, 0, run.stderr);
    const [d] = at(run, 'file-too-large', 'apps/empty.yaml');
    assert.match(d?.message ?? '', /more than 10,000 YAML documents/);
    assert.equal(d.line, 10_001);
    assert.equal(run.repo.workspace.files.get('/repo/apps/empty.yaml')!.docs.length, 10_000);
    assertTreeIntact(treeMemory(run.repo));
  })());

for (const specPath of ['./', '..', '/', './clusters']) {
  test(`spec.path '${specPath}' above the Kustomization's own file is an apply-cycle error and the cluster stays`, GUARD, () =>
    withFixture(ancestorPath(specPath), async (dir) => {
      const run = await checkCli(dir);
      assert.equal(run.code, 1, run.stderr);
      const [d] = at(run, 'apply-cycle', 'clusters/prod/apps.yaml');
      assert.equal(d?.severity, 'error');
      assert.equal(d.line, 8, 'on spec.path');
      assert.match(d.message, /^spec.path .* includes Kustomization flux-system\/flux-system, which applies this one: point spec.path at .*\n.*they apply each other/);
      assert.equal(d.related[0]?.file, 'clusters/prod/flux-system/gotk-sync.yaml');
      const { tree } = await treeCli(dir);
      assert.deepEqual(tree!.clusters.map((c) => [c.name, c.root.name]), [['prod', 'flux-system']]);
    }));
}
