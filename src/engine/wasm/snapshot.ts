/**
 * A module's state right after its set-up, taken once when the module is built and laid into every
 * new instance instead of running the set-up again (what Wizer does for other toolchains).
 *
 * The kustomize module's set-up is Go's runtime and package initialisation and then the parse of
 * kyaml's OpenAPI schema: about 0.5 s of every instance's start. A Go reactor that has returned
 * from its `_initialize` (and from a call) keeps all its state in its linear memory and its
 * globals; the host holds none of it, since WASI here (./wasi.ts) has no descriptor to open and
 * only the clock to answer. So the snapshot is those pages and globals. What differs in an instance
 * laid from it:
 * - its monotonic clock goes on from the snapshot's reading (Wasi.resume), so the runtime's timers
 *   stay consistent;
 * - the seed of Go's random generator is the snapshot's, the same in every instance, which Go's maps
 *   use to spread their keys. A repository crafting keys against it could slow a build down, never
 *   past the build's time limit, which stops the instance.
 *
 * The file: the magic, a u32 little-endian header length, the header (JSON), then the non-zero
 * pages of the memory, run after run. The snapshot names the module it was taken of by an id that
 * the module carries in a custom section; an instance of another module never takes it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { definedGlobals, globalExportName, withCustomSection, withGlobalsExported } from './binary';
import { MONOTONIC, type Wasi } from './wasi';

/**
 * The program name and environment of every instance, baked into the snapshot by Go's
 * initialisation. klog's init reads os.Args[0], so the program needs a name. GOGC=200: on
 * bjw-s-labs-home-ops' 94 builds, 30% less build time than Go's default and a smaller peak (the
 * collector runs half as often; the worker's memory limit still caps the heap).
 */
export const INSTANCE_WASI = { args: ['gitops-preview'], env: { GOGC: '200' } } as const;

// Parts of the WebAssembly JS API that the typings at hand (Node's) leave out.
interface Global {
  value: number | bigint;
}
interface Memory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
const customSections = (WebAssembly.Module as unknown as { customSections(m: WebAssembly.Module, name: string): ArrayBuffer[] }).customSections;

export const SNAPSHOT_SECTION = 'gitops-preview.snapshot';
const MAGIC = 'GPSNAP01';
const PAGE = 65536;

interface Header {
  /** The module's id (its custom section SNAPSHOT_SECTION). */
  id: string;
  /** The module's monotonic clock when the snapshot was taken, in ns. */
  monotonicNs: string;
  memoryBytes: number;
  /** Value of each global, by index: decimal text (i64 values do not fit a JSON number). */
  globals: { type: 'i32' | 'i64' | 'f32' | 'f64'; value: string }[];
  /** Runs of non-zero pages: [first page, page count], in order. */
  runs: [number, number][];
}

/**
 * The module made ready for snapshots: every global exported (so the host can read and set them)
 * and the id section added. The id is the digest of the rest of the image.
 */
export function snapshotReady(image: Uint8Array): Uint8Array {
  const exported = withGlobalsExported(image);
  const id = createHash('sha256').update(exported).digest('hex').slice(0, 32);
  return withCustomSection(exported, SNAPSHOT_SECTION, new TextEncoder().encode(id));
}

/** The id a module made by snapshotReady carries; undefined for any other module. */
export function moduleSnapshotId(module: WebAssembly.Module): string | undefined {
  const [section] = customSections(module, SNAPSHOT_SECTION);
  return section ? new TextDecoder().decode(section) : undefined;
}

/** The instance's memory and globals, as a snapshot file's bytes. `image` is the module's (for its globals' types). */
export function takeSnapshot(image: Uint8Array, module: WebAssembly.Module, instance: WebAssembly.Instance, wasi: Wasi): Uint8Array {
  const id = moduleSnapshotId(module);
  if (!id) throw new Error('the module was not made ready for snapshots (snapshotReady)');
  const exports = instance.exports as Record<string, Global | Memory>;
  const memory = exports.memory as Memory;
  const bytes = new Uint8Array(memory.buffer);
  const runs: [number, number][] = [];
  const pages: Uint8Array[] = [];
  for (let page = 0; page * PAGE < bytes.length; page++) {
    const content = bytes.subarray(page * PAGE, (page + 1) * PAGE);
    if (isZero(content)) continue;
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === page) last[1]++;
    else runs.push([page, 1]);
    pages.push(content.slice());
  }
  const globals = definedGlobals(image).map((type, i) => ({ type, value: String((exports[globalExportName(i)] as Global).value) }));
  const header: Header = { id, monotonicNs: String(wasi.now(MONOTONIC)), memoryBytes: bytes.length, globals, runs };
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(MAGIC.length + 4 + headerBytes.length + pages.length * PAGE);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(MAGIC.length, headerBytes.length, true);
  out.set(headerBytes, MAGIC.length + 4);
  pages.forEach((p, i) => out.set(p, MAGIC.length + 4 + headerBytes.length + i * PAGE));
  return out;
}

