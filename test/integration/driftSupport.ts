// Shared setup for the drift integration tests: clients with a recognisable User-Agent, and
// helpers that play the controllers' part (real applies, status writes, Helm storage Secrets).
import assert from 'node:assert/strict';
import { ClusterClient } from '../../src/cluster/client';
import { loadKubeConfig } from '../../src/cluster/kubeconfig';
import { encodeRelease } from '../../src/cluster/helmStorage';
import type { DriftRunContext } from '../../src/workflows/drift';
import type { Engine } from '../../src/engine/engine';
import type { RenderParams } from '../../src/engine/protocol';
import { kubeRequest, type TestCluster } from '../cluster/harness';

/** Every request our code sends in these tests carries this User-Agent (the audit log check keys on it). */
export const DRIFT_UA = `gitops-preview-drift-it-${process.pid}`;

export function driftClient(kubeconfig: string, onRequest?: (method: string, path: string) => void): ClusterClient {
  const loaded = loadKubeConfig({ kubeconfigPath: kubeconfig, env: {} });
  assert.ok(loaded.ok, loaded.ok ? '' : loaded.error.message);
  return new ClusterClient(loaded.value, { userAgent: DRIFT_UA, onRequest });
}

const PLURALS: Record<string, string> = {
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  Service: 'services',
  Namespace: 'namespaces',
  Deployment: 'deployments',
  Job: 'jobs',
  Kustomization: 'kustomizations',
  HelmRelease: 'helmreleases',
};

export function pathOf(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): string {
  const base = obj.apiVersion.includes('/') ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  const plural = PLURALS[obj.kind];
  assert.ok(plural, `no plural for ${obj.kind}`);
  const ns = obj.kind === 'Namespace' ? '' : `/namespaces/${obj.metadata.namespace}`;
  return `${base}${ns}/${plural}/${obj.metadata.name}`;
}

/** A real (not dry-run) server-side apply, as a controller would do it. Test setup only. */
export async function applyAs(cluster: TestCluster, obj: any, fieldManager: string): Promise<any> {
  const res = await kubeRequest(cluster.kubeconfig, {
    method: 'PATCH',
    path: `${pathOf(obj)}?fieldManager=${fieldManager}&force=true`,
    body: JSON.stringify(obj),
    contentType: 'application/apply-patch+yaml',
  });
  assert.ok(res.status < 300, `apply ${obj.kind}/${obj.metadata.name}: ${res.status} ${res.body}`);
  return res.json();
}

/** A merge patch by someone else (kubectl edit / scale): the drift we want to find. */
export async function editAs(cluster: TestCluster, obj: any, patch: unknown, fieldManager = 'kubectl-edit'): Promise<void> {
  const res = await kubeRequest(cluster.kubeconfig, {
    method: 'PATCH',
    path: `${pathOf(obj)}?fieldManager=${fieldManager}`,
    body: JSON.stringify(patch),
    contentType: 'application/merge-patch+json',
  });
  assert.ok(res.status < 300, `edit ${obj.kind}/${obj.metadata.name}: ${res.status} ${res.body}`);
}

export async function writeStatus(cluster: TestCluster, obj: any, status: unknown): Promise<void> {
  const res = await kubeRequest(cluster.kubeconfig, {
    method: 'PATCH',
    path: `${pathOf(obj)}/status`,
    body: JSON.stringify({ status }),
    contentType: 'application/merge-patch+json',
  });
  assert.ok(res.status < 300, `status of ${obj.kind}/${obj.metadata.name}: ${res.status} ${res.body}`);
}

export async function ensureNamespace(cluster: TestCluster, name: string): Promise<void> {
  await applyAs(cluster, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, 'test-setup');
}

/** Plays helm: one storage Secret `sh.helm.release.v1.<name>.v<version>`. */
export async function writeHelmRelease(
  cluster: TestCluster,
  r: { name: string; namespace: string; storageNamespace: string; version: number; status: string; manifest: string },
): Promise<void> {
  const release = {
    name: r.name,
    namespace: r.namespace,
    version: r.version,
    info: { status: r.status, description: 'test' },
    chart: { metadata: { name: r.name, version: '1.0.0' } },
    config: {},
    manifest: r.manifest,
  };
  const secretName = `sh.helm.release.v1.${r.name}.v${r.version}`;
  await applyAs(
    cluster,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: { name: secretName, namespace: r.storageNamespace, labels: { owner: 'helm', name: r.name, status: r.status, version: String(r.version) } },
      data: { release: encodeRelease(JSON.stringify(release)) },
    },
    'helm',
  );
}

/** A drift run context over an in-process engine: the editor's and the CLI's path, minus the worker. */
export async function engineDriftContext(
  engine: Engine,
  query: { kind: string; name: string },
  client: ClusterClient,
  render: Omit<RenderParams, 'target'>,
): Promise<DriftRunContext> {
  const [target] = await engine.request('targets', query);
  assert.ok(target, `the engine has ${query.kind} ${query.name}`);
  const subject = await engine.request('driftSubject', { target });
  assert.ok(subject);
  return {
    subject,
    client,
    render: (signal) => engine.request('render', { ...render, target }, signal),
    isNamespaced: (types) => engine.request('isNamespaced', { root: target.root, types }),
  };
}
