/**
 * Helm release records (the JSON helm keeps in `sh.helm.release.v1.<name>.v<N>` Secrets, once
 * decoded — decoding is in src/cluster/helmStorage.ts because it needs gzip) and the objects of
 * their manifest, prepared the way helm-controller's drift detection prepares them.
 */
import { QUIET } from '../yaml/document';
import type { Result } from '../result';
import { parseAllDocuments } from 'yaml';
import type { KubeJson } from '../kubeJson';
import { isRecord } from './types';

export interface HelmReleaseRecord {
  readonly name: string;
  readonly namespace: string;
  readonly version: number;
  /** deployed, superseded, failed, pending-install, pending-upgrade, pending-rollback, uninstalling… */
  readonly status: string;
  readonly manifest: string;
  readonly chartName?: string;
  readonly chartVersion?: string;
}

export function parseReleaseJson(json: string, where: string): Result<HelmReleaseRecord, string> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `${where}: release is not JSON (${(e as Error).message})` };
  }
  if (!isRecord(v)) return { ok: false, error: `${where}: release is not a JSON object` };
  if (typeof v.name !== 'string' || typeof v.manifest !== 'string') {
    return { ok: false, error: `${where}: release has no name or manifest` };
  }
  const meta = isRecord(v.chart) && isRecord(v.chart.metadata) ? v.chart.metadata : {};
  return {
    ok: true,
    value: {
      name: v.name,
      namespace: typeof v.namespace === 'string' ? v.namespace : '',
      version: typeof v.version === 'number' ? v.version : Number(v.version) || 0,
      status: isRecord(v.info) && typeof v.info.status === 'string' ? v.info.status : 'unknown',
      manifest: v.manifest,
      ...(typeof meta.name === 'string' ? { chartName: meta.name } : {}),
      ...(typeof meta.version === 'string' ? { chartVersion: meta.version } : {}),
    },
  };
}

/**
 * The release helm-controller compares against: the newest release with status deployed. Returns
 * also the newest of all, so a caller can say when it is not the deployed one (a failed upgrade).
 */
export function pickDeployed(records: readonly HelmReleaseRecord[]): { deployed?: HelmReleaseRecord; latest?: HelmReleaseRecord } {
  const sorted = [...records].sort((a, b) => b.version - a.version);
  return { deployed: sorted.find((r) => r.status === 'deployed'), latest: sorted[0] };
}

/** Objects of a multi-document manifest (`List` kinds expanded); throws with the document number on bad YAML. */
export function manifestObjects(manifest: string): KubeJson[] {
  const out: KubeJson[] = [];
  parseAllDocuments(manifest, QUIET).forEach((doc, i) => {
    if (doc.errors.length) throw new Error(`manifest document ${i + 1}: ${doc.errors[0].message.split('\n')[0]}`);
    const v = doc.toJS({ maxAliasCount: 1000 });
    if (!isRecord(v)) return;
    if (typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items)) {
      for (const item of v.items) if (isRecord(item) && item.kind) out.push(item);
    } else if (typeof v.kind === 'string' && typeof v.apiVersion === 'string') {
      out.push(v);
    }
  });
  return out;
}

export const HELM_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const HELM_RELEASE_NAME = 'meta.helm.sh/release-name';
export const HELM_RELEASE_NAMESPACE = 'meta.helm.sh/release-namespace';

/**
 * Adds what helm itself sets at install time (helm-controller internal/action/diff.go
 * setHelmMetadata) and the release namespace for namespaced objects without one.
 */
export function prepareHelmObject(
  obj: KubeJson,
  release: { name: string; namespace: string },
  isNamespaced: (apiVersion: string, kind: string) => boolean,
): KubeJson {
  const o = JSON.parse(JSON.stringify(obj)) as KubeJson;
  if (!isRecord(o.metadata)) o.metadata = {};
  const m = o.metadata;
  m.labels = { ...(isRecord(m.labels) ? m.labels : {}), [HELM_MANAGED_BY]: 'Helm' };
  m.annotations = {
    ...(isRecord(m.annotations) ? m.annotations : {}),
    [HELM_RELEASE_NAME]: release.name,
    [HELM_RELEASE_NAMESPACE]: release.namespace,
  };
  if (!m.namespace && isNamespaced(String(o.apiVersion), String(o.kind))) m.namespace = release.namespace;
  return o;
}
