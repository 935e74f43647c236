/**
 * A chart package (`.tgz`) read in memory: gunzip and untar with hard caps, since the bytes come
 * from a chart repository or registry. Only regular files and folders are taken; a link, a device,
 * an absolute path or a `..` segment refuses the whole package (helm refuses them too), and past
 * the entry count or the unpacked size the package is refused rather than cut.
 */
import { gunzipSync } from 'node:zlib';

export interface TarLimits {
  maxEntries: number;
  /** Unpacked bytes, all files together (also the gunzip output cap). */
  maxBytes: number;
}

export const DEFAULT_TAR_LIMITS: TarLimits = { maxEntries: 10_000, maxBytes: 256 * 2 ** 20 };

export interface TarFile {
  /** Relative path, `/` separators, no `.`/`..` segments. */
  path: string;
  data: Buffer;
}

export type TarResult = { ok: true; files: TarFile[] } | { ok: false; error: string };

function field(block: Buffer, offset: number, length: number): string {
  const end = block.indexOf(0, offset);
  return block.toString('utf8', offset, end >= 0 && end < offset + length ? end : offset + length);
}

function octal(block: Buffer, offset: number, length: number): number {
  // GNU base-256 for sizes over 8 GB: far past any cap, so refused as not a number.
  if (block[offset] & 0x80) return NaN;
  const text = field(block, offset, length).trim();
  if (text === '') return 0;
  let n = 0;
  for (const c of text) {
    if (c < '0' || c > '7') return NaN;
    n = n * 8 + (c.charCodeAt(0) - 48);
  }
  return n;
}

/** PAX records `LEN key=value\n`: only `path` matters here. */
function paxPath(data: Buffer): string | undefined {
  let i = 0;
  let found: string | undefined;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space < 0) break;
    const len = Number(data.toString('ascii', i, space));
    if (!Number.isSafeInteger(len) || len <= 0 || i + len > data.length) break;
    const record = data.toString('utf8', space + 1, i + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === 'path') found = record.slice(eq + 1);
    i += len;
  }
  return found;
}

/** The path as a clean relative one, or undefined when it is absolute or climbs out. */
export function safeEntryPath(name: string): string | undefined {
  if (name.startsWith('/') || name.includes('\\') || name.includes('\0') || /^[A-Za-z]:/.test(name)) return undefined;
  const parts: string[] = [];
  for (const seg of name.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') return undefined;
    parts.push(seg);
  }
  return parts.length ? parts.join('/') : '';
}

/** Un-gzips and reads a tar archive, refusing what a chart never holds and what passes the limits. */
export function readTarGz(gz: Uint8Array, limits: TarLimits = DEFAULT_TAR_LIMITS): TarResult {
  let tar: Buffer;
  try {
    // One extra header block of room: an archive that fills it is over the cap.
    tar = gunzipSync(gz, { maxOutputLength: limits.maxBytes + 512 * 4 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { ok: false, error: e.code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|too large/i.test(e.message) ? `it unpacks to more than ${limits.maxBytes} bytes` : `it is not gzip data (${e.message})` };
  }
  const files: TarFile[] = [];
  let total = 0;
  let entries = 0;
  let longName: string | undefined;
  let offset = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    if (++entries > limits.maxEntries) return { ok: false, error: `it has more than ${limits.maxEntries} entries` };
    const size = octal(header, 124, 12);
    if (!Number.isSafeInteger(size) || size < 0) return { ok: false, error: `entry ${entries} has no valid size` };
    const dataStart = offset + 512;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) return { ok: false, error: 'it is truncated' };
    const type = String.fromCharCode(header[156] || 0x30);
    const prefix = header.toString('ascii', 257, 263).startsWith('ustar') ? field(header, 345, 155) : '';
    const rawName = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / 512) * 512;
    switch (type) {
      case 'x':
        longName = paxPath(data);
        continue;
      case 'L':
        longName = field(data, 0, data.length);
        continue;
      case 'g':
        continue;
      case '5':
        if (safeEntryPath(rawName) === undefined) return { ok: false, error: `entry '${rawName}' leaves the chart folder` };
        continue;
      case '0':
      case '7': {
        const rel = safeEntryPath(rawName);
        if (!rel) return { ok: false, error: `entry '${rawName}' leaves the chart folder` };
        total += size;
        if (total > limits.maxBytes) return { ok: false, error: `it unpacks to more than ${limits.maxBytes} bytes` };
        files.push({ path: rel, data: Buffer.from(data) });
        continue;
      }
      case '1':
      case '2':
        return { ok: false, error: `entry '${rawName}' is a link (charts hold regular files only)` };
      default:
        return { ok: false, error: `entry '${rawName}' is not a regular file or folder (type '${type}')` };
    }
  }
  return { ok: true, files };
}
