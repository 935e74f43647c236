/**
 * A chart of a HelmRepository (HTTP or `type: oci`) or an OCIRepository, as source-controller
 * would fetch it, in process: resolve the version, download the package with size and time caps,
 * check its digest, unpack it into the chart cache. The cache answers first; the network is used
 * only when the caller allows it (a trusted workspace) and not offline. A resolution that can
 * change (a range, `*`, a tag such as `latest`) is redone after REFRESH_MS; an exact version or
 * a digest never is.
 */
import { createHash } from 'node:crypto';
import { cachedChart, cachedChartDir, capChartCache, chartCacheMaxBytes, readRef, storeChart, writeRef } from './cache';
import { httpGet } from './http';
import { chartEntries, indexUrl, packageUrl, pickEntry } from './helmIndex';
import { OciClient, parseOciUrl } from './oci';
import { newestMatching, parseVersion } from './semver';
import { readTarGz } from './tar';

/** source-controller's defaults: `--helm-index-max-size` 50 MiB, `--helm-chart-max-size` 10 MiB. */
export const MAX_INDEX_BYTES = 50 * 2 ** 20;
export const MAX_CHART_BYTES = 10 * 2 ** 20;
const REFRESH_MS = 10 * 60 * 1000;
const DEFAULT_TIMEOUT_MS = 120_000;

export type ChartRequest =
  /** HTTP HelmRepository: `version` is the HelmRelease's chart version (exact or a constraint). */
  | { kind: 'http'; repoUrl: string; chart: string; version?: string }
  /** HelmRepository `type: oci`: the chart is `<url>/<chart>`, its tags are versions (`+` as `_`). */
  | { kind: 'oci-helm'; url: string; chart: string; version?: string; insecure: boolean }
  /** OCIRepository (a HelmRelease `chartRef`): digest, else semver over the tags, else tag (default `latest`). */
  | { kind: 'oci-source'; url: string; tag?: string; semver?: string; digest?: string; insecure: boolean };

export interface FetchOptions {
  cacheDir: string;
  /** False: only the cache is used (an untrusted workspace, or offline). */
  allowNetwork: boolean;
  /** Why the network is not used, for the message when the chart is not cached. */
  noNetworkReason: string;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
}

export interface FetchedChart {
  dir: string;
  version: string;
  /** Hex sha256 of the package. */
  digest: string;
}

export type FetchResult = { ok: true; value: FetchedChart } | { ok: false; error: string; kind: 'not-allowed' | 'unavailable' | 'cancelled' };

export function describeRequest(r: ChartRequest): string {
  switch (r.kind) {
    case 'http':
      return `${r.chart}${r.version ? `@${r.version}` : ''} from ${r.repoUrl}`;
    case 'oci-helm':
      return `${trimSlash(r.url)}/${r.chart}${r.version ? `:${r.version}` : ''}`;
    case 'oci-source':
      return `${r.url}${r.digest ? `@${r.digest}` : r.semver ? ` (semver ${r.semver})` : `:${r.tag ?? 'latest'}`}`;
  }
}

function trimSlash(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '/') end--;
  return s.slice(0, end);
}

/** The chart cache's name for what a request resolved to. */
export function chartCacheKey(r: ChartRequest): string {
  switch (r.kind) {
    case 'http':
      return `http|${trimSlash(r.repoUrl)}|${r.chart}|${r.version ?? ''}`;
    case 'oci-helm':
      return `oci|${trimSlash(r.url)}/${r.chart}|${r.version ?? ''}`;
    case 'oci-source':
      return `oci|${r.url}|${r.digest ? `digest:${r.digest}` : r.semver ? `semver:${r.semver}` : `tag:${r.tag ?? 'latest'}`}`;
  }
}

/**
 * A digest names one package forever, and so does a full version: as a constraint `1.2.3` means
 * `=1.2.3`, while `1.2` is a range (`~1.2`) over an HTTP index. Anything else may move.
 */
function isFixed(r: ChartRequest): boolean {
  if (r.kind === 'oci-source') return !!r.digest;
  if (!r.version || r.version === '*' || !parseVersion(r.version)) return false;
  const core = r.version.split('+')[0].split('-')[0];
  return r.kind === 'oci-helm' || core.split('.').length === 3;
}

/**
 * The chart the cache holds for `request`, without the network and without marking it used: what
 * an offline fetch would answer (its resolution may be stale, as offline it would be too).
 */
export function cachedResolution(request: ChartRequest, cacheDir: string): FetchedChart | undefined {
  const known = readRef(cacheDir, chartCacheKey(request));
  const dir = known && cachedChartDir(cacheDir, known.digest);
  return known && dir ? { dir, version: known.version, digest: known.digest } : undefined;
}

