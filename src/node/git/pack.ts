/**
 * One entry of a `.pack` (pack-format.txt): its type and inflated size, then zlib data; a delta
 * entry names its base by a backward offset (OFS_DELTA) or by name (REF_DELTA). The entry's bytes
 * end where the index says the next entry starts, so a corrupt stream cannot read on.
 */
import * as fs from 'node:fs';
import { inflateBounded } from './inflate';
import { GitError, type GitLimits } from './limits';
import { PackIndex } from './packIndex';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';
const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

/** A pack entry: a whole object, or a delta with its base's place. */
export type PackEntry =
  | { kind: 'object'; type: ObjectType; data: Buffer }
  | { kind: 'delta'; delta: Buffer; base: { offset: number } | { sha: string } };

export class Pack {
  private constructor(
    readonly index: PackIndex,
    private readonly fd: number,
    readonly size: number,
    private readonly limits: GitLimits,
  ) {}

  /** The pack `base` (`…/pack-X`, without extension): its `.idx` read whole, its `.pack` opened. */
  static open(base: string, limits: GitLimits): Pack {
    const fd = fs.openSync(`${base}.pack`, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile() || stat.size < 32) throw new GitError(`${name(base)}.pack is not a pack`);
      const header = readAt(fd, 0, 12);
      if (header.toString('latin1', 0, 4) !== 'PACK' || ![2, 3].includes(header.readUInt32BE(4))) throw new GitError(`${name(base)}.pack is not a version 2 or 3 pack`);
      const idxBytes = fs.statSync(`${base}.idx`).size;
      if (idxBytes > MAX_INDEX_BYTES) throw new GitError(`${name(base)}.idx is ${idxBytes} bytes, over the ${MAX_INDEX_BYTES}-byte limit`);
      if (!limits.totalBytes.take(idxBytes)) throw overBudget(limits);
      const index = new PackIndex(fs.readFileSync(`${base}.idx`), stat.size, `${name(base)}.idx`);
      if (index.count !== header.readUInt32BE(8)) throw new GitError(`${name(base)}.idx lists ${index.count} objects, its pack ${header.readUInt32BE(8)}`);
      return new Pack(index, fd, stat.size, limits);
    } catch (err) {
      fs.closeSync(fd);
      throw err;
    }
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  /** The entry starting at `offset`, its data inflated (within the object limit). */
  entry(offset: number): PackEntry {
    const end = this.index.endOf(offset);
    const head = readAt(this.fd, offset, Math.min(32, end - offset));
    let at = 0;
    const next = () => {
      if (at >= head.length) throw new GitError(`pack entry at ${offset} ends inside its header`);
      return head[at++];
    };
    let byte = next();
    const type = (byte >> 4) & 7;
    let size = byte & 0x0f;
    let shift = 4;
    while (byte & 0x80) {
      byte = next();
      if (shift > 49) throw new GitError(`pack entry at ${offset} declares an impossible size`);
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (size > this.limits.objectBytes) throw new GitError(`pack entry at ${offset} is ${size} bytes, over the ${this.limits.objectBytes}-byte object limit`);
    let base: { offset: number } | { sha: string } | undefined;
    if (type === OFS_DELTA) {
      // Big-endian base-128 where each continuation adds one (pack-format.txt, "offset encoding").
      byte = next();
      let back = byte & 0x7f;
      while (byte & 0x80) {
        byte = next();
        if (back > 2 ** 45) throw new GitError(`pack entry at ${offset} names an impossible base offset`);
        back = (back + 1) * 128 + (byte & 0x7f);
      }
      // A base lies before its delta: a chain of offsets cannot loop.
      if (back <= 0 || back > offset - 12) throw new GitError(`pack entry at ${offset} names a base outside the pack`);
      base = { offset: offset - back };
    } else if (type === REF_DELTA) {
      if (head.length < at + 20) throw new GitError(`pack entry at ${offset} ends inside its base's name`);
      base = { sha: head.toString('hex', at, at + 20) };
      at += 20;
    } else if (!TYPES[type]) {
      throw new GitError(`pack entry at ${offset} has unknown type ${type}`);
    }
    const compressed = end - offset - at;
    if (compressed <= 0) throw new GitError(`pack entry at ${offset} has no data`);
    // zlib never grows incompressible data by more than a few bytes per 16 KB block.
    if (compressed > size * 1.01 + 1024) throw new GitError(`pack entry at ${offset} spans ${compressed} bytes for ${size} inflated`);
    if (!this.limits.totalBytes.take(compressed + size)) throw overBudget(this.limits);
    const data = inflateBounded(readAt(this.fd, offset + at, compressed), size, `pack entry at ${offset}`);
    if (data.length !== size) throw new GitError(`pack entry at ${offset} inflates to ${data.length} bytes, not the ${size} it declares`);
    return base ? { kind: 'delta', delta: data, base } : { kind: 'object', type: TYPES[type], data };
  }
}

/** An index larger than this names ~9 million objects: more than any repository this tool reads. */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

export function overBudget(limits: GitLimits): GitError {
  return new GitError(`reading the Git object store took more than ${Math.round(limits.totalBytes.limit / 2 ** 20)} MB (16× --max-read-mb); raise --max-read-mb to read more`);
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let n = 0;
  while (n < length) {
    const r = fs.readSync(fd, buf, n, length - n, position + n);
    if (r === 0) throw new GitError(`pack is truncated: ${length} bytes at ${position} cannot be read`);
    n += r;
  }
  return buf;
}

function name(base: string): string {
  return base.slice(base.lastIndexOf('/') + 1);
}
