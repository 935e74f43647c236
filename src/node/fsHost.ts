import { isUtf8 } from 'node:buffer';
import * as fs from 'node:fs';
import { tooLarge, type DirEntry, type FileRead, type WorkspaceHost } from '../core/workspace/host';
import { escapeFileName, MAX_PATH_BYTES } from './fileNames';

/** Reading one file may take this long (a slow network mount, a file growing while read); then it is skipped. */
export const READ_BUDGET_MS = 2000;
const CHUNK = 64 * 1024;

/**
 * The disk as a WorkspaceHost (used by the CLI, the extension and benchmarks). A repository is
 * untrusted: only regular files are read, opened without blocking (a FIFO named `*.yaml` must not
 * hang the walk), their size checked on the open descriptor before reading, and the read itself
 * bounded in bytes and time (a file can grow, or lie about its size, after the check).
 */
export const diskHost: WorkspaceHost = {
  readFile(path, maxBytes) {
    let fd: number;
    try {
      fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !isLink(path)) return undefined;
      return { notRead: 'unreadable', message: `File could not be read (${describeError(err, path)}); checks skip it.` };
    }
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) return { notRead: 'unreadable', message: `${kindOf(stat)} is not a regular file; it was not read.` };
      if (stat.size > maxBytes) return tooLarge(stat.size, maxBytes);
      return boundedRead(fd, maxBytes, stat.size);
    } catch (err) {
      return { notRead: 'unreadable', message: `File could not be read (${describeError(err, path)}); checks skip it.` };
    } finally {
      fs.closeSync(fd);
    }
  },
  readDir(path) {
    let entries: fs.Dirent<Buffer>[];
    try {
      // As bytes: a name that is not UTF-8 would not open again once decoded to a string.
      entries = fs.readdirSync(path, { withFileTypes: true, encoding: 'buffer' });
    } catch (err) {
      // Gone since it was listed (a change under way): nothing to read, nothing to report.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      return { notRead: 'unreadable', message: `Folder could not be listed (${describeError(err, path)}); nothing in it was read.` };
    }
    return entries.map((d): DirEntry => {
      const name = d.name.toString('utf8');
      const isDirectory = d.isDirectory();
      const what = isDirectory ? 'Folder' : 'File';
      if (!isUtf8(d.name)) {
        return { name: escapeFileName(d.name), isDirectory, nameUnreadable: true, unreadable: `${what} name is not valid UTF-8 (its other bytes are shown as \\xNN); it was not read, and local builds leave it out.` };
      }
      const bytes = Buffer.byteLength(`${path}/${name}`);
      if (bytes > MAX_PATH_BYTES) {
        return { name, isDirectory, nameUnreadable: true, unreadable: `${what} path is ${bytes} bytes long, over the ${MAX_PATH_BYTES + 1}-byte limit of the system (PATH_MAX); it was not read, and local builds leave it out.` };
      }
      if (isDirectory || d.isFile()) return { name, isDirectory };
      if (!d.isSymbolicLink()) return { name, isDirectory: false, unreadable: `${kindOf(d)} is not a regular file; it was not read.` };
      let target: fs.Stats;
      try {
        target = fs.statSync(`${path}/${name}`);
      } catch (err) {
        return { name, isDirectory: false, unreadable: `Symbolic link cannot be followed (${describeError(err, `${path}/${name}`)}); it was not read.` };
      }
      if (target.isDirectory() || target.isFile()) return { name, isDirectory: target.isDirectory(), link: true };
      return { name, isDirectory: false, unreadable: `Symbolic link to ${kindOf(target).toLowerCase()}, not a regular file; it was not read.` };
    });
  },
  realPath(path) {
    try {
      return fs.realpathSync.native(path).split('\\').join('/');
    } catch {
      return undefined;
    }
  },
};

/**
 * The file's text, read in chunks of at most CHUNK bytes. The first chunk is sized by `size` (the
 * size the open file had) plus one: most files are then read by one read, which comes back short
 * with all the file said it held, instead of a 64 KB buffer each and a second read to find the end.
 * A file that grew since fills the chunk and is read on to its end, within the bounds.
 */
function boundedRead(fd: number, maxBytes: number, size: number): FileRead {
  const started = Date.now();
  const chunks: Buffer[] = [];
  let total = 0;
  let want = Math.min(size + 1, CHUNK);
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(want, maxBytes + 1 - total));
    const n = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    chunks.push(n === buffer.length ? buffer : buffer.subarray(0, n));
    total += n;
    if (total > maxBytes) return tooLarge(total, maxBytes);
    if (Date.now() - started > READ_BUDGET_MS) return { notRead: 'unreadable', message: `Reading the file took longer than ${READ_BUDGET_MS / 1000} s; it was not read.` };
    if (n < buffer.length && total >= size) break;
    want = CHUNK;
  }
  return (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total)).toString('utf8');
}

function isLink(path: string): boolean {
  try {
    return fs.lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function kindOf(s: { isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean; isDirectory(): boolean }): string {
  if (s.isFIFO()) return 'A FIFO (named pipe)';
  if (s.isCharacterDevice()) return 'A character device';
  if (s.isBlockDevice()) return 'A block device';
  if (s.isSocket()) return 'A socket';
  if (s.isDirectory()) return 'A folder';
  return 'A special file';
}

function describeError(err: unknown, path: string): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'a broken symbolic link';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  if (e.code === 'ELOOP') return 'a symbolic link loop';
  if (e.code === 'ENAMETOOLONG') return 'its path is longer than the system allows';
  return e.code ?? (e.message || String(err)).replace(path, '').trim();
}
