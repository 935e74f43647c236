/**
 * The bytes exchanged with the WebAssembly modules of wasm/ (see wasm/internal/abi): a request is
 * [u32 little-endian header length][header JSON][file contents in header order]; an answer is JSON.
 * Plain data only, so a request can be built on one thread and run on another.
 */

/** One file of an in-memory file set: a slash path relative to the set's root. */
export interface MemFile {
  path: string;
  data: Uint8Array | string;
}

export interface Answer {
  ok: boolean;
  output?: string;
  error?: string;
  /** The operation panicked; the instance recovered and stays usable. */
  panic?: boolean;
}

/** Messages from the host to the worker that owns the instance. */
export type ToWorker =
  | {
      type: 'init';
      /** The compiled module, or the file the worker compiles it from (then it sends the module back: `compiled`). */
      module: WebAssembly.Module | { file: string };
      maxMemoryBytes: number;
      memoryLimitBytes: number;
      /** An operation (no arguments, no files) the instance runs before it says it is ready, e.g. to set itself up. */
      warmOp?: string;
    }
  | { type: 'call'; request: Uint8Array };

/**
 * Messages from the worker: the module it compiled (for the host's other instances), the instance
 * is ready, answered, or died (a trap: the worker is spent).
 */
export type FromWorker =
  | { type: 'compiled'; module: WebAssembly.Module }
  | { type: 'ready' }
  | { type: 'answer'; text: string; memoryBytes: number }
  | { type: 'trap'; message: string };

export function encodeRequest(op: string, args: unknown, files: readonly MemFile[]): Uint8Array {
  const enc = new TextEncoder();
  const bodies = files.map((f) => (typeof f.data === 'string' ? enc.encode(f.data) : f.data));
  const header = enc.encode(JSON.stringify({ op, args, files: files.map((f, i) => ({ path: f.path, size: bodies[i].byteLength })) }));
  let total = 4 + header.byteLength;
  for (const b of bodies) total += b.byteLength;
  const out = new Uint8Array(total);
  new DataView(out.buffer).setUint32(0, header.byteLength, true);
  out.set(header, 4);
  let off = 4 + header.byteLength;
  for (const b of bodies) {
    out.set(b, off);
    off += b.byteLength;
  }
  return out;
}

/**
 * Gives the module's memory a maximum (wasm memory section limits), which Go's runtime otherwise
 * grows without bound: past it, allocation fails inside the module, which traps, and the host
 * starts a fresh instance. Returns a new module image; the input is not changed.
 */
export function withMemoryMaximum(image: Uint8Array, maxBytes: number): Uint8Array {
  const maxPages = Math.max(1, Math.floor(maxBytes / 65536));
  let pos = 8;
  while (pos < image.length) {
    const id = image[pos];
    const [size, sizeLen] = readLeb(image, pos + 1);
    const body = pos + 1 + sizeLen;
    if (id === 5) {
      const [count, countLen] = readLeb(image, body);
      if (count !== 1) return image;
      const flagsAt = body + countLen;
      const flags = image[flagsAt];
      if (flags !== 0 && flags !== 1) return image;
      const [min] = readLeb(image, flagsAt + 1);
      const newBody = [...leb(1), 1, ...leb(min), ...leb(Math.max(maxPages, min))];
      const section = [5, ...leb(newBody.length), ...newBody];
      const out = new Uint8Array(image.length - (body + size - pos) + section.length);
      out.set(image.subarray(0, pos), 0);
      out.set(section, pos);
      out.set(image.subarray(body + size), pos + section.length);
      return out;
    }
    pos = body + size;
  }
  return image;
}

function readLeb(b: Uint8Array, at: number): [number, number] {
  let result = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const byte = b[i++];
    result += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return [result, i - at];
  }
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}
