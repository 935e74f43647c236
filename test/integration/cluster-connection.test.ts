// Connecting: merged kubeconfigs, in-memory context selection, exec credential plugins, and a
// specific error for each way a connection fails. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { getTestCluster, type TestCluster } from '../cluster/harness';
import { ClusterClient } from '../../src/cluster/client';
import { loadKubeConfig } from '../../src/cluster/kubeconfig';
import { fluxType } from '../../src/core/kinds';
import { createFlux, createNamespace, clientFor, uniqueName } from './cluster-helpers';

type Kubeconfig = {
  clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
  users: Array<{ name: string; user: Record<string, unknown> }>;
  contexts: Array<{ name: string; context: Record<string, unknown> }>;
  'current-context'?: string;
};

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('cluster connection', () => {
  let cluster: TestCluster;
  let dir: string;
  let admin: Kubeconfig;
  let readonly: Kubeconfig;

  before(async () => {
    cluster = await getTestCluster();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-kubeconfig-'));
    admin = YAML.parse(fs.readFileSync(cluster.kubeconfig, 'utf8'));
    readonly = YAML.parse(fs.readFileSync(cluster.readonlyKubeconfig, 'utf8'));
  });

  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await cluster?.stop();
  });

  function write(name: string, config: Kubeconfig): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, YAML.stringify({ apiVersion: 'v1', kind: 'Config', ...config }));
    return file;
  }

  test('KUBECONFIG with two files merges them like kubectl; a context is selected in memory only', async () => {
    const first = write('first.yaml', {
      clusters: admin.clusters,
      users: admin.users,
      contexts: [{ name: 'admin', context: { cluster: admin.clusters[0].name, user: admin.users[0].name, namespace: 'flux-system' } }],
      'current-context': 'admin',
    });
    // The second file repeats the cluster and the admin context with bad values: the first file wins.
    const second = write('second.yaml', {
      clusters: [{ name: admin.clusters[0].name, cluster: { server: 'https://127.0.0.1:1' } }],
      users: readonly.users,
      contexts: [
        { name: 'admin', context: { cluster: 'nowhere', user: 'nobody' } },
        { name: 'readonly', context: { cluster: admin.clusters[0].name, user: readonly.users[0].name } },
      ],
      'current-context': 'readonly',
    });
    const before = [sha(first), sha(second)];
    const env = { KUBECONFIG: `${first}${path.delimiter}${path.join(dir, 'missing.yaml')}${path.delimiter}${second}` };

    const loaded = loadKubeConfig({ env });
    assert.ok(loaded.ok, !loaded.ok ? loaded.error.message : '');
    assert.equal(loaded.value.context, 'admin');
    assert.deepEqual(loaded.value.contexts, ['admin', 'readonly']);
    assert.deepEqual(loaded.value.files, [first, second]);
    assert.equal(loaded.value.server, cluster.server);
    assert.equal(loaded.value.namespace, 'flux-system');
    const adminClient = new ClusterClient(loaded.value);
    const version = await adminClient.version();
    assert.ok(version.ok, !version.ok ? version.error.message : '');
    assert.match(version.value.gitVersion, /^v1\.33\./);

    const ro = loadKubeConfig({ env, context: 'readonly' });
    assert.ok(ro.ok);
    assert.equal(ro.value.kc.getCurrentContext(), 'readonly');
    const roClient = new ClusterClient(ro.value);
    const ns = uniqueName('conn');
    await createNamespace(adminClient, ns);
    await createFlux(adminClient, 'Kustomization', ns, 'apps');
    const list = await roClient.listObjects('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations', ns);
    assert.ok(list.ok);
    assert.deepEqual(list.value.items.map((i) => i.metadata?.name), ['apps']);
    const patch = await roClient.mergePatch(fluxType('Kustomization')!, ns, 'apps', { metadata: { annotations: { a: 'b' } } });
    assert.ok(!patch.ok);
    assert.equal(patch.error.kind, 'forbidden');
    assert.equal(
      patch.error.message,
      `Forbidden: user gitops-preview-readonly cannot patch resource "kustomizations" in API group "kustomize.toolkit.fluxcd.io" in the namespace "${ns}"`,
    );

    const unknown = loadKubeConfig({ env, context: 'prod' });
    assert.ok(!unknown.ok);
    assert.equal(unknown.error.kind, 'bad-kubeconfig');
    assert.match(unknown.error.message, /Context "prod" is not in .* \(available: admin, readonly\)/);
    assert.deepEqual([sha(first), sha(second)], before, 'kubeconfig files are never written');
  });

  test('an exec credential plugin is run when allowed and refused in an untrusted workspace', async () => {
    const user = admin.users[0].user as Record<string, string>;
    const plugin = path.join(dir, 'plugin.js');
    fs.writeFileSync(
      plugin,
      `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {
        clientCertificateData: Buffer.from(${JSON.stringify(user['client-certificate-data'])}, 'base64').toString(),
        clientKeyData: Buffer.from(${JSON.stringify(user['client-key-data'])}, 'base64').toString() } }));`,
    );
    const failing = path.join(dir, 'failing.js');
    fs.writeFileSync(failing, `process.stderr.write('error: token for sso profile "dev" has expired; run login\\n'); process.exit(1);`);
    const config = (script: string): Kubeconfig => ({
      clusters: admin.clusters,
      users: [{ name: 'exec-user', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [script], interactiveMode: 'Never' } } }],
      contexts: [{ name: 'exec', context: { cluster: admin.clusters[0].name, user: 'exec-user' } }],
      'current-context': 'exec',
    });
    const file = write('exec.yaml', config(plugin));

    const refused = loadKubeConfig({ kubeconfigPath: file, env: {}, allowExec: false });
    assert.ok(!refused.ok);
    assert.equal(refused.error.kind, 'bad-kubeconfig');
    assert.match(refused.error.message, /exec credential plugin .* disabled in an untrusted workspace/);

    const allowed = loadKubeConfig({ kubeconfigPath: file, env: {}, allowExec: true });
    assert.ok(allowed.ok);
    const version = await new ClusterClient(allowed.value).version();
    assert.ok(version.ok, !version.ok ? version.error.message : '');

    const bad = loadKubeConfig({ kubeconfigPath: write('exec-failing.yaml', config(failing)), env: {}, allowExec: true });
    assert.ok(bad.ok);
    const denied = await new ClusterClient(bad.value).version();
    assert.ok(!denied.ok);
    assert.equal(denied.error.kind, 'unauthorized');
    assert.match(denied.error.message, /^Credential plugin failed \(exec credential plugin .*\): error: token for sso profile "dev" has expired; run login$/);
  });

  test('rejected credentials: unauthorized, with a message that says so', async () => {
    const file = write('token.yaml', {
      clusters: admin.clusters,
      users: [{ name: 'stale', user: { token: 'expired-token' } }],
      contexts: [{ name: 'stale', context: { cluster: admin.clusters[0].name, user: 'stale' } }],
      'current-context': 'stale',
    });
    const loaded = loadKubeConfig({ kubeconfigPath: file, env: {} });
    assert.ok(loaded.ok);
    const res = await new ClusterClient(loaded.value).listObjects('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations');
    assert.ok(!res.ok);
    assert.equal(res.error.kind, 'unauthorized');
    assert.equal(res.error.status, 401);
    assert.match(res.error.message, /^Unauthorized: the cluster rejected the credentials/);
  });

  test('an unreachable server fails fast with "connection refused"', async () => {
    const port = await freePort();
    const client = clientAt(`https://127.0.0.1:${port}`);
    const res = await client.version({ timeoutMs: 10_000 });
    assert.ok(!res.ok);
    assert.equal(res.error.kind, 'unreachable');
    assert.equal(res.error.message, `Cannot reach https://127.0.0.1:${port}: connection refused`);
  });

  test('a server that never answers times out; a pending request can be cancelled', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const client = clientAt(`https://127.0.0.1:${port}`);
      const timedOut = await client.version({ timeoutMs: 300 });
      assert.ok(!timedOut.ok);
      assert.equal(timedOut.error.kind, 'timeout');
      assert.match(timedOut.error.message, new RegExp(`^Timed out after 300ms waiting for https://127.0.0.1:${port} \\(GET /version\\)$`));

      const abort = new AbortController();
      const pending = client.listObjects('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations', undefined, { signal: abort.signal, timeoutMs: 60_000 });
      setTimeout(() => abort.abort(), 100);
      const cancelled = await pending;
      assert.ok(!cancelled.ok);
      assert.equal(cancelled.error.kind, 'cancelled');
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  test('the test cluster from the harness is reachable through the same client', async () => {
    const client = clientFor(cluster.kubeconfig, 'gitops-preview-connection-test');
    const res = await client.resourceFor('v1', 'ConfigMap');
    assert.ok(res.ok);
    assert.deepEqual(res.value, { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true });
    const missing = await client.resourceFor('example.com/v1', 'Widget');
    assert.ok(!missing.ok);
    assert.equal(missing.error.kind, 'not-found');
  });

  function clientAt(server: string): ClusterClient {
    const file = write(`at-${crypto.randomBytes(3).toString('hex')}.yaml`, {
      clusters: [{ name: 'c', cluster: { ...admin.clusters[0].cluster, server } }],
      users: admin.users,
      contexts: [{ name: 'c', context: { cluster: 'c', user: admin.users[0].name } }],
      'current-context': 'c',
    });
    const loaded = loadKubeConfig({ kubeconfigPath: file, env: {} });
    assert.ok(loaded.ok);
    return new ClusterClient(loaded.value);
  }
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
