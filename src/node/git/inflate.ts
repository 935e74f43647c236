import * as zlib from 'node:zlib';
import { GitError } from './limits';

/** zlib data inflated to at most `maxBytes` (a small stream can inflate to gigabytes). */
export function inflateBounded(data: Uint8Array, maxBytes: number, what: string): Buffer {
  try {
    return zlib.inflateSync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new GitError(`${what} inflates past the ${maxBytes}-byte object limit`);
    throw new GitError(`${what} is corrupt (${(err as Error).message})`);
  }
}
