import * as fs from 'node:fs';
import type { GitCheckout } from '../core/model/sources';
import { tooLarge, type FileRead, type WorkspaceHost } from '../core/workspace/host';

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
      return boundedRead(fd, maxBytes);
    } catch (err) {
      return { notRead: 'unreadable', message: `File could not be read (${describeError(err, path)}); checks skip it.` };
    } finally {
      fs.closeSync(fd);
    }
  },
  readDir(path) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path, { withFileTypes: true });
    } catch {
      return [];
    }
    return entries.map((d) => {
      if (d.isDirectory() || d.isFile()) return { name: d.name, isDirectory: d.isDirectory() };
      if (!d.isSymbolicLink()) return { name: d.name, isDirectory: false, unreadable: `${kindOf(d)} is not a regular file; it was not read.` };
      let target: fs.Stats;
      try {
        target = fs.statSync(`${path}/${d.name}`);
      } catch (err) {
        return { name: d.name, isDirectory: false, unreadable: `Symbolic link cannot be followed (${describeError(err, `${path}/${d.name}`)}); it was not read.` };
      }
      if (target.isDirectory() || target.isFile()) return { name: d.name, isDirectory: target.isDirectory(), link: true };
      return { name: d.name, isDirectory: false, unreadable: `Symbolic link to ${kindOf(target).toLowerCase()}, not a regular file; it was not read.` };
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

function boundedRead(fd: number, maxBytes: number): FileRead {
  const started = Date.now();
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, maxBytes + 1 - total));
    const n = fs.readSync(fd, buffer, 0, buffer.length, null);
    if (n === 0) break;
    chunks.push(n === buffer.length ? buffer : buffer.subarray(0, n));
    total += n;
    if (total > maxBytes) return tooLarge(total, maxBytes);
    if (Date.now() - started > READ_BUDGET_MS) return { notRead: 'unreadable', message: `Reading the file took longer than ${READ_BUDGET_MS / 1000} s; it was not read.` };
  }
  return Buffer.concat(chunks, total).toString('utf8');
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
  return e.code ?? (e.message || String(err)).replace(path, '').trim();
}

/** URLs of the remotes in `.git/config`, without running git. */
export function gitRemotes(root: string): string[] {
  const text = diskHost.readFile(`${root}/.git/config`, 1024 * 1024);
  if (typeof text !== 'string') return [];
  // Line by line: with the `m` flag, `^\s*` would run across every blank line from each line start.
  const urls: string[] = [];
  for (const line of text.split(/\r\n?|[\n\u2028\u2029]/)) {
    const m = /^\s*url\s*=\s*(.+)$/.exec(line);
    if (m) urls.push(m[1].trim());
  }
  return urls;
}

/**
 * What the workspace has checked out, from `.git/HEAD` and its refs, without running git: the
 * branch (also when it has no commit yet), the commit, and the tags pointing at it. A `.git` file
 * (worktrees, submodules) is followed to its git directory.
 */
export function gitCheckout(root: string): GitCheckout | undefined {
  // Bounded like every other read of the repository: `.git` is as untrusted as the rest.
  const read = (p: string) => {
    const text = diskHost.readFile(p, 4 * 1024 * 1024);
    return typeof text === 'string' ? text : undefined;
  };
  let gitDir = `${root}/.git`;
  const pointer = read(gitDir);
  if (pointer !== undefined) {
    const m = /^gitdir:\s*(.+)$/m.exec(pointer);
    if (!m) return undefined;
    gitDir = m[1].trim().startsWith('/') ? m[1].trim() : `${root}/${m[1].trim()}`;
  }
  const head = read(`${gitDir}/HEAD`)?.trim();
  if (!head) return undefined;
  // Worktrees keep shared refs in the common directory.
  const common = read(`${gitDir}/commondir`)?.trim();
  const refsDir = common ? (common.startsWith('/') ? common : `${gitDir}/${common}`) : gitDir;
  const packed = read(`${refsDir}/packed-refs`) ?? '';
  const resolve = (ref: string): string | undefined => {
    const loose = read(`${gitDir}/${ref}`)?.trim() ?? read(`${refsDir}/${ref}`)?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return loose;
    const line = packed.split('\n').find((l) => l.endsWith(` ${ref}`));
    return line?.split(' ')[0];
  };
  let branch: string | undefined;
  let commit: string | undefined;
  if (head.startsWith('ref: ')) {
    const ref = head.slice(5).trim();
    if (ref.startsWith('refs/heads/')) branch = ref.slice('refs/heads/'.length);
    commit = resolve(ref);
  } else if (/^[0-9a-f]{40,64}$/.test(head)) commit = head;
  const tags: string[] = [];
  if (commit) {
    const tagsDir = `${refsDir}/refs/tags`;
    let names: string[] = [];
    try {
      names = fs.readdirSync(tagsDir);
    } catch {
      /* no loose tags */
    }
    for (const name of names) if (read(`${tagsDir}/${name}`)?.trim() === commit) tags.push(name);
    const lines = packed.split('\n');
    lines.forEach((line, i) => {
      const [sha, ref] = line.split(' ');
      if (!ref?.startsWith('refs/tags/')) return;
      const peeled = lines[i + 1]?.startsWith('^') ? lines[i + 1].slice(1) : undefined;
      if (sha === commit || peeled === commit) tags.push(ref.slice('refs/tags/'.length));
    });
  }
  return { branch, commit, tags };
}
