/**
 * Helm's release storage (secret driver, the one helm-controller uses): Secrets named
 * `sh.helm.release.v1.<release>.v<N>` labelled owner=helm, name=<release>, whose `data.release`
 * is base64 (the Secret encoding) of base64 of gzip of the release JSON.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { parseReleaseJson, type HelmReleaseRecord } from '../core/drift';
import type { KubeJson } from '../core/kubeJson';
import type { ClusterClient } from './client';
import { fail, ok, type Result } from '../core/result';
import { clusterError, type ClusterError } from './errors';

/** Releases bigger than this are not inflated (helm's own limit for a Secret is 1 MiB compressed). */
const MAX_RELEASE_BYTES = 64 * 1024 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b, 0x08];

/** `data.release` of a storage Secret → release JSON text. */
export function decodeRelease(secretDataRelease: string): Result<string, ClusterError> {
  try {
    const helmEncoded = Buffer.from(secretDataRelease, 'base64').toString('utf8');
    const raw = Buffer.from(helmEncoded, 'base64');
    if (raw.length === 0) return fail(clusterError('invalid', 'empty release data'));
    const gz = GZIP_MAGIC.every((b, i) => raw[i] === b);
    const text = (gz ? gunzipSync(raw, { maxOutputLength: MAX_RELEASE_BYTES }) : raw).toString('utf8');
    return ok(text);
  } catch (e) {
    return fail(clusterError('invalid', `release data cannot be decoded: ${(e as Error).message}`));
  }
}

/** Inverse of decodeRelease (what helm writes); used by tests that play helm's part. */
export function encodeRelease(releaseJson: string): string {
  const helmEncoded = gzipSync(Buffer.from(releaseJson, 'utf8')).toString('base64');
  return Buffer.from(helmEncoded, 'utf8').toString('base64');
}

export function isReleaseSecret(s: KubeJson, releaseName: string): boolean {
  const labels = s.metadata?.labels ?? {};
  if (labels.owner === 'helm' && labels.name === releaseName) return true;
  return new RegExp(`^sh\\.helm\\.release\\.v1\\.${releaseName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.v\\d+$`).test(s.metadata?.name ?? '');
}

export interface StoredReleases {
  records: HelmReleaseRecord[];
  /** Storage Secrets that could not be read, with why. */
  problems: string[];
}

/** Every stored revision of a release (one list of the namespace's Secrets; values never leave this function except the manifest). */
export async function readReleases(
  client: ClusterClient,
  storageNamespace: string,
  releaseName: string,
  opts: { signal?: AbortSignal } = {},
): Promise<Result<StoredReleases, ClusterError>> {
  const list = await client.listObjects('', 'v1', 'secrets', storageNamespace, opts);
  if (!list.ok) return list;
  const records: HelmReleaseRecord[] = [];
  const problems: string[] = [];
  for (const s of list.value.items) {
    if (!isReleaseSecret(s, releaseName)) continue;
    const name = s.metadata?.name ?? '?';
    const data = (s as { data?: Record<string, string> }).data?.release;
    if (typeof data !== 'string') {
      problems.push(`Secret ${storageNamespace}/${name} has no data.release`);
      continue;
    }
    const json = decodeRelease(data);
    if (!json.ok) {
      problems.push(`Secret ${storageNamespace}/${name}: ${json.error.message}`);
      continue;
    }
    const rec = parseReleaseJson(json.value, `Secret ${storageNamespace}/${name}`);
    if (!rec.ok) problems.push(rec.error);
    else if (rec.value.name === releaseName) records.push(rec.value);
  }
  return ok({ records, problems });
}