export async function fetchChart(request: ChartRequest, opts: FetchOptions): Promise<FetchResult> {
  const key = chartCacheKey(request);
  const display = describeRequest(request);
  const known = readRef(opts.cacheDir, key);
  const cached = known && cachedChart(opts.cacheDir, known.digest);
  if (known && cached && (isFixed(request) || !opts.allowNetwork || Date.now() - known.at < REFRESH_MS)) {
    return { ok: true, value: { dir: cached, version: known.version, digest: known.digest } };
  }
  if (!opts.allowNetwork) {
    return { ok: false, kind: 'not-allowed', error: `chart ${display} is not in the chart cache, and ${opts.noNetworkReason} (chart cache: ${opts.cacheDir})` };
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const got = request.kind === 'http' ? await fromHttp(request, opts, timeoutMs) : await fromOci(request, opts, timeoutMs);
  if (!got.ok) {
    if (got.cancelled) return { ok: false, kind: 'cancelled', error: `the pull of chart ${display} was cancelled` };
    // A registry that cannot be reached now leaves the chart resolved before usable.
    if (known && cached) return { ok: true, value: { dir: cached, version: known.version, digest: known.digest } };
    return { ok: false, kind: 'unavailable', error: `chart ${display} cannot be fetched: ${got.error}` };
  }
  const digest = createHash('sha256').update(got.value.tgz).digest('hex');
  if (got.value.expectDigest && got.value.expectDigest !== digest) {
    return { ok: false, kind: 'unavailable', error: `chart ${display} cannot be fetched: the package's sha256 differs from the index (${got.value.from}: ${digest}, index.yaml: ${got.value.expectDigest})` };
  }
  let dir = cachedChart(opts.cacheDir, digest);
  if (!dir) {
    const files = readTarGz(got.value.tgz);
    if (!files.ok) return { ok: false, kind: 'unavailable', error: `chart ${display} (${got.value.from}) is refused: ${files.error}` };
    dir = storeChart(opts.cacheDir, digest, files.files);
    if (!dir) return { ok: false, kind: 'unavailable', error: `chart ${display} (${got.value.from}) holds no Chart.yaml, or the chart cache ${opts.cacheDir} cannot be written` };
  }
  writeRef(opts.cacheDir, key, { digest, version: got.value.version, at: Date.now() });
  capChartCache(opts.cacheDir, chartCacheMaxBytes(opts.env), dir, opts.log);
  return { ok: true, value: { dir, version: got.value.version, digest } };
}

type Downloaded = { ok: true; value: { tgz: Buffer; version: string; expectDigest?: string; from: string } } | { ok: false; error: string; cancelled?: boolean };

async function fromHttp(r: Extract<ChartRequest, { kind: 'http' }>, opts: FetchOptions, timeoutMs: number): Promise<Downloaded> {
  const idxUrl = indexUrl(r.repoUrl);
  const idx = await httpGet(idxUrl, { maxBytes: MAX_INDEX_BYTES, timeoutMs, signal: opts.signal });
  if (!idx.ok) return idx;
  if (idx.value.status !== 200) return { ok: false, error: httpRefused(idx.value.status, idxUrl) };
  const entries = chartEntries(idx.value.body.toString('utf8'), r.chart);
  if (typeof entries === 'string') return { ok: false, error: `${entries} (${idxUrl})` };
  const entry = pickEntry(entries, r.version);
  if (typeof entry === 'string') return { ok: false, error: `${entry} in ${idxUrl}` };
  const url = packageUrl(r.repoUrl, entry);
  if (!url) return { ok: false, error: `version ${entry.version} has no usable URL in ${idxUrl}` };
  const pkg = await httpGet(url, { maxBytes: MAX_CHART_BYTES, timeoutMs, signal: opts.signal });
  if (!pkg.ok) return pkg;
  if (pkg.value.status !== 200) return { ok: false, error: httpRefused(pkg.value.status, url) };
  return { ok: true, value: { tgz: pkg.value.body, version: entry.version, expectDigest: entry.digest?.toLowerCase(), from: url } };
}

function httpRefused(status: number, url: string): string {
  return status === 401 || status === 403
    ? `access refused (HTTP ${status}): the repository needs credentials, and its secretRef names a Secret in the cluster, which is not read. Tried: GET ${url} without credentials`
    : `HTTP ${status} from ${url}`;
}

async function fromOci(r: Exclude<ChartRequest, { kind: 'http' }>, opts: FetchOptions, timeoutMs: number): Promise<Downloaded> {
  const url = r.kind === 'oci-helm' ? `${trimSlash(r.url)}/${r.chart}` : r.url;
  const ref = parseOciUrl(url, r.insecure);
  if (!ref) return { ok: false, error: `'${url}' is not an oci://host/repository URL` };
  const client = new OciClient(ref, { env: opts.env, timeoutMs, signal: opts.signal });
  let reference: string;
  let version: string;
  if (r.kind === 'oci-source' && r.digest) {
    reference = version = r.digest;
  } else if (r.kind === 'oci-source' && !r.semver) {
    reference = version = r.tag ?? 'latest';
  } else {
    const wanted = r.kind === 'oci-helm' ? (r.version === '*' ? '' : (r.version ?? '')) : r.semver!;
    // source-controller: an exact version of a HelmRepository chart is pulled without listing tags.
    if (r.kind === 'oci-helm' && parseVersion(wanted)) {
      version = wanted;
    } else {
      const tags = await client.tags();
      if (!tags.ok) return tags;
      // helm stores `+` of a version as `_` in the tag.
      const versions = tags.value.map((t) => t.split('_').join('+'));
      const picked = newestMatching(versions, (v) => v, wanted, { exactFirst: r.kind === 'oci-helm' });
      if (!picked.ok) return { ok: false, error: `${picked.error} among the ${versions.length} tag(s) of ${url}` };
      version = picked.value;
    }
    reference = version.split('+').join('_');
  }
  const layer = await client.chartLayer(reference);
  if (!layer.ok) return layer;
  if (layer.value.size > MAX_CHART_BYTES) return { ok: false, error: `the chart layer is ${layer.value.size} bytes, over the ${MAX_CHART_BYTES} limit (${url})` };
  const blob = await client.blob(layer.value.digest, MAX_CHART_BYTES);
  if (!blob.ok) return blob;
  return { ok: true, value: { tgz: blob.value, version, from: `${url}@${layer.value.manifestDigest}` } };
}
