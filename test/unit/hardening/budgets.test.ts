import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { BASE, withFixture } from './adversarial';
import { runCliCaptured } from '../helpers';
import { adversarialBudgets } from './adversarialBudgets';
import { treeCli } from './cli';
import type { CliDiagnostic } from '../../../src/cli/commands/check';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { memoryHost } from '../../../src/core/workspace/host';
import { checkModel } from '../../../src/core/checks/index';
import { Folder } from '../../../src/engine/folder';
import { setWasmPoolSize, wasmModule, WASM_MEMORY_BUDGET_BYTES } from '../../../src/engine/wasm/pool';

/**
 * Budgets per command (issue 23): inputs under every per-file and per-build limit that multiply
 * into more memory or time than a command may take. Each test sets a small budget (flags the
 * user gives) so that it stays quick; past a budget the work stops with an `analysis-limit`
 * finding naming it. The timeout is a guard against a hang, not a speed target.
 */
const GUARD = { timeout: 120_000 };

type Run = Awaited<ReturnType<typeof runCliCaptured>>;

/** The CLI in-process with an empty environment (no HOME: no build cache of an earlier run). */
const cli = (args: string[], dir: string) => runCliCaptured(args, dir);

async function check(dir: string, ...limits: string[]): Promise<Run & { diagnostics: CliDiagnostic[] }> {
  const run = await cli(['check', dir, '--format', 'json', ...limits], dir);
  assert.notEqual(run.code, 2, run.stderr);
  return { ...run, diagnostics: (JSON.parse(run.stdout) as { diagnostics: CliDiagnostic[] }).diagnostics };
}

const limitsAt = (diagnostics: CliDiagnostic[], file: string) => diagnostics.filter((d) => d.rule === 'analysis-limit' && d.file === file);

