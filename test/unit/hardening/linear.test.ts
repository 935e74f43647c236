import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withFixture } from './adversarial';
import { adversarialLinear } from './adversarialLinear';
import { checkCli, checkMemory, treeCli, treeMemory, type CheckRun } from './cli';
import type { TreeJson } from '../../../src/core/tree/treeData';
import { checkModel } from '../../../src/core/checks/index';
import { buildDependencyGraph } from '../../../src/core/graph/index';
import { MAX_SUBSTITUTION_DEPTH, parseTemplate } from '../../../src/core/substitution/parse';
import { runCli } from '../../../src/cli/main';
import { parseSourceFile, parseYaml } from '../../../src/core/yaml/document';

/**
 * Hostile repositories whose cost grew with the square of their size or with their nesting: each
 * must now finish, say what it could not read at the file, and keep analysing the rest. A hang in
 * old code fails through the per-test timeout (a guard, not a speed target).
 */
const GUARD = { timeout: 120_000 };

function at(run: CheckRun, rule: string, file: string): CheckRun['diagnostics'] {
  return run.diagnostics.filter((d) => d.rule === rule && d.file === file);
}

/** The `prod` cluster and its `apps` Kustomization are still in the tree. */
async function treeOf(dir: string): Promise<TreeJson> {
  const { code, tree, stderr } = await treeCli(dir);
  assert.equal(code, 0, stderr);
  assertTreeIntact(tree!);
  return tree!;
}

function assertTreeIntact(tree: TreeJson): void {
  assert.deepEqual(tree.clusters.map((c) => c.name), ['prod']);
  assert.equal(tree.kustomizations.find((k) => k.name === 'apps')?.cluster, 'prod');
}

test('a GitRepository url with a 500 KB run of slashes is compared with the remotes in linear time', GUARD, () =>
  withFixture(adversarialLinear.gitUrlSlashes(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    const tree = await treeOf(dir);
    assert.equal(tree.kustomizations.find((k) => k.name === 'slashes')?.cluster, 'prod', 'the Kustomization reading it is analysed');
  }));

test('a .sourceignore line with a 500 KB run of blanks is trimmed in linear time', GUARD, () =>
  withFixture(adversarialLinear.sourceignoreBlanks(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    await treeOf(dir);
  }));

test('a metadata.name with a 500 KB run of blanks is read in linear time', GUARD, () =>
  withFixture(adversarialLinear.headerBlanks(), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 0, run.stderr);
    await treeOf(dir);
  }));

test('a chart name with a 500 KB run of slashes is read in linear time', GUARD, () =>
  withFixture(adversarialLinear.chartSlashes(), async (dir) => {
    const run = await checkCli(dir);
    // The chart name is over the CRD's length limit: the API server would refuse the HelmRelease.
    assert.equal(run.code, 1, run.stderr);
    assert.equal(at(run, 'schema-invalid', 'apps/release.yaml')[0]?.line, 10, 'the HelmRelease is judged by its schema');
    assert.equal(at(run, 'source-not-found', 'apps/release.yaml')[0]?.line, 13, 'the HelmRelease is checked');
    await treeOf(dir);
  }));

test('a graph with 50,000 missing dependsOn entries draws each one with its finding', GUARD, () => {
  const { repo } = checkMemory(adversarialLinear.missingDependsOn(50_000).files);
  const model = repo.model();
  const diagnostics = checkModel(model).diagnostics;
  assert.equal(diagnostics.filter((d) => d.rule === 'depends-on-not-found').length, 50_000);
  const [cluster] = buildDependencyGraph(model, diagnostics).clusters;
  assert.equal(cluster.nodes.filter((n) => n.missing).length, 50_000);
  const dependsOn = cluster.edges.filter((e) => e.type === 'dependsOn');
  assert.equal(dependsOn.length, 50_000);
  assert.ok(dependsOn.every((e) => e.problem?.rule === 'depends-on-not-found'), 'each edge carries its finding');
  const apps = cluster.nodes.find((n) => n.id === 'Kustomization/flux-system/apps')!;
  assert.equal(apps.problems?.filter((p) => p.rule === 'depends-on-not-found').length, 50_000);
});