/**
 * Lays the snapshot in `file` into a new, uninitialised instance of `module`, and tells `wasi` it
 * resumes. Returns false, with the instance untouched, when there is no such file or it was taken of
 * another module (the caller then initialises the instance); throws when the file is damaged or
 * the memory cannot grow to the snapshot's size.
 */
export function restoreSnapshot(file: string, module: WebAssembly.Module, instance: WebAssembly.Instance, wasi: Wasi): boolean {
  const id = moduleSnapshotId(module);
  if (!id) return false;
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return false;
  }
  try {
    const head = Buffer.alloc(MAGIC.length + 4);
    if (fs.readSync(fd, head, 0, head.length, 0) !== head.length || head.toString('latin1', 0, MAGIC.length) !== MAGIC) {
      throw new Error(`${file} is not a snapshot`);
    }
    const headerLength = head.readUInt32LE(MAGIC.length);
    const headerBytes = Buffer.alloc(headerLength);
    if (fs.readSync(fd, headerBytes, 0, headerLength, head.length) !== headerLength) throw new Error(`${file} is cut short`);
    let header: Header;
    try {
      header = JSON.parse(headerBytes.toString('utf8')) as Header;
    } catch {
      throw new Error(`${file} is damaged (its header is not JSON)`);
    }
    if (header.id !== id) return false;
    const pages = header.memoryBytes / PAGE;
    const globals = definedGlobalExports(instance);
    if (
      !Number.isInteger(pages) ||
      !Array.isArray(header.runs) ||
      header.runs.some(([first, count], i) => !Number.isInteger(first) || !(count > 0) || first + count > pages || (i > 0 && first < header.runs[i - 1][0] + header.runs[i - 1][1])) ||
      !Array.isArray(header.globals) ||
      header.globals.length !== globals
    ) {
      throw new Error(`${file} is damaged (its header does not fit the module)`);
    }
    const exports = instance.exports as Record<string, Global | Memory>;
    const memory = exports.memory as Memory;
    const initialBytes = memory.buffer.byteLength;
    if (header.memoryBytes > initialBytes) memory.grow((header.memoryBytes - initialBytes) / PAGE);
    const bytes = new Uint8Array(memory.buffer);
    // The module's data segments filled the start of the memory; a page of it that the snapshot
    // does not hold was all zeros when it was taken.
    let position = head.length + headerLength;
    let zeroFrom = 0;
    for (const [first, count] of header.runs) {
      if (zeroFrom < first * PAGE && zeroFrom < initialBytes) bytes.fill(0, zeroFrom, Math.min(first * PAGE, initialBytes));
      const target = bytes.subarray(first * PAGE, (first + count) * PAGE);
      if (fs.readSync(fd, target, 0, target.length, position) !== target.length) throw new Error(`${file} is cut short`);
      position += target.length;
      zeroFrom = (first + count) * PAGE;
    }
    if (zeroFrom < initialBytes) bytes.fill(0, zeroFrom, initialBytes);
    header.globals.forEach((g, i) => {
      const global = exports[globalExportName(i)] as Global;
      global.value = g.type === 'i64' ? BigInt(g.value) : Number(g.value);
    });
    wasi.resume(memory, BigInt(header.monotonicNs));
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/** How many globals the instance exports under globalExportName (all the module defines, for a module made by snapshotReady). */
function definedGlobalExports(instance: WebAssembly.Instance): number {
  const exports = instance.exports as Record<string, unknown>;
  let n = 0;
  while (globalExportName(n) in exports) n++;
  return n;
}

function isZero(bytes: Uint8Array): boolean {
  const words = new BigUint64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  for (let i = 0; i < words.length; i++) if (words[i] !== 0n) return false;
  return true;
}
