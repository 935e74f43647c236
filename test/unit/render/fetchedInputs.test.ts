import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withoutFetchedInputs } from '../../../src/core/flux/fetchedInputs';
import { runCliCaptured } from '../helpers';

const FIXTURE = path.resolve(__dirname, '../../fixtures/roots/remotegen');

test('generator inputs kustomize-controller downloads become empty literals of the same key; env files are dropped', () => {
  const config = {
    resources: ['ks.yaml'],
    configMapGenerator: [
      { name: 'dash', files: ['local.json', 'cluster.json=https://example.com/a/b.json', 'https://example.com/x/logs.json'], literals: ['a=b'] },
      { name: 'env', envs: ['https://example.com/e.env', 'local.env'] },
      { name: 'plain', files: ['only.json'] },
    ],
  };
  assert.deepEqual(withoutFetchedInputs(config), {
    resources: ['ks.yaml'],
    configMapGenerator: [
      { name: 'dash', files: ['local.json'], literals: ['a=b', 'cluster.json=', 'logs.json='] },
      { name: 'env', envs: ['local.env'] },
      { name: 'plain', files: ['only.json'] },
    ],
  });
  assert.equal(withoutFetchedInputs({ configMapGenerator: [{ name: 'plain', files: ['only.json'] }] }), undefined);
});

test('a root whose build includes a generator file given by URL still builds: its patches give the children their source (repro remotegen)', async () => {
  // A fresh build cache: a build cached before this change (same files, same version) would be the old failure.
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'gp-fetched-'));
  const before = process.env.GITOPS_PREVIEW_CACHE;
  process.env.GITOPS_PREVIEW_CACHE = cache;
  try {
    const { code, stdout } = await runCliCaptured(['tree', FIXTURE, '--format', 'json'], FIXTURE);
    assert.equal(code, 0);
    const json = JSON.parse(stdout);
    assert.deepEqual(json.unapplied, []);
    const check = await runCliCaptured(['check', FIXTURE, '--format', 'json'], FIXTURE);
    const rules = JSON.parse(check.stdout).diagnostics.map((d: { rule: string }) => d.rule);
    assert.ok(!rules.includes('build-failed'), rules.join(','));
    assert.ok(!rules.includes('schema-invalid'), rules.join(','));
  } finally {
    if (before === undefined) delete process.env.GITOPS_PREVIEW_CACHE;
    else process.env.GITOPS_PREVIEW_CACHE = before;
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