test('past the read budget, manifests are not read and the first one left out says so', GUARD, () =>
  withFixture(adversarialBudgets.manyLargeFiles(6, 600_000), async (dir) => {
    const run = await check(dir, '--max-read-mb', '2');
    assert.equal(run.code, 0, run.stderr);
    const limits = run.diagnostics.filter((d) => d.rule === 'analysis-limit');
    // Three files fit in 2 MB (with the small ones): the fourth is the first not read.
    const [read] = limitsAt(limits, 'apps/big/f03.yaml');
    assert.match(read?.message ?? '', /reached the 2 MB read budget .*--max-read-mb.* This file and 2 more manifest file\(s\) were not read/);
    assert.equal(read.severity, 'warning');
    // The build of `apps` (which holds them) is given no more either, and says which it lacks.
    const [build] = limitsAt(limits, 'clusters/prod/apps.yaml');
    assert.match(build?.message ?? '', /Kustomization flux-system\/apps: [^]*These files were not given to the build:\n {2}apps\/big\/f03\.yaml \(the build's files would exceed 2 MB together\)/);
    assert.equal(limits.length, 2, JSON.stringify(limits));
    const { code, tree } = await treeCli(dir);
    assert.equal(code, 0);
    assert.ok(tree!.kustomizations.some((k) => k.name === 'apps' && k.cluster === 'prod'), 'the cluster is still analysed');
  }));

test('the read budget bounds what a workspace holds parsed', GUARD, () =>
  withFixture(adversarialBudgets.manyLargeFiles(6, 600_000), async (dir) => {
    const repo = new Repo(dir, diskHost, {}, { readBytes: 2 * 1024 * 1024 });
    const held = [...repo.workspace.files.values()].reduce((n, f) => n + f.text.length, 0);
    assert.ok(held <= 2 * 1024 * 1024, `${held} bytes held`);
    assert.equal(repo.workspace.notRead.get(`${dir}/apps/big/f03.yaml`)?.notRead, 'over-budget');
    assert.ok(!repo.workspace.files.has(`${dir}/apps/big/f05.yaml`));
  }));

test('substitution amplification stops at the budget: check reports it, build exits with the reason', GUARD, () =>
  // The input: a 1 MB variable used 400 times (400 MB), against the default budgets.
  withFixture(adversarialBudgets.substitutionAmplification(400, 1e6, 8), async (dir) => {
    const run = await check(dir);
    assert.equal(run.code, 0, run.stderr);
    const [d] = limitsAt(run.diagnostics, 'clusters/prod/apps.yaml');
    assert.match(d?.message ?? '', /Kustomization flux-system\/apps: post-build substitution stopped at 'ConfigMap\/amp\d'.*past the 64 MB substitution budget of one Kustomization/);
    const build = await cli(['build', 'ks', 'apps', '-n', 'flux-system', dir], dir);
    // A budget is the tool's limit, not the repository's fault: the command could not answer.
    assert.equal(build.code, 2);
    assert.equal(build.stdout, '');
    assert.match(build.stderr, /^gitops-preview build: Kustomization flux-system\/apps: post-build substitution stopped at .*substitution budget/);
  }));

test('the substitution budget is shared by all the builds of a command', GUARD, () =>
  withFixture(
    (() => {
      // Six Kustomizations over the same folder, each substituting 200 KB: under the per-build
      // budget (a quarter of 1 MB), 1.2 MB together, so the sixth goes past the 1 MB total.
      const one = adversarialBudgets.substitutionAmplification(2, 100_000, 2);
      const apps = one.files['clusters/prod/apps.yaml'];
      return { files: { ...one.files, 'clusters/prod/apps.yaml': Array.from({ length: 6 }, (_, i) => apps.replace('name: apps', `name: apps${i}`)).join('---\n') } };
    })(),
    async (dir) => {
      const run = await check(dir, '--max-substitution-mb', '1');
      const limits = limitsAt(run.diagnostics, 'clusters/prod/apps.yaml');
      assert.equal(limits.length, 1, JSON.stringify(run.diagnostics));
      assert.match(limits[0].message, /the substitutions of this command would produce up to 1\.\d MB, past the 1 MB substitution budget of all builds together/);
    },
  ),
);

test('once the build-time budget is spent, each Kustomization left unbuilt is reported', GUARD, () =>
  withFixture(adversarialBudgets.slowBuild(3, 20, 20), async (dir) => {
    const run = await check(dir, '--max-build-seconds', '0.001');
    // On a busy machine a build may also reach its own time limit (a build-failed error, exit 1).
    assert.notEqual(run.code, 2, run.stderr);
    const limits = run.diagnostics.filter((d) => d.rule === 'analysis-limit');
    // Whether the root's own build, or the small `apps` one, fits in 1 ms depends on the machine (CI
    // finished each once); the slow ones never do, and each is named, whether stopped or never started.
    // A slow one that started may also reach its own time limit first when the machine is busy (seen in
    // a CI run beside other work): then it is a build-failed finding, still named.
    for (const name of ['apps', 'slow0', 'slow1', 'slow2']) {
      const d = limits.find((l) => l.message.startsWith(`Kustomization flux-system/${name} `));
      if (name === 'apps' && !d) continue;
      const failed = run.diagnostics.find((f) => f.rule === 'build-failed' && f.message.includes(`flux-system/${name} `));
      if (!d && failed) continue;
      assert.ok(d, `${name} is reported: ${JSON.stringify(run.diagnostics)}`);
      assert.match(d.message, /(was stopped when|was not built: the builds reached) the 1 ms build-time budget of all builds together( ran out)? \(gitops-preview --max-build-seconds raises it\)/);
    }
  }));

test('a build that times out is a build-failed finding, not a silent fallback to the files', GUARD, async () => {
  const { files } = adversarialBudgets.slowBuild(1, 60, 60);
  const root = '/repo';
  const folder = new Folder(root, memoryHost(root, files), { remotes: ['https://github.com/example/fleet'] }, {});
  await folder.refine({ allowNetwork: false, timeoutMs: 50 });
  const failed = checkModel(folder.model()).diagnostics.filter((d) => d.rule === 'build-failed');
  assert.ok(
    failed.some((d) => /^Kustomization flux-system\/slow0 fails to build: kustomize \(WebAssembly\) did not finish within 0\.1 s and was stopped/.test(d.message)),
    JSON.stringify(failed.map((d) => d.message)),
  );
});

test('a build that throws on the engine thread is that build\'s failure; the others go on', GUARD, async () => {
  // More nested defaults than the call stack holds: the substitution itself throws.
  const nested = `${'${a:='.repeat(20_000)}x${'}'.repeat(20_000)}`;
  const files = {
    ...BASE,
    'clusters/prod/apps.yaml': `${BASE['clusters/prod/apps.yaml']}  postBuild:\n    substitute:\n      b: c\n`,
    'apps/deep.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  namespace: default\ndata:\n  v: "${nested}"\n`,
  };
  const root = '/repo';
  const folder = new Folder(root, memoryHost(root, files), { remotes: ['https://github.com/example/fleet'] }, {});
  const result = await folder.refine({ allowNetwork: false });
  assert.equal(result?.pending, 0);
  const failed = checkModel(folder.model()).diagnostics.filter((d) => d.rule === 'build-failed');
  assert.ok(failed.some((d) => /flux-system\/apps/.test(d.message)), JSON.stringify(failed.map((d) => d.message)));
});

test('WebAssembly memory is one budget shared by every instance of every module', async () => {
  try {
    const kustomize = await setWasmPoolSize('kustomize', 2);
    const helm = await setWasmPoolSize('helm', 1);
    assert.ok(kustomize.memoryMaximumBytes + helm.memoryMaximumBytes <= WASM_MEMORY_BUDGET_BYTES, `${kustomize.memoryMaximumBytes} + ${helm.memoryMaximumBytes}`);
    assert.ok(kustomize.memoryMaximumBytes >= WASM_MEMORY_BUDGET_BYTES / 2, 'most of it for kustomize');
    assert.equal(wasmModule('kustomize'), kustomize);
  } finally {
    await setWasmPoolSize('kustomize', 1);
    await setWasmPoolSize('helm', 1);
  }
});

/** The CLI as a process runs it (bin entry: the command in a worker under the overall limits). */
function cliProcess(args: string[]): Promise<Run> {
  const main = path.resolve(__dirname, '../../../src/cli/main.ts');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', main, ...args], { cwd: path.resolve(__dirname, '../../..'), env: { PATH: process.env.PATH } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test('the overall time limit stops a command that its budgets let run on, with exit 2 and the reason', GUARD, () =>
  // Five builds of ~20 s each, the build-time budget lifted: only the overall limit stops it.
  withFixture(adversarialBudgets.slowBuild(5, 100, 100), async (dir) => {
    const run = await cliProcess(['check', dir, '--max-build-seconds', '100000', '--time-limit', '8']);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^gitops-preview check: stopped after 8 s, the overall time limit of a command \(--time-limit SECONDS raises it\)/);
  }));

test('the memory ceiling stops a command whose heap outgrows it, with exit 2 and the reason', GUARD, () =>
  withFixture(adversarialBudgets.manyKeyFiles(6), async (dir) => {
    const run = await cliProcess(['check', dir, '--max-memory-mb', '128']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^gitops-preview check: stopped: its work needed more than the 128 MB memory ceiling of a command \(--max-memory-mb raises it\)/);
  }));

test('under the limits, the process gives the command\'s own output and exit code', GUARD, () =>
  withFixture({ files: BASE }, async (dir) => {
    const run = await cliProcess(['check', dir, '--format', 'json', '--time-limit', '100']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { diagnostics: [], suppressed: [] });
  }));
