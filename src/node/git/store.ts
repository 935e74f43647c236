/**
 * A repository's Git objects, read in process and never written: loose objects (zlib) and packs
 * (`.idx` v2 + `.pack`, deltas applied). Every file is read on its real path inside the folders
 * this checkout may read (gitMetadata.ts), every object within GitLimits.
 */
import * as fs from 'node:fs';
import { gitDirs, inside, type GitDirs } from '../gitMetadata';
import { applyDelta } from './delta';
import { inflateBounded } from './inflate';
import { GitError, type GitLimits } from './limits';
import { overBudget, Pack, type ObjectType, type PackEntry } from './pack';

export interface GitObject {
  type: ObjectType;
  data: Buffer;
}

const HEX40 = /^[0-9a-f]{40}$/;
/** Packs looked at; a repository has a handful (git gc keeps it at one or two). */
const MAX_PACKS = 1000;
/** Inflated objects kept for reuse as delta bases and trees walked again. */
const CACHE_BYTES = 32 * 1024 * 1024;

export class GitObjectStore {
  private packs: Pack[] | undefined;
  private readonly cache = new Map<string, GitObject>();
  private cached = 0;

  private constructor(
    readonly dirs: GitDirs,
    readonly limits: GitLimits,
  ) {}

  /** The object store of the checkout at `root`; a GitError when it has none this tool may read. */
  static open(root: string, limits: GitLimits): GitObjectStore {
    const dirs = gitDirs(root);
    if (!dirs) throw new GitError(`${root} is not a Git checkout (or its .git leads outside it)`);
    return new GitObjectStore(dirs, limits);
  }

  close(): void {
    for (const p of this.packs ?? []) p.close();
    this.packs = [];
  }

  /** The object `sha` (40 lowercase hex digits); a GitError when missing, corrupt or over a limit. */
  read(sha: string): GitObject {
    if (!HEX40.test(sha)) throw new GitError(`'${sha}' is not an object name`);
    const hit = this.cache.get(sha);
    if (hit) return hit;
    const loose = this.readLoose(sha);
    const object = loose ?? this.readPacked(sha);
    if (!object) throw new GitError(`object ${sha} is not in the repository`);
    this.remember(sha, object);
    return object;
  }

  /** The object, which must be of `type`. */
  readTyped(sha: string, type: ObjectType): Buffer {
    const o = this.read(sha);
    if (o.type !== type) throw new GitError(`object ${sha} is a ${o.type}, not a ${type}`);
    return o.data;
  }

  has(sha: string): boolean {
    if (this.cache.has(sha)) return true;
    if (this.objectFile(sha)) return true;
    const raw = Buffer.from(sha, 'hex');
    return this.allPacks().some((p) => p.index.find(raw) !== undefined);
  }

  /** Full names of the objects whose name starts with `prefix` (lowercase hex), at most `max`. */
  withPrefix(prefix: string, max = 2): string[] {
    const found = new Set<string>();
    const dir = this.confined(`${this.dirs.commonDir}/objects/${prefix.slice(0, 2)}`);
    if (prefix.length >= 2 && dir) {
      try {
        for (const name of fs.readdirSync(dir).slice(0, 100_000)) {
          if (found.size >= max) break;
          const sha = prefix.slice(0, 2) + name;
          if (HEX40.test(sha) && sha.startsWith(prefix)) found.add(sha);
        }
      } catch {
        // No loose objects under that prefix.
      }
    }
    for (const p of this.allPacks()) for (const sha of p.index.withPrefix(prefix, max)) if (found.size < max) found.add(sha);
    return [...found];
  }

