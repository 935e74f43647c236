/**
 * Edits of a WebAssembly module's image (the binary format's sections), each returning a new image
 * and leaving its input as it was.
 */

const SECTION_CUSTOM = 0;
const SECTION_GLOBAL = 6;
const SECTION_MEMORY = 5;
const SECTION_EXPORT = 7;
const EXTERNAL_GLOBAL = 3;
const HEADER_BYTES = 8;

interface Section {
  id: number;
  /** Where the section starts (its id byte). */
  start: number;
  /** Where its content starts, after the id and the size. */
  body: number;
  end: number;
}

function* sections(image: Uint8Array): Generator<Section> {
  let pos = HEADER_BYTES;
  while (pos < image.length) {
    const [size, sizeLen] = readLeb(image, pos + 1);
    const body = pos + 1 + sizeLen;
    yield { id: image[pos], start: pos, body, end: body + size };
    pos = body + size;
  }
}

function replaceSection(image: Uint8Array, s: Section, content: readonly number[] | Uint8Array): Uint8Array {
  const head = [s.id, ...leb(content.length)];
  const out = new Uint8Array(image.length - (s.end - s.start) + head.length + content.length);
  out.set(image.subarray(0, s.start), 0);
  out.set(head, s.start);
  out.set(content, s.start + head.length);
  out.set(image.subarray(s.end), s.start + head.length + content.length);
  return out;
}

/**
 * Gives the module's memory a maximum (wasm memory section limits), which Go's runtime otherwise
 * grows without bound: past it, allocation fails inside the module, which traps, and the host
 * starts a fresh instance. Returns `image` itself when its maximum is that already.
 */
export function withMemoryMaximum(image: Uint8Array, maxBytes: number): Uint8Array {
  const maxPages = Math.max(1, Math.floor(maxBytes / 65536));
  for (const s of sections(image)) {
    if (s.id !== SECTION_MEMORY) continue;
    const [count, countLen] = readLeb(image, s.body);
    if (count !== 1) return image;
    const flagsAt = s.body + countLen;
    const flags = image[flagsAt];
    if (flags !== 0 && flags !== 1) return image;
    const [min, minLen] = readLeb(image, flagsAt + 1);
    const max = Math.max(maxPages, min);
    // Already so (scripts/snapshot-wasm.ts gives the built modules the default maximum): the image
    // is taken as it is, sparing a copy of tens of MB.
    if (flags === 1 && readLeb(image, flagsAt + 1 + minLen)[0] === max) return image;
    return replaceSection(image, s, [...leb(1), 1, ...leb(min), ...leb(max)]);
  }
  return image;
}

/** The type of each global the module defines, in index order (none imported here: Go imports functions only). */
export function definedGlobals(image: Uint8Array): ('i32' | 'i64' | 'f32' | 'f64')[] {
  const types = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64' } as const;
  for (const s of sections(image)) {
    if (s.id !== SECTION_GLOBAL) continue;
    const [count, countLen] = readLeb(image, s.body);
    const out: ('i32' | 'i64' | 'f32' | 'f64')[] = [];
    let at = s.body + countLen;
    for (let i = 0; i < count; i++) {
      const type = types[image[at] as keyof typeof types];
      if (!type) throw new Error(`global ${i} has a type this tool does not know (0x${image[at].toString(16)})`);
      out.push(type);
      // type, mutability, then a constant expression ending with `end` (0x0b); Go's are one
      // i32.const/i64.const (whose LEB operand has no 0x0b byte before its last byte).
      at += 2;
      const op = image[at];
      if (op !== 0x41 && op !== 0x42) throw new Error(`global ${i} is initialised by an expression this tool does not read (0x${op.toString(16)})`);
      at += 1 + readLeb(image, at + 1)[1];
      if (image[at] !== 0x0b) throw new Error(`global ${i}'s initialiser is longer than one constant`);
      at++;
    }
    return out;
  }
  return [];
}

/** The name under which `withGlobalsExported` exports global `index`. */
export function globalExportName(index: number): string {
  return `gitops-preview.global.${index}`;
}

/** Exports every global the module defines (see globalExportName), so a host can read and set them. */
export function withGlobalsExported(image: Uint8Array): Uint8Array {
  const count = definedGlobals(image).length;
  const enc = new TextEncoder();
  for (const s of sections(image)) {
    if (s.id !== SECTION_EXPORT) continue;
    const [exports, exportsLen] = readLeb(image, s.body);
    const added: number[] = [];
    for (let i = 0; i < count; i++) {
      const name = enc.encode(globalExportName(i));
      added.push(...leb(name.length), ...name, EXTERNAL_GLOBAL, ...leb(i));
    }
    const content = new Uint8Array([...leb(exports + count), ...image.subarray(s.body + exportsLen, s.end), ...added]);
    return replaceSection(image, s, content);
  }
  throw new Error('the module has no export section');
}

/** Appends a custom section (which engines ignore; WebAssembly.Module.customSections reads it). */
export function withCustomSection(image: Uint8Array, name: string, content: Uint8Array): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  const body = [...leb(nameBytes.length), ...nameBytes];
  const head = [SECTION_CUSTOM, ...leb(body.length + content.length), ...body];
  const out = new Uint8Array(image.length + head.length + content.length);
  out.set(image, 0);
  out.set(head, image.length);
  out.set(content, image.length + head.length);
  return out;
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
