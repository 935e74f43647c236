/**
 * A BuildCache kept on disk per workspace folder, so a reopened workspace starts warm (issue 14).
 *
 * One file per folder, `builds.v1`: a header line (format and version: the extension's version and
 * the WebAssembly modules' key — builds of another version are never reused), then one line per
 * entry, least recently used first: the JSON-encoded key, a tab, the JSON-encoded entry. Lines are
 * decoded only when their key is asked for, so a reopen costs one read and a split; a line that does
 * not decode (a truncated or corrupt file) is a miss, never an error. The cache holds at most
 * `maxBytes` of entries (least recently used dropped first) and saves after a quiet period, writing
 * a temp file and renaming it over the old one. The caches of all folders together hold at most
 * `maxTotalBytes` (buildCacheCap.ts: the least recently opened or saved are deleted). It never
 * writes inside a workspace folder, never writes an entry holding a Secret value in clear, and
 * never throws to its caller.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { productCacheDir } from '../node/cacheDir';
import { writeAtomically } from '../node/atomicWrite';
import { MASK } from '../core/flux/mask';
import type { BuildCache, CachedBuild } from './buildCache';
import { capBuildCaches, DEFAULT_MAX_TOTAL_BYTES, touch } from './buildCacheCap';

export const CACHE_FILE = 'builds.v1';
const FORMAT = 'gitops-preview-builds';
export const DEFAULT_MAX_BYTES = 64 * 2 ** 20;
export const DEFAULT_SAVE_DELAY_MS = 2000;

export interface PersistentBuildCacheOptions {
  /** The folder's own cache directory (see `buildCacheDir`). */
  dir: string;
  /** Builds of another version are not reused (see `buildCacheVersion`). */
  version: string;
  /** Workspace folders: the cache refuses to write inside any of them. */
  workspaceRoots: readonly string[];
  maxBytes?: number;
  /** All folders' caches under the same storage directory together (see buildCacheCap.ts). */
  maxTotalBytes?: number;
  /** Quiet period after a change before the file is written. */
  saveDelayMs?: number;
  log?: (message: string) => void;
}

interface Slot {
  /** The entry as written in the file (JSON); undefined while it holds an unmasked Secret value. */
  line: string | undefined;
  bytes: number;
  entry?: CachedBuild;
}

export class PersistentBuildCache implements BuildCache {
  /** Least recently used first (Map keeps insertion order; a use re-inserts). */
  private readonly slots = new Map<string, Slot>();
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private dirty = false;
  private readonly file: string;
  private readonly maxBytes: number;
  private readonly maxTotalBytes: number;
  /** Why nothing is written, when the directory is not allowed. */
  private readonly refused: string | undefined;

  private constructor(private readonly options: PersistentBuildCacheOptions) {
    this.file = path.join(options.dir, CACHE_FILE);
    this.maxTotalBytes = options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
    this.maxBytes = Math.min(options.maxBytes ?? DEFAULT_MAX_BYTES, this.maxTotalBytes);
    this.refused = insideWorkspace(options.dir, options.workspaceRoots);
    if (this.refused) this.log(`[build cache] not persisted: ${this.refused}`);
  }

  /** The cache of `options.dir` as last saved (empty when missing, of another version, or unreadable). */
  static open(options: PersistentBuildCacheOptions): PersistentBuildCache {
    const cache = new PersistentBuildCache(options);
    cache.load();
    return cache;
  }

  get size(): number {
    return this.slots.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get(key: string): CachedBuild | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (!slot.entry) {
      const entry = slot.line === undefined ? undefined : decodeEntry(slot.line);
      if (!entry) {
        this.remove(key);
        return undefined;
      }
      slot.entry = entry;
    }
    this.slots.delete(key);
    this.slots.set(key, slot);
    // The new order is saved with the next change or on dispose: a use alone does not rewrite the file.
    this.dirty = true;
    return slot.entry;
  }

  set(key: string, entry: CachedBuild): void {
    let json: string | undefined;
    try {
      json = JSON.stringify({ reads: entry.reads, value: entry.value });
    } catch (err) {
      this.log(`[build cache] ${key} not persisted: ${(err as Error).message}`);
    }
    // Counted against the cap either way; written only when it holds no Secret value in clear.
    const line = json !== undefined && !holdsSecretValue(entry.value) ? json : undefined;
    const bytes = Buffer.byteLength(JSON.stringify(key)) + (json === undefined ? 0 : Buffer.byteLength(json)) + 2;
    this.remove(key);
    if (bytes > this.maxBytes) return;
    this.slots.set(key, { line, bytes, entry });
    this.bytes += bytes;
    this.evict();
    this.changed();
  }

  drop(key: string, why: string): void {
    if (!this.slots.has(key)) return;
    this.remove(key);
    this.log(`[build cache] dropped an entry of ${this.file} (${why}); it is built again`);
  }

