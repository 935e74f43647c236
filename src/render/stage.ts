/**
 * Copies a source artifact (a SourceView over the workspace) into a private temp dir, so builds
 * never write into the user's folders and see unsaved editor buffers.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Workspace } from '../core/workspace/workspace';
import type { SourceView } from '../core/model/view';

export async function makeTempDir(prefix: string): Promise<string> {
  return fs.promises.mkdtemp(path.join(os.tmpdir(), `gitops-preview-${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * Bytes of a workspace file: manifests come from the model (editor buffer or disk, as parsed);
 * other files are copied byte for byte from disk unless an editor buffer differs from it.
 */
export function fileContent(ws: Workspace, real: string): Buffer | string | undefined {
  if (ws.files.has(real)) return ws.readText(real);
  let disk: Buffer | undefined;
  try {
    disk = fs.readFileSync(real);
  } catch {
    disk = undefined;
  }
  const text = ws.readText(real);
  if (disk && (text === undefined || disk.toString('utf8') === text)) return disk;
  return text;
}

/**
 * Writes every file of `view` (from its root) below `dest`; `overrides` replaces the content of
 * some real files (the inferred bootstrap objects of a placeholder gotk-sync.yaml). Returns the number of files.
 */
export async function stageView(ws: Workspace, view: SourceView, dest: string, overrides: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<number> {
  const jobs: { target: string; real: string }[] = [];
  const dirs: string[] = [dest];
  const walk = (vdir: string) => {
    const listing = view.listDir(vdir);
    if (!listing) return;
    const base = vdir ? path.join(dest, vdir) : dest;
    if (vdir) dirs.push(base);
    for (const [name, real] of listing.files) jobs.push({ target: path.join(base, name), real });
    for (const sub of listing.dirs) walk(vdir ? `${vdir}/${sub}` : sub);
  };
  walk('');
  for (const d of dirs) await fs.promises.mkdir(d, { recursive: true });
  const BATCH = 32;
  for (let i = 0; i < jobs.length; i += BATCH) {
    if (signal?.aborted) throw new Error('cancelled');
    await Promise.all(
      jobs.slice(i, i + BATCH).map(async ({ target, real }) => {
        const content = overrides.get(real) ?? fileContent(ws, real);
        if (content !== undefined) await fs.promises.writeFile(target, content);
      }),
    );
  }
  return jobs.length;
}

/** Copies a folder from disk (a Helm chart, whose templates the workspace does not index), buffers honoured. */
export async function stageDiskDir(ws: Workspace, src: string, dest: string): Promise<void> {
  await fs.promises.mkdir(dest, { recursive: true });
  const entries = await fs.promises.readdir(src, { withFileTypes: true });
  for (const e of entries) {
    if (e.name === '.git') continue;
    const from = path.join(src, e.name);
    const to = path.join(dest, e.name);
    if (e.isDirectory()) await stageDiskDir(ws, from, to);
    else if (e.isFile()) {
      const content = fileContent(ws, from.split(path.sep).join('/'));
      if (content !== undefined) await fs.promises.writeFile(to, content);
    }
  }
}
