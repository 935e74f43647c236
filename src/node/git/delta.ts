/**
 * Git's delta format (pack-format.txt, "Deltified representation"): the base's size, the result's
 * size, then copy (from the base) and insert (literal) instructions. Every size and range is
 * checked before it is used: a hostile delta can claim any of them.
 */
import { GitError } from './limits';

/** The object `delta` makes of `base`, at most `maxBytes` long. */
export function applyDelta(base: Uint8Array, delta: Uint8Array, maxBytes: number): Buffer {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (at >= delta.length) throw new GitError('delta ends inside its header');
      const byte = delta[at++];
      // Sizes past 2^53 are no object this reader will make; stop before the arithmetic loses them.
      if (shift > 49) throw new GitError('delta header size is too large');
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(byte & 0x80)) return value;
    }
  };
  const baseSize = varint();
  if (baseSize !== base.length) throw new GitError(`delta expects a base of ${baseSize} bytes, the base has ${base.length}`);
  const size = varint();
  if (size > maxBytes) throw new GitError(`delta result is ${size} bytes, over the ${maxBytes}-byte object limit`);
  const out = Buffer.allocUnsafe(size);
  let written = 0;
  while (at < delta.length) {
    const cmd = delta[at++];
    if (cmd & 0x80) {
      let offset = 0;
      let length = 0;
      for (let bit = 0; bit < 4; bit++) if (cmd & (1 << bit)) offset += byteAt(delta, at++) * 2 ** (8 * bit);
      for (let bit = 0; bit < 3; bit++) if (cmd & (0x10 << bit)) length += byteAt(delta, at++) * 2 ** (8 * bit);
      if (length === 0) length = 0x10000;
      if (offset + length > base.length) throw new GitError('delta copies past the end of its base');
      if (written + length > size) throw new GitError('delta writes past its declared size');
      out.set(base.subarray(offset, offset + length), written);
      written += length;
    } else if (cmd > 0) {
      if (at + cmd > delta.length) throw new GitError('delta inserts past its own end');
      if (written + cmd > size) throw new GitError('delta writes past its declared size');
      out.set(delta.subarray(at, at + cmd), written);
      written += cmd;
      at += cmd;
    } else {
      throw new GitError('delta has a reserved (zero) instruction');
    }
  }
  if (written !== size) throw new GitError(`delta made ${written} bytes, not the ${size} it declares`);
  return out;
}

function byteAt(data: Uint8Array, i: number): number {
  if (i >= data.length) throw new GitError('delta ends inside a copy instruction');
  return data[i];
}
