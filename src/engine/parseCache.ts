/**
 * Parsed YAML kept on disk per workspace folder, so a command or a reopened editor does not parse
 * again the files it parsed before (issue 27: on a warm bjw-s-labs-home-ops, half of `build ks`'s
 * time was the `yaml` library's parse). An entry is a file's FileParse (values, ranges, problems;
 * no trees), keyed by the sha-256 of the text alone: the same text anywhere, on any branch or
 * commit, has the same parse. A restored file is parsed only when a tree is asked for (a position).
 *
 * One file per folder, `parses.v1`, beside the folder's build cache (and deleted with it): a header
 * line (format and version), then frames of key length, key, entry length and the entry as
 * `v8.serialize` wrote it (a value may hold what JSON cannot: undefined, NaN, shared objects).
 * Frames are decoded only when their key is asked for; one that does not decode is a miss. At most
 * `maxBytes`, least recently used dropped first. A file holding a Secret's values (or a text naming
 * one: holdsSecretValue) is never written. It never writes inside a workspace folder and never throws.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { parseSourceFile, PARSE_FORMAT, type FileParse, type SourceFile } from '../core/yaml/document';
import { holdsSecretValue, insideWorkspace } from './persistentBuildCache';
import { writeAtomically } from '../node/atomicWrite';

export const PARSE_CACHE_FILE = 'parses.v1';
const FORMAT = 'gitops-preview-parses';
export const DEFAULT_PARSE_CACHE_BYTES = 48 * 2 ** 20;
const SAVE_DELAY_MS = 2000;
/** Smaller texts parse about as fast as a lookup: not worth an entry. */
const MIN_TEXT = 64;

export interface ParseCacheOptions {
  /** The folder's cache directory (`buildCacheDir`). */
  dir: string;
  /** Parses of another version are not reused (the build cache's version; PARSE_FORMAT is added). */
  version: string;
  /** Workspace folders: the cache refuses to write inside any of them. */
  workspaceRoots: readonly string[];
  maxBytes?: number;
  saveDelayMs?: number;
  log?: (message: string) => void;
}

export class ParseCache {
  /** Least recently used first; `bytes` is the frame as written, decoded on use. */
  private readonly slots = new Map<string, Buffer>();
  private bytes = 0;
  private dirty = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Files parsed after dispose (a reopen made a new cache) add nothing: the new cache owns the file. */
  private disposed = false;
  private readonly file: string;
  private readonly version: string;
  private readonly maxBytes: number;
  private readonly refused: string | undefined;
  /** Lookups that found an entry, and files parsed and added: what the tests and logs count. */
  hits = 0;
  added = 0;

  private constructor(private readonly options: ParseCacheOptions) {
    this.file = path.join(options.dir, PARSE_CACHE_FILE);
    this.version = `${options.version}+parse${PARSE_FORMAT}`;
    this.maxBytes = options.maxBytes ?? DEFAULT_PARSE_CACHE_BYTES;
    this.refused = insideWorkspace(options.dir, options.workspaceRoots);
  }