  private readLoose(sha: string): GitObject | undefined {
    const file = this.objectFile(sha);
    if (!file) return undefined;
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    let raw: Buffer;
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) throw new GitError(`loose object ${sha} is not a regular file`);
      if (stat.size > this.limits.objectBytes * 1.01 + 1024) throw new GitError(`loose object ${sha} is ${stat.size} bytes, over the ${this.limits.objectBytes}-byte object limit`);
      raw = Buffer.alloc(stat.size);
      let n = 0;
      for (let r; n < raw.length && (r = fs.readSync(fd, raw, n, raw.length - n, null)) > 0; ) n += r;
      raw = raw.subarray(0, n);
    } finally {
      fs.closeSync(fd);
    }
    // "<type> <size>\0" comes first: room for it past the object limit.
    const data = inflateBounded(raw, this.limits.objectBytes + 32, `loose object ${sha}`);
    if (!this.limits.totalBytes.take(raw.length + data.length)) throw overBudget(this.limits);
    const nul = data.indexOf(0);
    const header = nul > 0 && nul < 32 ? data.toString('latin1', 0, nul) : '';
    const space = header.indexOf(' ');
    const type = header.slice(0, space) as ObjectType;
    const size = Number(header.slice(space + 1));
    if (!['commit', 'tree', 'blob', 'tag'].includes(type) || !Number.isSafeInteger(size)) throw new GitError(`loose object ${sha} has no valid header`);
    if (size > this.limits.objectBytes) throw new GitError(`loose object ${sha} is ${size} bytes, over the ${this.limits.objectBytes}-byte object limit`);
    if (data.length - nul - 1 !== size) throw new GitError(`loose object ${sha} holds ${data.length - nul - 1} bytes, not the ${size} it declares`);
    return { type, data: data.subarray(nul + 1) };
  }

  /**
   * Follows the delta chain down to a whole object (iteratively, at most GitLimits.deltaDepth
   * deltas, a base named twice being a loop), then applies the deltas back up.
   */
  private readPacked(sha: string): GitObject | undefined {
    let at = this.locate(sha);
    if (!at) return undefined;
    const deltas: Buffer[] = [];
    const seen = new Set<string>();
    let base: GitObject | undefined;
    while (!base) {
      const key = `${at.pack}:${at.offset}`;
      if (seen.has(key)) throw new GitError(`object ${sha}: its delta chain loops`);
      seen.add(key);
      const pack: Pack = this.allPacks()[at.pack];
      const cached = deltas.length ? this.cache.get(key) : undefined;
      if (cached) {
        base = cached;
        break;
      }
      const entry: PackEntry = pack.entry(at.offset);
      if (entry.kind === 'object') {
        base = { type: entry.type, data: entry.data };
        if (deltas.length) this.remember(key, base);
        break;
      }
      deltas.push(entry.delta);
      if (deltas.length > this.limits.deltaDepth) throw new GitError(`object ${sha}: its delta chain is longer than ${this.limits.deltaDepth}`);
      if ('offset' in entry.base) {
        at = { pack: at.pack, offset: entry.base.offset };
      } else {
        const next = this.locate(entry.base.sha);
        if (next) {
          at = next;
        } else {
          // A thin pack's base may be loose.
          base = this.readLoose(entry.base.sha);
          if (!base) throw new GitError(`object ${sha}: its delta base ${entry.base.sha} is not in the repository`);
        }
      }
    }
    let data = base.data;
    for (let i = deltas.length - 1; i >= 0; i--) {
      data = applyDelta(data, deltas[i], this.limits.objectBytes);
      if (!this.limits.totalBytes.take(data.length)) throw overBudget(this.limits);
    }
    return { type: base.type, data };
  }

  private locate(sha: string): { pack: number; offset: number } | undefined {
    const raw = Buffer.from(sha, 'hex');
    const packs = this.allPacks();
    for (let i = 0; i < packs.length; i++) {
      const offset = packs[i].index.find(raw);
      if (offset !== undefined) return { pack: i, offset };
    }
    return undefined;
  }

  private allPacks(): Pack[] {
    if (this.packs) return this.packs;
    this.packs = [];
    const dir = this.confined(`${this.dirs.commonDir}/objects/pack`);
    if (!dir) return this.packs;
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((n) => n.startsWith('pack-') && n.endsWith('.idx'));
    } catch {
      return this.packs;
    }
    if (names.length > MAX_PACKS) throw new GitError(`the repository has ${names.length} packs, over the ${MAX_PACKS} this tool reads`);
    for (const n of names.sort()) {
      const base = `${dir}/${n.slice(0, -'.idx'.length)}`;
      if (!this.confined(`${base}.idx`) || !this.confined(`${base}.pack`)) continue;
      this.packs.push(Pack.open(base, this.limits));
    }
    return this.packs;
  }

  private objectFile(sha: string): string | undefined {
    return this.confined(`${this.dirs.commonDir}/objects/${sha.slice(0, 2)}/${sha.slice(2)}`);
  }

  /** The real path of `file` when it exists inside the folders this checkout may read. */
  private confined(file: string): string | undefined {
    let real: string;
    try {
      real = fs.realpathSync.native(file);
    } catch {
      return undefined;
    }
    return inside(real, this.dirs.allowed) ? real : undefined;
  }

  private remember(key: string, object: GitObject): void {
    if (object.data.length > CACHE_BYTES / 8) return;
    this.cache.set(key, object);
    this.cached += object.data.length;
    for (const [k, o] of this.cache) {
      if (this.cached <= CACHE_BYTES) break;
      this.cache.delete(k);
      this.cached -= o.data.length;
    }
  }
}
