/**
 * The workspace read ahead by the CLI's main thread while the command's worker starts (issue 27).
 * The main thread has nothing to do for the ≈ 50 ms node takes to start the worker and load the
 * command's bundle; the walk's reads (every folder listed, every manifest read) take about as long
 * on a home-ops repository, so the worker's walk finds them done.
 *
 * Nothing is decided here: the read-ahead lists folders and reads manifests as diskHost does
 * (regular files only, each bounded), follows no symbolic link and applies no ignore file. The
 * worker's walk still decides what it reads and takes each answer from here once, for the same
 * path and within its own bound, else from the disk. Bounded as a whole: files, bytes and time.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { DirEntry, FileRead, WorkspaceHost } from '../core/workspace/host';
import { isManifestFileName, MAX_FILE_BYTES, SKIPPED_DIRS } from '../core/workspace/scanned';
import { diskHost } from '../node/fsHost';

export interface ReadAhead {
  readonly type: 'read-ahead';
  readonly root: string;
  readonly dirs: [string, DirEntry[]][];
  /** Path, text, its size in bytes, its SHA-256 in hex. */
  readonly files: [string, string, number, string][];
}

export interface ReadAheadBudget {
  readonly files: number;
  readonly bytes: number;
  readonly ms: number;
}

/**
 * Past these the read-ahead stops and sends what it has (the worker reads the rest): more than a
 * home-ops repository holds, and a time after which the worker has started its own walk.
 */
export const READ_AHEAD_BUDGET: ReadAheadBudget = { files: 20_000, bytes: 32 * 2 ** 20, ms: 250 };

/** Commands that open a workspace, and so walk it first. */
const WALKING = new Set(['check', 'tree', 'build', 'diff', 'changes', 'graph']);

/** The commands' flags that take no value: after any other flag (without `=`) comes its value. */
const BOOLEAN_FLAGS = new Set(['--offline', '--no-strict', '--no-sources', '--help', '-h']);

/**
 * The folder a command will open: its last argument, not a flag's value, that names a folder, else
 * the current one. A guess (the command's own parser decides): a wrong one costs a bounded read,
 * never an answer.
 */
export function readAheadRoot(argv: readonly string[], cwd: string): string | undefined {
  if (!WALKING.has(argv[0] ?? '') || argv.includes('--help') || argv.includes('-h')) return undefined;
  for (let i = argv.length - 1; i >= 1; i--) {
    const arg = argv[i];
    const before = argv[i - 1];
    if (arg.startsWith('-') || (i > 1 && before.startsWith('-') && !before.includes('=') && !BOOLEAN_FLAGS.has(before))) continue;
    const dir = path.resolve(cwd, arg);
    try {
      if (fs.statSync(dir).isDirectory()) return toSlashes(dir);
    } catch {
      // Not a folder: a name, a namespace, a ref.
    }
  }
  return toSlashes(path.resolve(cwd));
}

function toSlashes(p: string): string {
  return p.split(path.sep).join('/');
}

/** Folders listed and manifests read under `root`, as the walk would ask for them, within `budget`. */
export function readAhead(root: string, budget: ReadAheadBudget = READ_AHEAD_BUDGET, host: WorkspaceHost = diskHost): ReadAhead {
  const out: ReadAhead = { type: 'read-ahead', root, dirs: [], files: [] };
  const deadline = Date.now() + budget.ms;
  let bytes = 0;
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    const listed = host.readDir(dir);
    if (!Array.isArray(listed)) continue;
    out.dirs.push([dir, listed]);
    const isChart = listed.some((e) => !e.isDirectory && e.name === 'Chart.yaml');
    for (const e of listed) {
      if (e.link || e.unreadable) continue;
      const p = `${dir}/${e.name}`;
      if (e.isDirectory) {
        if (!SKIPPED_DIRS.has(e.name) && !(isChart && e.name === 'templates')) stack.push(p);
        continue;
      }
      if (!isManifestFileName(e.name) && e.name !== '.sourceignore') continue;
      if (out.files.length >= budget.files || bytes >= budget.bytes || Date.now() > deadline) return out;
      const read = host.readFile(p, Math.min(MAX_FILE_BYTES, budget.bytes - bytes));
      if (typeof read !== 'string') continue;
      const size = Buffer.byteLength(read);
      bytes += size;
      out.files.push([p, read, size, createHash('sha256').update(read).digest('hex')]);
    }
  }
  return out;
}

/**
 * `inner`, answering the first read of each path from the read-ahead that `port` delivers for
 * `root` (taken when the first read is asked, or at a later miss if it comes late); other roots'
 * read-aheads, later reads and reads under a smaller bound go to `inner`. The digests of the texts
 * it answered are known (WorkspaceHost.digest) for as long as the file holds that text.
 */
export function readAheadHost(inner: WorkspaceHost, root: string, port: MessagePort): WorkspaceHost {
  let dirs: Map<string, DirEntry[]> | undefined;
  let files: Map<string, [string, number, string]> | undefined;
  const digests = new Map<string, [string, string]>();
  let waiting = true;
  const take = () => {
    if (!waiting) return;
    const got = receiveMessageOnPort(port)?.message as Partial<ReadAhead> | undefined;
    if (got?.type !== 'read-ahead') return;
    waiting = false;
    if (got.root !== root || !Array.isArray(got.dirs) || !Array.isArray(got.files)) return;
    dirs = new Map(got.dirs);
    files = new Map(got.files.map(([p, text, size, digest]) => [p, [text, size, digest]]));
  };
  return {
    ...inner,
    readDir(p) {
      take();
      const listed = dirs?.get(p);
      if (!listed) return inner.readDir(p);
      dirs!.delete(p);
      return listed;
    },
    readFile(p, maxBytes): FileRead | undefined {
      take();
      const known = files?.get(p);
      if (!known) return inner.readFile(p, maxBytes);
      files!.delete(p);
      if (known[1] > maxBytes) return inner.readFile(p, maxBytes);
      digests.set(p, [known[0], known[2]]);
      return known[0];
    },
    digest(p, text) {
      const known = digests.get(p);
      return known && known[0] === text ? known[1] : inner.digest?.(p, text);
    },
  };
}