  static open(options: ParseCacheOptions): ParseCache {
    const cache = new ParseCache(options);
    cache.load();
    return cache;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The file of this text (`digest`: its SHA-256 in hex, when known): restored from its kept parse, else parsed on first use and then kept. */
  sourceFile(file: string, text: string, digest?: string): SourceFile {
    if (text.length < MIN_TEXT) return parseSourceFile(file, text);
    const key = digest ? Buffer.from(digest, 'hex').toString('base64') : createHash('sha256').update(text).digest('base64');
    const restored = this.take(key);
    if (restored) {
      this.hits++;
      return parseSourceFile(file, text, { restored });
    }
    return parseSourceFile(file, text, { onParsed: (parse) => this.put(key, parse) });
  }

  /** Writes the file now if anything changed (on dispose; otherwise saves are debounced). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty || this.refused) return;
    this.dirty = false;
    const parts: Buffer[] = [Buffer.from(JSON.stringify({ format: FORMAT, version: this.version }) + '\n')];
    for (const [key, entry] of this.slots) {
      const k = Buffer.from(key);
      const head = Buffer.alloc(6);
      head.writeUInt16LE(k.length, 0);
      head.writeUInt32LE(entry.length, 2);
      parts.push(head.subarray(0, 2), k, head.subarray(2), entry);
    }
    const failed = writeAtomically(this.file, Buffer.concat(parts));
    if (failed) this.log(`[parse cache] could not save ${this.file}: ${failed.message}`);
  }

  dispose(): void {
    if (this.hits || this.added) this.log(`[parse cache] ${this.hits} file(s) restored, ${this.added} parsed and kept (${this.file})`);
    this.flush();
    this.disposed = true;
  }

  private take(key: string): FileParse | undefined {
    const frame = this.slots.get(key);
    if (!frame) return undefined;
    const parse = decode(frame);
    if (!parse) {
      this.remove(key);
      return undefined;
    }
    // Used: saved as the most recent (a use alone does not rewrite the file).
    this.slots.delete(key);
    this.slots.set(key, frame);
    return parse;
  }

  private put(key: string, parse: FileParse): void {
    if (this.disposed) return;
    // As the build cache: a Secret's values (or a text that names one) are never copied out of the workspace.
    if (holdsSecretValue(parse.docs.map((d) => d.value))) return;
    let frame: Buffer;
    try {
      frame = v8.serialize(parse);
    } catch (err) {
      this.log(`[parse cache] a parse was not kept: ${(err as Error).message}`);
      return;
    }
    if (frame.length > this.maxBytes / 4) return;
    this.remove(key);
    this.slots.set(key, frame);
    this.bytes += frame.length;
    this.added++;
    for (const [k, f] of this.slots) {
      if (this.bytes <= this.maxBytes) break;
      this.slots.delete(k);
      this.bytes -= f.length;
    }
    this.changed();
  }

  private remove(key: string): void {
    const frame = this.slots.get(key);
    if (!frame) return;
    this.slots.delete(key);
    this.bytes -= frame.length;
    this.changed();
  }

  private load(): void {
    let data: Buffer;
    try {
      const size = fs.statSync(this.file).size;
      if (size > 2 * this.maxBytes) {
        this.log(`[parse cache] ${this.file} is ${size} bytes, over the cap; starting empty`);
        return;
      }
      data = fs.readFileSync(this.file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.log(`[parse cache] could not read ${this.file}: ${(err as Error).message}; starting empty`);
      return;
    }
    const eol = data.indexOf(10);
    if (eol < 0) return;
    let header: { format?: unknown; version?: unknown } | undefined;
    try {
      header = JSON.parse(data.subarray(0, eol).toString('utf8')) as typeof header;
    } catch {
      return;
    }
    if (header?.format !== FORMAT || header.version !== this.version) return;
    // A truncated frame ends the read: the frames before it are whole.
    for (let at = eol + 1; at + 2 <= data.length; ) {
      const keyLength = data.readUInt16LE(at);
      if (at + 2 + keyLength + 4 > data.length) break;
      const key = data.subarray(at + 2, at + 2 + keyLength).toString('utf8');
      const length = data.readUInt32LE(at + 2 + keyLength);
      const start = at + 6 + keyLength;
      if (start + length > data.length) break;
      this.slots.set(key, data.subarray(start, start + length));
      this.bytes += length;
      at = start + length;
    }
  }

  private changed(): void {
    this.dirty = true;
    if (this.timer || this.refused) return;
    this.timer = setTimeout(() => this.flush(), this.options.saveDelayMs ?? SAVE_DELAY_MS);
    this.timer.unref?.();
  }

  private log(message: string): void {
    this.options.log?.(message);
  }
}

/** A frame's FileParse, or undefined when it is not one (a corrupt file is a miss, never an error). */
function decode(frame: Buffer): FileParse | undefined {
  let v: unknown;
  try {
    v = v8.deserialize(frame);
  } catch {
    return undefined;
  }
  const parse = v as FileParse;
  if (!parse || !Array.isArray(parse.docs) || !Array.isArray(parse.problems)) return undefined;
  const wellFormed = parse.docs.every((d) => d && Array.isArray(d.range) && d.range.length === 3 && typeof d.start === 'number' && typeof d.end === 'number' && Array.isArray(d.problems) && typeof d.keep === 'boolean');
  return wellFormed ? parse : undefined;
}
