/**
 * The cap on all persisted build caches together. Each workspace folder has its own cache under
 * `<storage>/builds/<hash of its path>` (at most DEFAULT_MAX_BYTES each), so a machine checking out
 * many paths (a CI runner, one folder per job) would keep a copy per path forever: past the total,
 * the folders used least recently (by their file's time, which a save or an open sets) are deleted.
 * Several processes may share the directory: every step tolerates a file vanishing under it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DEFAULT_MAX_TOTAL_BYTES = 512 * 2 ** 20;
/** The user's override of DEFAULT_MAX_TOTAL_BYTES, in MB (0: builds are not persisted). Never read from a repository. */
export const MAX_TOTAL_ENV = 'GITOPS_PREVIEW_CACHE_MAX_MB';
/** A temp file this old was left by a process that died between writing and renaming it. */
const ABANDONED_TMP_MS = 10 * 60 * 1000;

/** The total cap the user set (MAX_TOTAL_ENV), else the default; `log` hears of a value that is not a number. */
export function maxTotalBytesFromEnv(env: NodeJS.ProcessEnv, log?: (message: string) => void): number {
  const raw = env[MAX_TOTAL_ENV]?.trim();
  if (!raw) return DEFAULT_MAX_TOTAL_BYTES;
  const mb = Number(raw);
  if (!Number.isFinite(mb) || mb < 0) {
    log?.(`[build cache] ${MAX_TOTAL_ENV}=${JSON.stringify(raw)} is not a size in MB; using ${DEFAULT_MAX_TOTAL_BYTES / 2 ** 20} MB`);
    return DEFAULT_MAX_TOTAL_BYTES;
  }
  return Math.floor(mb * 2 ** 20);
}

/** Marks a cache file as just used, so that it is evicted after the ones used before it. */
export function touch(file: string): void {
  try {
    const now = new Date();
    fs.utimesSync(file, now, now);
  } catch {
    // Gone or read-only: its age stays as it was.
  }
}

/**
 * Deletes the least recently used caches under `buildsDir` (one folder each, holding `fileName`)
 * until all of them together take at most `maxTotalBytes`; `keep` (the caller's own) goes last.
 */
export function capBuildCaches(buildsDir: string, fileName: string, maxTotalBytes: number, keep: string, log?: (message: string) => void): void {
  const caches: { dir: string; bytes: number; usedMs: number }[] = [];
  let total = 0;
  for (const name of listNames(buildsDir)) {
    const dir = path.join(buildsDir, name);
    let bytes = 0;
    let usedMs = -1;
    for (const entry of listNames(dir)) {
      const file = path.join(dir, entry);
      const stat = statOrUndefined(file);
      if (!stat?.isFile()) continue;
      if (entry.endsWith('.tmp') && Date.now() - stat.mtimeMs > ABANDONED_TMP_MS) {
        fs.rmSync(file, { force: true });
        continue;
      }
      bytes += stat.size;
      if (entry === fileName) usedMs = stat.mtimeMs;
    }
    caches.push({ dir, bytes, usedMs });
    total += bytes;
  }
  if (total <= maxTotalBytes) return;
  const own = path.resolve(keep);
  caches.sort((a, b) => Number(path.resolve(a.dir) === own) - Number(path.resolve(b.dir) === own) || a.usedMs - b.usedMs);
  for (const c of caches) {
    if (total <= maxTotalBytes) break;
    try {
      fs.rmSync(c.dir, { recursive: true, force: true });
      total -= c.bytes;
      log?.(`[build cache] removed ${c.dir} (least recently used; all caches together were over ${Math.round(maxTotalBytes / 2 ** 20)} MB)`);
    } catch (err) {
      log?.(`[build cache] could not remove ${c.dir}: ${(err as Error).message}`);
    }
  }
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}
