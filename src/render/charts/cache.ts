/**
 * The chart cache the editor and the CLI share (`$GITOPS_PREVIEW_CACHE/charts`, else
 * `~/.cache/gitops-preview/charts`). Charts are stored by the sha256 of their package, unpacked:
 * `sha256-<hex>/<chart>/Chart.yaml…`, each folder written under a temp name and renamed into place,
 * never changed after, so a reader sees a whole chart or none. What a reference resolved to
 * (`refs/<hash>.json`: the digest and version a HelmRepository chart, an OCI tag or range gave) is
 * a small file written the same way. Past the size cap (GITOPS_PREVIEW_CHART_CACHE_MAX_MB, default
 * 1 GB) the charts used least recently go first. Several processes may share it: every step
 * tolerates a file appearing or vanishing under it.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { productCacheDir } from '../../node/cacheDir';
import { getOwn } from '../../core/safeRecord';
import { touch } from '../../engine/buildCacheCap';
import type { TarFile } from './tar';

export const DEFAULT_CHART_CACHE_MAX_BYTES = 1024 * 2 ** 20;
export const CHART_CACHE_MAX_ENV = 'GITOPS_PREVIEW_CHART_CACHE_MAX_MB';
const ABANDONED_TMP_MS = 10 * 60 * 1000;
const MAX_REF_BYTES = 64 * 1024;

/** The cache directory for this environment (the user's, never a repository's). */
export function defaultChartCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(productCacheDir(env), 'charts');
}

export function chartCacheMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = (getOwn(env, CHART_CACHE_MAX_ENV) as string | undefined)?.trim();
  const mb = raw ? Number(raw) : NaN;
  return Number.isFinite(mb) && mb >= 0 ? Math.floor(mb * 2 ** 20) : DEFAULT_CHART_CACHE_MAX_BYTES;
}

export interface ResolvedRef {
  /** Hex sha256 of the chart package. */
  digest: string;
  version: string;
  /** When it was resolved (ms since the epoch). */
  at: number;
}

function refFile(cacheDir: string, key: string): string {
  return path.join(cacheDir, 'refs', `${createHash('sha256').update(key).digest('hex')}.json`);
}

function writeAtomically(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

/** What `key` resolved to last, if its chart is still cached. */
export function readRef(cacheDir: string, key: string): ResolvedRef | undefined {
  try {
    const file = refFile(cacheDir, key);
    if (fs.statSync(file).size > MAX_REF_BYTES) return undefined;
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    if (v.key !== key || typeof v.digest !== 'string' || !/^[0-9a-f]{64}$/.test(v.digest) || typeof v.version !== 'string' || typeof v.at !== 'number') return undefined;
    return { digest: v.digest, version: v.version, at: v.at };
  } catch {
    return undefined;
  }
}

export function writeRef(cacheDir: string, key: string, ref: ResolvedRef): void {
  try {
    writeAtomically(refFile(cacheDir, key), JSON.stringify({ key, ...ref }));
  } catch {
    // A cache that cannot be written costs a download next time, nothing else.
  }
}

/** The unpacked chart of package `digest` (hex), marked as just used; undefined when not cached. */
export function cachedChart(cacheDir: string, digest: string): string | undefined {
  const found = cachedChartDir(cacheDir, digest);
  if (found) touch(path.dirname(found));
  return found;
}

/** The unpacked chart of package `digest` (hex), left as it is (a look, not a use); undefined when not cached. */
export function cachedChartDir(cacheDir: string, digest: string): string | undefined {
  const dir = path.join(cacheDir, `sha256-${digest}`);
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'Chart.yaml'))) return path.join(dir, e.name);
    }
  } catch {
    // Not cached.
  }
  return undefined;
}

/**
 * Writes the package's files under their digest (temp folder, then rename) and returns the chart
 * folder; another process that stored the same digest first wins, with identical content.
 */
export function storeChart(cacheDir: string, digest: string, files: readonly TarFile[]): string | undefined {
  const existing = cachedChart(cacheDir, digest);
  if (existing) return existing;
  if (!files.some((f) => f.path.split('/').length === 2 && f.path.endsWith('/Chart.yaml'))) return undefined;
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = path.join(cacheDir, `.tmp-${digest.slice(0, 12)}-${randomBytes(6).toString('hex')}`);
  try {
    for (const f of files) {
      const target = path.join(tmp, ...f.path.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, f.data, { flag: 'wx' });
    }
    fs.renameSync(tmp, path.join(cacheDir, `sha256-${digest}`));
  } catch {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return cachedChart(cacheDir, digest);
}

function dirBytes(dir: string, budget: { entries: number }): number {
  let total = 0;
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of names) {
    if (--budget.entries < 0) break;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p, budget);
    else if (e.isFile()) {
      try {
        total += fs.statSync(p).size;
      } catch {
        // Vanished.
      }
    }
  }
  return total;
}

/** Deletes the charts used least recently until the cache holds at most `maxBytes`; `keep` goes last. */
export function capChartCache(cacheDir: string, maxBytes: number, keep?: string, log?: (message: string) => void): void {
  const charts: { dir: string; bytes: number; usedMs: number }[] = [];
  let total = 0;
  let names: string[];
  try {
    names = fs.readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    const dir = path.join(cacheDir, name);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(dir);
    } catch {
      continue;
    }
    if (name.startsWith('.tmp-')) {
      if (Date.now() - stat.mtimeMs > ABANDONED_TMP_MS) fs.rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (!name.startsWith('sha256-') || !stat.isDirectory()) continue;
    const bytes = dirBytes(dir, { entries: 100_000 });
    charts.push({ dir, bytes, usedMs: stat.mtimeMs });
    total += bytes;
  }
  if (total <= maxBytes) return;
  const own = keep ? path.resolve(path.dirname(keep)) : '';
  charts.sort((a, b) => Number(path.resolve(a.dir) === own) - Number(path.resolve(b.dir) === own) || a.usedMs - b.usedMs);
  for (const c of charts) {
    if (total <= maxBytes) break;
    fs.rmSync(c.dir, { recursive: true, force: true });
    total -= c.bytes;
    log?.(`[chart cache] removed ${c.dir} (least recently used; the cache was over ${Math.round(maxBytes / 2 ** 20)} MB)`);
  }
}
