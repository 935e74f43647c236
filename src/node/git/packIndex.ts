/**
 * A pack's `.idx` (version 2): where each object of the `.pack` starts. Its layout is checked
 * whole before any lookup (sizes, a non-decreasing fan-out table, offsets inside the pack), so a
 * lookup never reads outside it.
 */
import { GitError } from './limits';

const MAGIC = 0xff744f63; // "\377tOc"

export class PackIndex {
  readonly count: number;
  private readonly shaStart = 8 + 256 * 4;
  private readonly offsetStart: number;
  private readonly largeStart: number;
  private sortedOffsets: Float64Array | undefined;

  constructor(
    private readonly data: Buffer,
    private readonly packSize: number,
    readonly name: string,
  ) {
    if (data.length < 8 + 256 * 4 + 40 || data.readUInt32BE(0) !== MAGIC) throw new GitError(`${name} is not a version 2 pack index`);
    if (data.readUInt32BE(4) !== 2) throw new GitError(`${name} is pack index version ${data.readUInt32BE(4)}; only version 2 is read`);
    let last = 0;
    for (let i = 0; i < 256; i++) {
      const n = data.readUInt32BE(8 + i * 4);
      if (n < last) throw new GitError(`${name} has a decreasing fan-out table`);
      last = n;
    }
    this.count = last;
    this.offsetStart = this.shaStart + this.count * 24;
    this.largeStart = this.offsetStart + this.count * 4;
    if (this.largeStart + 40 > data.length) throw new GitError(`${name} is truncated (${this.count} objects need ${this.largeStart + 40} bytes, it has ${data.length})`);
  }

  /** Where `sha` (20 bytes) starts in the pack, or undefined when the pack does not hold it. */
  find(sha: Buffer): number | undefined {
    let lo = sha[0] === 0 ? 0 : this.data.readUInt32BE(8 + (sha[0] - 1) * 4);
    let hi = this.data.readUInt32BE(8 + sha[0] * 4);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.data.compare(sha, 0, 20, this.shaStart + mid * 20, this.shaStart + mid * 20 + 20);
      if (c === 0) return this.offsetAt(mid);
      if (c > 0) hi = mid;
      else lo = mid + 1;
    }
    return undefined;
  }

  /** Names (hex) of the objects starting with `prefix` (lowercase hex, even or odd length), at most `max`. */
  withPrefix(prefix: string, max: number): string[] {
    const first = parseInt(prefix.slice(0, 2).padEnd(2, '0'), 16);
    const lastByte = prefix.length >= 2 ? first : first | 0x0f;
    const lo = first === 0 ? 0 : this.data.readUInt32BE(8 + (first - 1) * 4);
    const hi = this.data.readUInt32BE(8 + lastByte * 4);
    const out: string[] = [];
    for (let i = lo; i < hi && out.length < max; i++) {
      const hex = this.data.toString('hex', this.shaStart + i * 20, this.shaStart + i * 20 + 20);
      if (hex.startsWith(prefix)) out.push(hex);
    }
    return out;
  }

  /** Where the entry starting at `offset` ends at most: the next entry, or the pack's trailer. */
  endOf(offset: number): number {
    const sorted = (this.sortedOffsets ??= Float64Array.from({ length: this.count }, (_, i) => this.offsetAt(i)).sort());
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid] <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo < sorted.length ? sorted[lo] : this.packSize - 20;
  }

  private offsetAt(i: number): number {
    const small = this.data.readUInt32BE(this.offsetStart + i * 4);
    let offset = small;
    if (small & 0x80000000) {
      const at = this.largeStart + (small & 0x7fffffff) * 8;
      if (at + 8 > this.data.length - 40) throw new GitError(`${this.name} points past its large-offset table`);
      offset = Number(this.data.readBigUInt64BE(at));
    }
    // The 12-byte pack header comes first; the trailer's 20-byte checksum last.
    if (offset < 12 || offset >= this.packSize - 20) throw new GitError(`${this.name} places an object outside its pack`);
    return offset;
  }
}
