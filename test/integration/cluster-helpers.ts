/**
 * Shared by the cluster-*.test.ts and reconcile*.test.ts files: clients with a distinct User-Agent
 * (so the audit log tells each test's requests apart), Flux objects, and a fake controller that
 * answers reconcile requests through the status subresource, as kustomize/helm/source-controller do.
 */
import * as crypto from 'node:crypto';
import type { KubeJson } from '../../src/core/kubeJson';
import { ClusterClient } from '../../src/cluster/client';
import { loadKubeConfig } from '../../src/cluster/kubeconfig';
import { fluxType } from '../../src/core/kinds';
import { REQUESTED_AT } from '../../src/core/status/requests';
import type { ObjectKey } from '../../src/workflows/reconcile';

export function clientFor(kubeconfig: string, userAgent: string, onRequest?: (method: string, path: string, body?: string) => void): ClusterClient {
  const loaded = loadKubeConfig({ kubeconfigPath: kubeconfig, env: {} });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return new ClusterClient(loaded.value, { userAgent, onRequest, timeoutMs: 10_000 });
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${crypto.randomBytes(3).toString('hex')}`;
}

export async function createNamespace(admin: ClusterClient, name: string): Promise<void> {
  const res = await admin.serverSideApply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldManager: 'test-setup', force: true });
  if (!res.ok) throw new Error(res.error.message);
}

const SPECS: Record<string, Record<string, unknown>> = {
  Kustomization: { interval: '10m', prune: true, path: './apps', sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
  HelmRelease: { interval: '10m', chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } } } },
  GitRepository: { interval: '1m', url: 'https://github.com/example/repo', ref: { branch: 'main' } },
  OCIRepository: { interval: '1m', url: 'oci://ghcr.io/example/chart' },
  HelmRepository: { interval: '1h', url: 'https://charts.example.com' },
  HelmChart: { interval: '1h', chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } },
  Bucket: { interval: '1m', bucketName: 'b', endpoint: 'minio.example.com' },
};

/** Creates (server-side apply) a Flux object with a valid default spec, merged with `spec`. */
export async function createFlux(admin: ClusterClient, kind: string, namespace: string, name: string, spec: Record<string, unknown> = {}): Promise<KubeJson> {
  const type = fluxType(kind)!;
  const res = await admin.serverSideApply(
    { apiVersion: `${type.group}/${type.version}`, kind, metadata: { name, namespace }, spec: { ...SPECS[kind], ...spec } },
    { fieldManager: 'test-setup', force: true },
  );
  if (!res.ok) throw new Error(`create ${kind} ${namespace}/${name}: ${res.error.message}`);
  return res.value;
}

export type Verdict = { status: 'True' | 'False' | 'Unknown'; message: string; reason?: string };

/** Writes status as a controller would: handled token, observed generation, Ready condition. */
export async function writeStatus(admin: ClusterClient, key: ObjectKey, verdict: Verdict, handled?: string, extra: Record<string, unknown> = {}): Promise<void> {
  const type = fluxType(key.kind)!;
  const current = await admin.getObject(type, key.namespace, key.name);
  if (!current.ok) throw new Error(current.error.message);
  const gen = current.value.metadata?.generation ?? 1;
  const status: Record<string, unknown> = {
    observedGeneration: gen,
    conditions: [
      {
        type: 'Ready',
        status: verdict.status,
        reason: verdict.reason ?? (verdict.status === 'True' ? 'ReconciliationSucceeded' : verdict.status === 'False' ? 'ReconciliationFailed' : 'Progressing'),
        message: verdict.message,
        observedGeneration: gen,
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      },
    ],
    ...extra,
  };
  if (handled !== undefined) status.lastHandledReconcileAt = handled;
  const res = await admin.patchStatus(type, key.namespace, key.name, { status });
  if (!res.ok) throw new Error(res.error.message);
}

export interface FakeController {
  /** Tokens handled, in order, as "Kind ns/name=token". */
  handled: string[];
  stop(): Promise<void>;
}

/**
 * Plays the controller for some objects: whenever an object's requestedAt annotation differs from
 * status.lastHandledReconcileAt, first reports Ready=Unknown (reconciling) with the token, then the
 * verdict. `verdict` may depend on the object; returning undefined leaves the request unhandled.
 */
export function fakeController(
  admin: ClusterClient,
  keys: ObjectKey[],
  verdict: (key: ObjectKey, obj: KubeJson) => Verdict | undefined,
  opts: { intervalMs?: number } = {},
): FakeController {
  const handled: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const key of keys) {
        const type = fluxType(key.kind)!;
        const obj = await admin.getObject(type, key.namespace, key.name);
        if (!obj.ok) continue;
        const token = obj.value.metadata?.annotations?.[REQUESTED_AT];
        if (!token || obj.value.status?.lastHandledReconcileAt === token) continue;
        const v = verdict(key, obj.value);
        if (!v) continue;
        await writeStatus(admin, key, { status: 'Unknown', message: 'Reconciliation in progress', reason: 'Progressing' }, token);
        await new Promise((r) => setTimeout(r, 30));
        // Recorded before the verdict is visible: a caller that sees it may check `handled` at once.
        handled.push(`${key.kind} ${key.namespace}/${key.name}=${token}`);
        await writeStatus(admin, key, v, token);
      }
      await new Promise((r) => setTimeout(r, opts.intervalMs ?? 40));
    }
  })();
  return {
    handled,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}
