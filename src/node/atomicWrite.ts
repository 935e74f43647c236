/**
 * A file of the product's caches written whole or not at all: under a temporary name beside it,
 * then renamed over it, so a reader (another process sharing the cache) sees the old file or the
 * new one, never a part. Private to the user (folder 0700, file 0600). Never throws.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Writes `data` to `file` as above; the error when it could not (the previous file, if any, intact). */
export function writeAtomically(file: string, data: string | Uint8Array): Error | undefined {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
    return undefined;
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // Nothing more to do: the temporary file is left to the cache's own clean-up.
    }
    return err as Error;
  }
}
