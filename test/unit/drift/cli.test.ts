import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { runCliCaptured } from '../helpers';

const root = path.resolve(__dirname, '../../..');
const fixture = path.join(root, 'test/fixtures/drift/ks-repo');

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCliCaptured(args, root, env);
}

describe('gitops-preview diff: arguments (no cluster)', () => {
  test('bad kind, bad format, bad mode: exit 2 with the reason', async () => {
    assert.match((await cli(['diff', 'gitrepo', 'x'])).stderr, /unknown kind 'gitrepo' \(use ks or hr\)/);
    assert.match((await cli(['diff', 'ks', 'x', '--format', 'yaml'])).stderr, /--format must be text or json/);
    assert.match((await cli(['diff', 'ks', 'x', '--mode', 'desired'])).stderr, /--mode applies to HelmReleases only/);
    assert.match((await cli(['diff', 'ks', 'x', '--concurrency', '0'])).stderr, /--concurrency must be an integer from 1 to 64/);
    assert.equal((await cli(['diff', 'ks'])).code, 2);
  });

  test('a Kustomization not in the workspace is named, with the clusters found', async () => {
    const r = await cli(['diff', 'ks', 'missing', fixture, '-n', 'apps']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Kustomization apps\/missing is not applied by any cluster in this repository \(clusters: test\)/);
  });

  test('no usable kubeconfig: exit 2 saying so, before any request', async () => {
    const r = await cli(['diff', 'ks', 'drift-apps', fixture, '--kubeconfig', path.join(root, 'test/fixtures/drift/does-not-exist.yaml')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /gitops-preview diff: .*does-not-exist\.yaml/);
  });
});
