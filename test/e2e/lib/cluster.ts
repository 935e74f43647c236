/**
 * The scenarios' side of the test cluster: read objects, and play a Flux controller by writing
 * status through the status subresource (no controllers run in the test cluster).
 */
import { kubeRequest } from '../../cluster/harness';

export type Obj = Record<string, any>;

export async function getObject(kubeconfig: string, path: string): Promise<Obj | undefined> {
  const res = await kubeRequest(kubeconfig, { path });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
  return res.json();
}

export function kustomizationPath(namespace: string, name: string): string {
  return `/apis/kustomize.toolkit.fluxcd.io/v1/namespaces/${namespace}/kustomizations/${name}`;
}

/**
 * What kustomize-controller does with a reconcile request: records the handled request in
 * status.lastHandledReconcileAt and reports Ready with a fresh observedGeneration.
 */
export async function acknowledgeReconcile(kubeconfig: string, path: string, requestedAt: string, generation: number): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const body = {
    status: {
      lastHandledReconcileAt: requestedAt,
      observedGeneration: generation,
      conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Applied revision: main@sha1:0123456789abcdef0123456789abcdef01234567', lastTransitionTime: now, observedGeneration: generation }],
    },
  };
  const res = await kubeRequest(kubeconfig, {
    method: 'PATCH',
    path: `${path}/status`,
    body,
    contentType: 'application/merge-patch+json',
  });
  if (res.status >= 300) throw new Error(`status of ${path}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
}
