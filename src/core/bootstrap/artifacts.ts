/**
 * OCI artifacts the repository's own scripts push from its folders (`flux push artifact
 * oci://localhost:5050/apps:local --path=./kubernetes/apps`): an OCIRepository pulling that
 * artifact reads that folder, as a GitRepository with the repository's URL reads the working tree.
 */
import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { bootstrapFiles, type BootstrapFile } from './files';
import { readContext } from './steps';
import { isTaskFile, taskRunnerFacts } from './taskRunners';

export interface PushedArtifact {
  /** `host/path` as pushed, without `oci://` and tag. */
  readonly repository: string;
  readonly tag?: string;
  /** The workspace folder pushed, relative ('' = the root). */
  readonly root: string;
  /** Where it is pushed: the file (relative) and 1-based line. */
  readonly at: string;
}

const cache = new WeakMap<Workspace, { scripts: readonly BootstrapFile[]; taskfiles: readonly SourceFile[]; artifacts: readonly PushedArtifact[] }>();
const pushes = (text: string) => text.includes('push artifact');

export function pushedArtifacts(ws: Workspace): readonly PushedArtifact[] {
  const files = bootstrapFiles(ws);
  const taskfiles = [...ws.files.values()].filter((f) => isTaskFile(f.path) && pushes(f.text));
  const cached = cache.get(ws);
  if (cached && cached.scripts === files.files && cached.taskfiles.length === taskfiles.length && cached.taskfiles.every((f, i) => f === taskfiles[i])) return cached.artifacts;
  let artifacts: PushedArtifact[] = [];
  if (taskfiles.length || files.files.some((f) => f.runner && pushes(f.text))) {
    artifacts = taskRunnerFacts(readContext(ws, files), pushes).flatMap((f) => {
      if (f.what !== 'artifact' || !f.dir) return [];
      const ref = splitReference(f.name);
      if (!ref) return [];
      return [{ ...ref, root: f.dir === ws.root ? '' : f.dir.slice(ws.root.length + 1), at: `${f.file.slice(ws.root.length + 1)}:${f.line}` }];
    });
  }
  cache.set(ws, { scripts: files.files, taskfiles, artifacts });
  return artifacts;
}

/** `oci://host/path:tag` (or `@digest`) as its repository and tag. */
export function splitReference(url: string): { repository: string; tag?: string } | undefined {
  if (!url.startsWith('oci://')) return undefined;
  let rest = url.slice('oci://'.length);
  const at = rest.indexOf('@');
  if (at >= 0) rest = rest.slice(0, at);
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  const tag = colon > slash ? rest.slice(colon + 1) : undefined;
  const repository = colon > slash ? rest.slice(0, colon) : rest;
  return repository.includes('/') && !repository.includes('$') && !repository.includes('{{') ? { repository, ...(tag ? { tag } : {}) } : undefined;
}

/**
 * The pushed artifact an OCIRepository pulls: the same repository path (the registry's host may
 * differ: a local registry is pushed to as `localhost:5050` and pulled from inside the cluster by
 * its container name) and, when both name one, the same tag. Undefined unless exactly one folder matches.
 */
export function pulledArtifact(artifacts: readonly PushedArtifact[], url: string | undefined, tag: string | undefined): PushedArtifact | undefined {
  const wanted = url && splitReference(url);
  if (!wanted) return undefined;
  const path = (r: string) => r.slice(r.indexOf('/') + 1);
  const found = artifacts.filter((a) => path(a.repository) === path(wanted.repository) && (!tag || !a.tag || a.tag === tag));
  return new Set(found.map((a) => a.root)).size === 1 ? found[0] : undefined;
}
