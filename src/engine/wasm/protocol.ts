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
      /** The module's snapshot (./snapshot.ts), taken after its warmOp: laid into the instance instead of its set-up when it is of this module. */
      snapshot?: string;
    }
  | { type: 'call'; request: Uint8Array };

/**
 * Messages from the worker: the module it compiled (for the host's other instances), the instance
 * is ready, answered, or died (a trap: the worker is spent).
 */
export type FromWorker =
  | { type: 'compiled'; module: WebAssembly.Module }
  /**
   * `fromSnapshot`: the instance was laid from the module's snapshot instead of set up;
   * `snapshotProblem`: why the snapshot could not be laid (a damaged file), the instance set up instead.
   */
  | { type: 'ready'; fromSnapshot: boolean; snapshotProblem?: string }
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

/** What every module of wasm/ exports for requests (wasm/internal/abi). */
export interface RequestExports {
  memory: { buffer: ArrayBuffer };
  alloc(size: number): number;
  free(ptr: number): void;
  call(ptr: number, size: number): bigint;
}

/** Runs one encoded request on an instance and returns its answer's text (JSON: an Answer). */
export function callInstance(e: RequestExports, request: Uint8Array): string {
  const ptr = e.alloc(request.byteLength);
  new Uint8Array(e.memory.buffer, ptr, request.byteLength).set(request);
  const r = e.call(ptr, request.byteLength);
  e.free(ptr);
  const at = Number(r >> 32n);
  const len = Number(r & 0xffffffffn);
  const text = Buffer.from(new Uint8Array(e.memory.buffer, at, len)).toString('utf8');
  e.free(at);
  return text;
}
