// `gitops-preview diff` end to end: the fixture repo test/fixtures/drift/ks-repo rendered with the
// real kustomize, dry-run against the test cluster. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { runCli } from '../../src/cli/main';
import type { CliIO } from '../../src/cli/io';
import { getTestCluster, repoRoot, type TestCluster } from '../cluster/harness';
import { applyAs, editAs, ensureNamespace, writeStatus } from './driftSupport';

const FIXTURE = path.join(repoRoot, 'test/fixtures/drift/ks-repo');
const owner = { 'kustomize.toolkit.fluxcd.io/name': 'drift-apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' };

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd: repoRoot, env: { ...process.env } };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

describe('gitops-preview diff (CLI)', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await getTestCluster();
    await ensureNamespace(cluster, 'drift-cli');
    await ensureNamespace(cluster, 'flux-system');
    // What kustomize-controller applied at the previous revision…
    await applyAs(cluster, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'drift-cli', labels: owner }, data: { color: 'blue', size: 'large' } }, 'kustomize-controller');
    await applyAs(cluster, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'legacy', namespace: 'drift-cli', labels: owner }, data: {} }, 'kustomize-controller');
    const web = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'drift-cli', labels: owner },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'ghcr.io/example/web:1.0.0' }] } },
      },
    };
    await applyAs(cluster, web, 'kustomize-controller');
    // …then someone scaled the Deployment by hand.
    await editAs(cluster, web, { spec: { replicas: 1 } });
    const ks = {
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'drift-apps', namespace: 'flux-system' },
      spec: { interval: '10m', path: './apps', prune: true, targetNamespace: 'drift-cli', sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
    };
    await applyAs(cluster, ks, 'test-setup');
    await writeStatus(cluster, ks, {
      inventory: { entries: ['settings', 'legacy'].map((n) => ({ id: `drift-cli_${n}__ConfigMap`, v: 'v1' })).concat([{ id: 'drift-cli_web_apps_Deployment', v: 'v1' }]) },
    });
  });

  test('text: flux-style lines with a diff, exit 1 on drift', async () => {
    const r = await cli(['diff', 'ks', 'drift-apps', FIXTURE, '--kubeconfig', cluster.kubeconfig]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^► Deployment\/drift-cli\/web drifted$/m);
    assert.match(r.stdout, /^\s+-\s+replicas: 1$/m);
    assert.match(r.stdout, /^\s+\+\s+replicas: 3$/m);
    assert.match(r.stdout, /^► ConfigMap\/drift-cli\/legacy deleted$/m);
    assert.doesNotMatch(r.stdout, /settings/, 'unchanged objects are not listed');
    assert.match(r.stdout, /1 drifted, 1 deleted, 1 unchanged/);
  });

  test('json: verdicts and changed paths', async () => {
    const r = await cli(['diff', 'ks', 'drift-apps', FIXTURE, '-n', 'flux-system', '--kubeconfig', cluster.kubeconfig, '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    const v = Object.fromEntries(out.entries.map((e: { subject: string; verdict: string }) => [e.subject, e.verdict]));
    assert.deepEqual(v, { 'ConfigMap/drift-cli/settings': 'unchanged', 'Deployment/drift-cli/web': 'drifted', 'ConfigMap/drift-cli/legacy': 'deleted' });
    const web = out.entries.find((e: { subject: string }) => e.subject === 'Deployment/drift-cli/web');
    assert.deepEqual(web.changes, [{ path: '/spec/replicas', op: 'replace', live: 1, desired: 3 }]);
  });

  test('read-only credentials: exit 2 with the forbidden message', async () => {
    const r = await cli(['diff', 'ks', 'drift-apps', FIXTURE, '--kubeconfig', cluster.readonlyKubeconfig]);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /^✗ Deployment\/drift-cli\/web dry-run failed \(Forbidden\): .*cannot patch/m);
  });

  test('unknown Kustomization: exit 2 naming what was looked for', async () => {
    const r = await cli(['diff', 'ks', 'nope', FIXTURE, '--kubeconfig', cluster.kubeconfig]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Kustomization flux-system\/nope is not applied by any cluster/);
  });
});
