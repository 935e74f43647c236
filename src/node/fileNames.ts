/**
 * File names as the disk holds them (bytes) and as the tool shows them (text). A name that is not
 * UTF-8 cannot round-trip through a JavaScript string: decoded, its bad bytes become U+FFFD and
 * the path no longer opens. Such a name is shown escaped, never opened.
 */

/** Longest path (in bytes, without the terminating NUL) the system opens: PATH_MAX less one (4,096 on Linux, 1,024 on macOS). */
export const MAX_PATH_BYTES = process.platform === 'darwin' ? 1023 : 4095;

/**
 * The name as text: valid UTF-8 as is, every other byte as `\xNN` (and `\` as `\\`, so an
 * escaped name cannot pass for another).
 */
export function escapeFileName(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    const len = utf8SequenceLength(bytes, i);
    if (len === 0) {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i++;
    } else if (b === 0x5c) {
      out += '\\\\';
      i++;
    } else {
      out += Buffer.from(bytes.subarray(i, i + len)).toString('utf8');
      i += len;
    }
  }
  return out;
}

/** Bytes of the well-formed UTF-8 sequence at `i` (RFC 3629: no overlongs, surrogates or code points past U+10FFFF), or 0. */
function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i];
  if (b < 0x80) return 1;
  let len: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) len = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    len = 3;
    if (b === 0xe0) lo = 0xa0;
    if (b === 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    len = 4;
    if (b === 0xf0) lo = 0x90;
    if (b === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + len > bytes.length) return 0;
  for (let k = 1; k < len; k++) {
    const c = bytes[i + k];
    if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return 0;
  }
  return len;
}
