// HelmRelease "desired vs deployed" end to end: the fixture chart rendered with the real helm
// against the manifest helm-controller stored in the cluster. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { helmDesiredVsDeployed } from '../../src/workflows/drift';
import { Repo } from '../../src/core/repo';
import { diskHost } from '../../src/node/fsHost';
import { renderHelmRelease, toManifest } from '../../src/render';
import { stringify } from 'yaml';
import { getTestCluster, repoRoot, type TestCluster } from '../cluster/harness';
import { Engine } from '../../src/engine/engine';
import { driftClient, engineDriftContext, ensureNamespace, writeHelmRelease } from './driftSupport';

const FIXTURE = path.join(repoRoot, 'test/fixtures/drift/helm-repo');

describe('HelmRelease desired vs deployed (helm template against Helm storage)', () => {
  let cluster: TestCluster;
  const repo = new Repo(FIXTURE, diskHost, { remotes: ['https://example.com/drift-fixture.git'], sha256: (s) => createHash('sha256').update(s).digest('hex') });
  const model = repo.model();
  const hr = model.clusters.flatMap((c) => c.helmReleases).find((h) => h.applied.name === 'podinfo');
  const render = { allowNetwork: true };

  before(async () => {
    cluster = await getTestCluster();
    assert.ok(hr, 'fixture HelmRelease in the model');
    await ensureNamespace(cluster, 'drift-helm');
    // Play helm-controller: the previous revision was installed with color "blue" (chart default).
    const rendered = await renderHelmRelease(model, hr, render);
    assert.ok(rendered.ok, rendered.ok ? '' : rendered.error.message);
    const previous = rendered.value.objects.map((o) => toManifest(o)).map((o) => (o.kind === 'ConfigMap' ? { ...o, data: { color: 'blue' } } : o));
    const manifest = previous.map((o) => `---\n${stringify(o)}`).join('');
    await writeHelmRelease(cluster, { name: 'podinfo', namespace: 'drift-helm', storageNamespace: 'drift-helm', version: 4, status: 'deployed', manifest });
  });

  const engine = new Engine({ host: diskHost, buildOptions: () => ({ remotes: ['https://example.com/drift-fixture.git'], sha256: (s) => createHash('sha256').update(s).digest('hex') }), debounceMs: 0 });
  engine.open([FIXTURE]);
  const context = (render: { allowNetwork: boolean }) =>
    engineDriftContext(engine, { kind: 'HelmRelease', name: 'podinfo' }, driftClient(cluster.kubeconfig), render);

  test('the values change (color) shows before the push; the rest is unchanged', async () => {
    const res = await helmDesiredVsDeployed(await context(render));
    assert.ok(res.ok, res.ok ? '' : res.error.message);
    const v = Object.fromEntries(res.value.entries.map((e) => [e.subject, e.verdict]));
    assert.deepEqual(v, { 'ConfigMap/drift-helm/podinfo-config': 'drifted', 'Deployment/drift-helm/podinfo': 'unchanged' });
    const cm = res.value.entries.find((e) => e.id.kind === 'ConfigMap')!;
    assert.deepEqual(cm.changes, [{ path: ['data', 'color'], op: 'replace', live: 'blue', desired: 'red' }]);
    assert.equal(res.value.mode, 'helm-desired');
  });

  test('untrusted (no network): the workspace chart still renders, in-process', async () => {
    const res = await helmDesiredVsDeployed(await context({ allowNetwork: false }));
    assert.ok(res.ok, res.ok ? '' : res.error.message);
  });
});
