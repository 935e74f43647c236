/** Builds ustar archives in memory for tests: any entry type, any name (the hostile ones too). */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  data?: string | Buffer;
  /** ustar type flag: '0' file, '5' folder, '2' symlink, '1' hard link, 'x' PAX header. */
  type?: string;
  linkname?: string;
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(e.name.slice(0, 100), 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write(e.type ?? '0', 156);
  if (e.linkname) h.write(e.linkname, 157);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

export function tar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0));
    parts.push(header(e, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export function tgz(entries: readonly TarEntry[]): Buffer {
  return gzipSync(tar(entries));
}

/** A PAX extended header whose `path` record names the next entry. */
export function paxPath(p: string): TarEntry {
  const body = (len: number) => `${len} path=${p}\n`;
  let len = body(0).length;
  while (body(len).length !== len) len = body(len).length;
  return { name: 'PaxHeaders/x', type: 'x', data: body(len) };
}
