/**
 * The last known CRDs of each kube context on disk (`<product cache>/cluster-crds/<hash>.json`,
 * plain JSON), so that a later session judges custom resources by them until the watch has listed
 * the cluster again. Files are bounded as the watcher's set is (CRD_LIMITS), at most
 * MAX_CONTEXT_FILES contexts are kept (the least recently written go first), and a file that is
 * too large, not JSON or of the wrong shape is ignored with a log line.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clusterCrdsFrom, type ClusterCrds } from '../core/schema/clusterCrds';
import { CRD_LIMITS, type CrdLimits } from './crdWatch';

export const MAX_CONTEXT_FILES = 16;
/** Room for the file's own JSON around the CRDs' (CRD_LIMITS.bytes). */
const FILE_SLACK_BYTES = 64 * 1024;

/** The folder of the per-context files under the product's cache directory (node/cacheDir.ts). */
export function crdCacheDir(productCache: string): string {
  return path.join(productCache, 'cluster-crds');
}

/** One file per context and server: the same context name on another server is another cluster. */
export function crdCacheFile(dir: string, context: string, server: string): string {
  return path.join(dir, `${createHash('sha256').update(`${context}\n${server}`).digest('hex').slice(0, 32)}.json`);
}

/** The context's last known CRDs, or undefined (none saved, or the file ignored, said in `log`). */
export function readCachedCrds(dir: string, context: string, server: string, log: (message: string) => void, limits: CrdLimits = CRD_LIMITS): ClusterCrds | undefined {
  const file = crdCacheFile(dir, context, server);
  let text: string;
  try {
    const size = fs.statSync(file).size;
    if (size > limits.bytes + FILE_SLACK_BYTES) {
      log(`[cluster] ignored the saved CRDs of context ${context} (${file}): ${size} bytes, over the limit`);
      return undefined;
    }
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`[cluster] cannot read the saved CRDs of context ${context} (${file}): ${(err as Error).message}`);
    return undefined;
  }
  let read: ReturnType<typeof clusterCrdsFrom>;
  try {
    read = clusterCrdsFrom(JSON.parse(text));
  } catch (err) {
    log(`[cluster] ignored the saved CRDs of context ${context} (${file}): not JSON (${(err as Error).message})`);
    return undefined;
  }
  if ('error' in read) {
    log(`[cluster] ignored the saved CRDs of context ${context} (${file}): ${read.error}`);
    return undefined;
  }
  if (read.crds.context !== context || read.crds.server !== server) {
    log(`[cluster] ignored the saved CRDs of context ${context} (${file}): saved for another context or server`);
    return undefined;
  }
  if (read.crds.crds.length <= limits.count) return read.crds;
  return { ...read.crds, crds: read.crds.crds.slice(0, limits.count) };
}

/** Saves the context's CRDs (written whole under a temporary name, then renamed), then drops the oldest contexts past MAX_CONTEXT_FILES. */
export function writeCachedCrds(dir: string, crds: ClusterCrds, log: (message: string) => void): void {
  const file = crdCacheFile(dir, crds.context, crds.server);
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify({ context: crds.context, server: crds.server, savedAt: new Date().toISOString(), crds: crds.crds }));
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    log(`[cluster] cannot save the CRDs of context ${crds.context} (${file}): ${(err as Error).message}`);
    return;
  }
  dropOldest(dir);
}

function dropOldest(dir: string): void {
  let files: { file: string; mtime: number }[];
  try {
    files = fs
      .readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .map((n) => ({ file: path.join(dir, n), mtime: fs.statSync(path.join(dir, n)).mtimeMs }));
  } catch {
    // Another process is writing or removing files here: the next write trims.
    return;
  }
  files.sort((a, b) => b.mtime - a.mtime);
  for (const { file } of files.slice(MAX_CONTEXT_FILES)) fs.rmSync(file, { force: true });
}