test('20,000 Kustomizations each depending on a missing one are each reported', GUARD, () => {
  const run = checkMemory(adversarialLinear.manyMissingDependsOn(20_000).files);
  const missing = run.diagnostics.filter((d) => d.rule === 'depends-on-not-found');
  assert.equal(missing.length, 20_000);
  assert.match(missing.find((d) => d.file === 'clusters/prod/many-3.yaml')?.message ?? '', /dependency 'flux-system\/gone-3\d{3}' not found/);
  assert.equal(treeMemory(run.repo).kustomizations.length, 20_002);
});

test('a 40,000-line .sourceignore over 20,000 files is matched by index, last rule deciding', GUARD, () => {
  const run = checkMemory(adversarialLinear.sourceignoreLarge(40_000, 20_000).files);
  assert.equal(run.code, 0, run.stderr);
  const read = [...run.repo.workspace.files.keys()].filter((p) => p.startsWith('/repo/many/'));
  // The last line ignores the odd files; none of the 40,000 before it matches.
  assert.equal(read.length, 10_000);
  assert.ok(run.repo.workspace.files.has('/repo/many/d0x/f0.yaml'));
  assert.ok(!run.repo.workspace.files.has('/repo/many/d1x/f1.yaml'));
  assertTreeIntact(treeMemory(run.repo));
});

test(`substitutions nest up to ${MAX_SUBSTITUTION_DEPTH} levels; deeper is a finding at the value, not a stack overflow`, GUARD, async () => {
  const nested = (depth: number) => '${a:='.repeat(depth) + 'x' + '}'.repeat(depth);
  assert.equal(parseTemplate(nested(MAX_SUBSTITUTION_DEPTH)).error, undefined);
  assert.match(parseTemplate(nested(MAX_SUBSTITUTION_DEPTH + 1)).error?.message ?? '', /nested more than 100 deep/);

  const repo = adversarialLinear.nestedDefaults(2000);
  const run = checkMemory(repo.files);
  const [limit] = at(run, 'substitution-invalid', 'apps/nested.yaml');
  assert.equal(limit?.severity, 'warning');
  assert.equal(limit.line, 7);
  assert.match(limit.message, /variables nested more than 100 deep/);
  // The object's other values are still checked.
  assert.match(at(run, 'substitution-undefined', 'apps/nested.yaml')[0]?.message ?? '', /\$\{missing\} is not defined/);

  await withFixture(repo, async (dir) => {
    let stderr = '';
    const code = await runCli(['build', 'ks', 'apps', '-n', 'flux-system', dir], { stdout: () => {}, stderr: (t) => (stderr += t), cwd: dir, env: {} });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /post build failed for 'ConfigMap\/nested' .*: variables nested more than 100 deep/);
  });
});

test('100,000 anchors and a flow list of 100,000 aliases are a yaml-syntax error at the file, in check and tree', GUARD, () =>
  withFixture(adversarialLinear.anchorsAndAliases(100_000), async (dir) => {
    const run = await checkCli(dir);
    assert.equal(run.code, 1, run.stderr);
    const [d] = at(run, 'yaml-syntax', 'apps/anchors.yaml');
    assert.match(d?.message ?? '', /More than 1000 YAML aliases/);
    assert.equal(d.line, 100_007, 'on the list of aliases');
    const tree = await treeOf(dir);
    assert.ok(!tree.kustomizations.some((k) => k.name === 'anchors'));
  }));

test('duplicate keys in a 250,000-key map are found by value, where the parser reported them', GUARD, () => {
  // 3 MB, under the file size limit; the parser's own check took minutes on it.
  const keys = Array.from({ length: 250_000 }, (_, i) => `  k${i}: v\n`).join('');
  const file = parseSourceFile('/repo/big.yaml', `data:\n${keys}  "k5": again\n  : a\n  ~: b\n  .nan: c\n  .nan: d\n`);
  const [doc] = file.docs;
  const problems = doc.problems.map((p) => [p.message, p.range.start.line, p.range.start.character]);
  // `"k5"` repeats k5; `~` repeats the empty key (null); NaN keys never equal each other.
  assert.deepEqual(problems, [
    ['Map keys must be unique', 250_001, 2],
    ['Map keys must be unique', 250_003, 2],
  ]);
});

test('a 100,000-key map parsed as a value (kustomization.yaml, values, kustomize output) is read in linear time', GUARD, () => {
  const keys = Array.from({ length: 100_000 }, (_, i) => `k${i}: v\n`).join('');
  assert.equal(Object.keys(parseYaml(keys) as object).length, 100_000);
  assert.throws(() => parseYaml(`${keys}k7: again\n`), /^YAMLParseError: Map keys must be unique at line 100001, column 1:/);
});
