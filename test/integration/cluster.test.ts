// Smoke test of the test cluster (test/cluster): version, Flux CRDs, server-side apply dry-run,
// read-only RBAC, audit log. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { clusterScriptsDir, getTestCluster, kubeRequest, readAuditLog, type TestCluster } from '../cluster/harness';

function expectedKubeVersion(): string {
  const env = fs.readFileSync(path.join(clusterScriptsDir, 'tools-env.sh'), 'utf8');
  const m = /^GITOPS_KUBE_VERSION=(\S+)$/m.exec(env);
  assert.ok(m, 'GITOPS_KUBE_VERSION in tools-env.sh');
  return m[1];
}

const CRDS = 'apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('test cluster', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await getTestCluster();
  });

  test('/version reports the pinned kube-apiserver release', async () => {
    const res = await kubeRequest(cluster.kubeconfig, { path: '/version' });
    assert.equal(res.status, 200, res.body);
    const version = expectedKubeVersion();
    assert.match(version, /^v1\.33\.\d+$/);
    assert.equal(res.json().gitVersion, version);
    assert.equal(res.json().minor, '33');
  });

  test('Flux CRDs are Established and served', async () => {
    for (const name of [
      'kustomizations.kustomize.toolkit.fluxcd.io',
      'helmreleases.helm.toolkit.fluxcd.io',
      'gitrepositories.source.toolkit.fluxcd.io',
      'ocirepositories.source.toolkit.fluxcd.io',
      'helmrepositories.source.toolkit.fluxcd.io',
    ]) {
      const res = await kubeRequest(cluster.kubeconfig, { path: `/${CRDS}/${name}` });
      assert.equal(res.status, 200, `${name}: ${res.body}`);
      const conditions: Array<{ type: string; status: string }> = res.json().status?.conditions ?? [];
      assert.ok(
        conditions.some((c) => c.type === 'Established' && c.status === 'True'),
        `${name} Established: ${JSON.stringify(conditions)}`,
      );
    }
    const list = await kubeRequest(cluster.kubeconfig, {
      path: '/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/default/kustomizations',
    });
    assert.equal(list.status, 200, list.body);
    assert.equal(list.json().kind, 'KustomizationList');
  });

  test('server-side apply dry-run returns the object with managedFields and creates nothing', async () => {
    const name = `smoke-dry-run-${process.pid}`;
    const manifest = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: ${name}`,
      '  namespace: default',
      'data:',
      '  key: value',
      '',
    ].join('\n');
    const uri = `/api/v1/namespaces/default/configmaps/${name}?dryRun=All&fieldManager=kustomize-controller&force=true`;
    const res = await kubeRequest(cluster.kubeconfig, {
      method: 'PATCH',
      path: uri,
      body: manifest,
      contentType: 'application/apply-patch+yaml',
    });
    assert.ok(res.status === 200 || res.status === 201, `${res.status}: ${res.body}`);
    const obj = res.json();
    assert.equal(obj.metadata.name, name);
    assert.deepEqual(obj.data, { key: 'value' });
    const managers = (obj.metadata.managedFields ?? []) as Array<{ manager: string; operation: string }>;
    assert.ok(
      managers.some((m) => m.manager === 'kustomize-controller' && m.operation === 'Apply'),
      JSON.stringify(managers),
    );

    const get = await kubeRequest(cluster.kubeconfig, { path: `/api/v1/namespaces/default/configmaps/${name}` });
    assert.equal(get.status, 404, 'dry-run must not create the ConfigMap');

    const events = await readAuditLog(cluster, {
      until: (evs) => evs.some((e) => e.verb === 'patch' && e.objectRef?.name === name),
    });
    const patch = events.find((e) => e.verb === 'patch' && e.objectRef?.name === name);
    assert.ok(patch, 'the dry-run PATCH is in the audit log');
    assert.match(patch.requestURI, /dryRun=All/);
    assert.match(patch.requestURI, /fieldManager=kustomize-controller/);
    assert.equal(patch.responseStatus?.code, res.status);
    assert.equal(patch.user.username, 'gitops-preview-admin');
  });

  test('read-only user can list but not create', async () => {
    const list = await kubeRequest(cluster.readonlyKubeconfig, { path: '/api/v1/namespaces/default/configmaps' });
    assert.equal(list.status, 200, list.body);
    const crds = await kubeRequest(cluster.readonlyKubeconfig, { path: `/${CRDS}` });
    assert.equal(crds.status, 200, crds.body);

    const create = await kubeRequest(cluster.readonlyKubeconfig, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `smoke-readonly-${process.pid}` } },
    });
    assert.equal(create.status, 403, create.body);

    const dryRunApply = await kubeRequest(cluster.readonlyKubeconfig, {
      method: 'PATCH',
      path: `/api/v1/namespaces/default/configmaps/smoke-readonly?dryRun=All&fieldManager=x&force=true`,
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: smoke-readonly\n',
      contentType: 'application/apply-patch+yaml',
    });
    assert.equal(dryRunApply.status, 403, 'dry-run writes need write permission too');
  });
});