  /** Writes the file now if anything changed (called on dispose; otherwise saves are debounced). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || this.refused) return;
    this.dirty = false;
    const lines = [JSON.stringify({ format: FORMAT, version: this.options.version })];
    for (const [key, slot] of this.slots) if (slot.line !== undefined) lines.push(`${JSON.stringify(key)}\t${slot.line}`);
    const failed = writeAtomically(this.file, lines.join('\n') + '\n');
    if (failed) {
      this.log(`[build cache] could not save ${this.file}: ${failed.message}`);
      return;
    }
    try {
      capBuildCaches(path.dirname(this.options.dir), CACHE_FILE, this.maxTotalBytes, this.options.dir, (m) => this.log(m));
    } catch (err) {
      this.log(`[build cache] could not keep the caches under ${this.maxTotalBytes} bytes: ${(err as Error).message}`);
    }
  }

  dispose(): void {
    this.flush();
  }

  private load(): void {
    let text: string;
    try {
      const size = fs.statSync(this.file).size;
      // A file far over any cap was not written by this cache: do not read it into memory.
      if (size > 4 * Math.max(this.maxBytes, DEFAULT_MAX_BYTES)) {
        this.log(`[build cache] ${this.file} is ${size} bytes, far over the cap; starting empty`);
        return;
      }
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`[build cache] could not read ${this.file}: ${(err as Error).message}; starting empty`);
      return;
    }
    const lines = text.split('\n');
    const header = decodeJson(lines[0]) as { format?: unknown; version?: unknown } | undefined;
    if (header?.format !== FORMAT || header.version !== this.options.version) return;
    // Opened is used: other folders' caches go first when all of them are over the total cap.
    if (!this.refused) touch(this.file);
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i];
      const tab = line.indexOf('\t');
      if (tab <= 0) continue;
      const key = decodeJson(line.slice(0, tab));
      if (typeof key !== 'string') continue;
      const bytes = Buffer.byteLength(line) + 1;
      if (this.slots.has(key)) this.remove(key);
      this.slots.set(key, { line: line.slice(tab + 1), bytes });
      this.bytes += bytes;
    }
    this.evict();
  }

  private remove(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    this.bytes -= slot.bytes;
    this.changed();
  }

  private evict(): void {
    for (const [key, slot] of this.slots) {
      if (this.bytes <= this.maxBytes) break;
      this.slots.delete(key);
      this.bytes -= slot.bytes;
      this.changed();
    }
  }

  private changed(): void {
    this.dirty = true;
    if (this.timer || this.refused) return;
    this.timer = setTimeout(() => this.flush(), this.options.saveDelayMs ?? DEFAULT_SAVE_DELAY_MS);
    this.timer.unref?.();
  }

  private log(message: string): void {
    this.options.log?.(message);
  }
}

function decodeJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function decodeEntry(line: string): CachedBuild | undefined {
  const e = decodeJson(line) as { reads?: unknown; value?: unknown } | undefined;
  if (!e || typeof e !== 'object' || !('value' in e)) return undefined;
  const reads = e.reads;
  if (!reads || typeof reads !== 'object' || Array.isArray(reads)) return undefined;
  if (!Object.values(reads).every((h) => typeof h === 'string')) return undefined;
  return { reads: reads as Record<string, string>, value: e.value };
}

/**
 * True when `value` holds a Secret whose values are not masked: such an entry stays in memory and
 * is never written. Rendered objects come masked (`***`); a YAML text that names a Secret cannot
 * be checked cheaply, so it is not written either.
 */
export function holdsSecretValue(value: unknown): boolean {
  const seen = new Set<object>();
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return /^kind:\s*["']?Secret["']?\s*$/m.test(v);
    if (!v || typeof v !== 'object' || seen.has(v)) return false;
    seen.add(v);
    if (Array.isArray(v)) return v.some(walk);
    const o = v as Record<string, unknown>;
    if (o.kind === 'Secret') {
      for (const field of ['data', 'stringData']) {
        const d = o[field];
        if (d && typeof d === 'object' && Object.values(d).some((x) => x !== MASK)) return true;
      }
    }
    return Object.values(o).some(walk);
  };
  return walk(value);
}

/** Why `dir` may not hold the cache (inside a workspace folder), or undefined. */
export function insideWorkspace(dir: string, roots: readonly string[]): string | undefined {
  const target = realish(dir);
  for (const root of roots) {
    const r = realish(root);
    const rel = path.relative(r, target);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return `${dir} is inside the workspace folder ${root}`;
  }
  return undefined;
}

/** The real path of `p`, resolving its longest existing ancestor (the cache dir may not exist yet). */
function realish(p: string): string {
  const abs = path.resolve(p);
  const rest: string[] = [];
  let cur = abs;
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return abs;
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** The cache directory of one workspace folder under a storage directory. */
export function buildCacheDir(storageDir: string, root: string): string {
  return path.join(storageDir, 'builds', createHash('sha256').update(root).digest('hex').slice(0, 16));
}

/** The CLI's storage directory (the extension uses VS Code's per-workspace storage). */
export function defaultStorageDir(): string {
  return productCacheDir(process.env);
}

/**
 * The version builds are valid for: the extension's version and the WebAssembly modules' key
 * (dist/wasm/KEY, written by scripts/build-wasm.sh; else the modules' sizes and times).
 */
export function buildCacheVersion(wasmDir: string, startDir: string = __dirname): string {
  let key: string;
  try {
    key = fs.readFileSync(path.join(wasmDir, 'KEY'), 'utf8').trim();
  } catch {
    key = ['kustomize', 'helm']
      .map((m) => {
        try {
          const s = fs.statSync(path.join(wasmDir, `${m}.wasm`));
          return `${s.size}-${s.mtimeMs}`;
        } catch {
          return 'none';
        }
      })
      .join('/');
  }
  return `${extensionVersion(startDir)}+${key}`;
}

/** The version in the nearest package.json above `dir` (the bundle's dist/ or the sources). */
function extensionVersion(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(d, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'gitops-preview' && pkg.version) return pkg.version;
    } catch {
      // Not here: look further up.
    }
    if (path.dirname(d) === d) return 'unknown';
  }
}
