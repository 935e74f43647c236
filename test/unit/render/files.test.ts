/**
 * The file set a build is given (src/render/files.ts): files other than manifests are bounded one
 * by one and together, so a repository holding large files cannot exhaust memory; a build that
 * fails without them says which were left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { workspaceView } from '../../../src/core/model/view';
import { diskHost } from '../../../src/node/fsHost';
import { InputBudget, viewFiles } from '../../../src/render/files';
import { renderKustomization } from '../../../src/render/index';

const MB = 1024 * 1024;

function withRepo(files: Record<string, string | Buffer>, fn: (root: string) => Promise<void> | void): Promise<void> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-budget-')));
  for (const [rel, data] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), data);
  }
  return Promise.resolve(fn(root)).finally(() => fs.rmSync(root, { recursive: true, force: true }));
}

const ks = (name: string, p: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ${p}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

test('a file over the per-file limit is left out of the set and named; the rest is given byte for byte', () =>
  withRepo({ 'app/big.bin': Buffer.alloc(2 * MB, 1), 'app/small.bin': Buffer.from([0, 255, 1]), 'app/kustomization.yaml': 'resources: []\n' }, (root) => {
    const ws = new Repo(root, diskHost, { sha256: (s) => s }).model().workspace;
    const budget = new InputBudget(1 * MB, 64 * MB);
    const files = viewFiles(ws, workspaceView(ws), new Map(), budget);
    const byPath = new Map(files.map((f) => [f.path, f.data]));
    assert.ok(!byPath.has('app/big.bin'));
    assert.deepEqual([...(byPath.get('app/small.bin') as Buffer)], [0, 255, 1]);
    assert.ok(byPath.has('app/kustomization.yaml'));
    assert.deepEqual(budget.skipped, ['app/big.bin (2 MB, over the 1 MB limit for one file)']);
  }));

test('files past the total limit are left out and named', () =>
  withRepo({ 'a/one.bin': Buffer.alloc(600 * 1024), 'a/two.bin': Buffer.alloc(600 * 1024) }, (root) => {
    const ws = new Repo(root, diskHost, { sha256: (s) => s }).model().workspace;
    const budget = new InputBudget(1 * MB, 1 * MB);
    const files = viewFiles(ws, workspaceView(ws), new Map(), budget);
    assert.equal(files.length, 1);
    assert.equal(budget.skipped.length, 1);
    assert.match(budget.skipped[0], /^a\/(one|two)\.bin \(the build's files would exceed 1 MB together\)$/);
    assert.match(budget.describe()!, /These files were not given to the build:\n {2}a\/(one|two)\.bin/);
  }));

test('a build that reads a file over the limit fails and names it (5 MB, as manifests)', () =>
  withRepo(
    {
      'clusters/prod/apps.yaml': ks('apps', './apps'),
      'apps/kustomization.yaml': 'configMapGenerator: [{name: dashboards, files: [huge.json]}]\n',
      'apps/huge.json': Buffer.alloc(6 * MB, 0x20),
    },
    async (root) => {
      const model = new Repo(root, diskHost, { sha256: (s) => s }).model();
      const node = model.clusters.flatMap((c) => c.kustomizations).find((k) => k.applied.name === 'apps');
      assert.ok(node, 'the Kustomization is placed');
      const r = await renderKustomization(model, node, { allowNetwork: false });
      assert.ok(!r.ok);
      assert.equal(r.error.kind, 'build-failed', r.error.message);
      assert.match(r.error.message, /huge\.json/);
      assert.match(r.error.message, /These files were not given to the build:\n {2}apps\/huge\.json \(6 MB, over the 5 MB limit for one file\)/);
    },
  ));
