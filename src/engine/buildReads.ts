/**
 * What a Kustomization's build read, as digests of the source's current content: a cached build is
 * reused only while every path it looked at still has the digest recorded when it ran.
 */
import { createHash } from 'node:crypto';
import type { SourceView } from '../core/model/view';
import type { Workspace } from '../core/workspace/workspace';
import { fileContent } from '../render/files';
import type { ReadKind } from '../render/kustomize';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The source as a build sees it: the view's files, inferred file contents, Flux's kustomization at spec.path. */
export interface SourceState {
  readonly ws: Workspace;
  readonly view: SourceView;
  readonly overrides: ReadonlyMap<string, string>;
  /** Flux's kustomization at spec.path: its path and canonical content (FluxKustomizationText.key). */
  readonly generated: { readonly path: string; readonly key: string };
}

/** The digest of one read: a file's content hash, 'file'/'dir'/'absent' for a lookup, a folder's names. */
export function readDigest(state: SourceState, vpath: string, how: ReadKind): string {
  const { view, generated } = state;
  const isGenerated = vpath === generated.path;
  const real = isGenerated ? undefined : view.file(vpath);
  const isDir = !isGenerated && !real && view.hasDir(vpath);
  if (how === 'stat') return isGenerated || real ? 'file' : isDir ? 'dir' : 'absent';
  if (how === 'list') {
    const listing = isDir ? view.listDir(vpath) : undefined;
    if (!listing) return isGenerated || real ? 'file' : 'absent';
    const names = [...listing.files.keys(), ...[...listing.dirs].map((d) => `${d}/`)];
    const genDir = generated.path.includes('/') ? generated.path.slice(0, generated.path.lastIndexOf('/')) : '';
    if (genDir === vpath) names.push(generated.path.slice(genDir ? genDir.length + 1 : 0));
    return sha256([...new Set(names)].sort().join('\n'));
  }
  if (isGenerated) return sha256(`generated:${generated.key}`);
  if (!real) return isDir ? 'dir' : 'absent';
  return fileDigest(state, real);
}

/** The digest of a workspace file's content as a build is given it (inferred contents first). */
export function fileDigest(state: Pick<SourceState, 'ws' | 'overrides'>, real: string): string {
  const data = state.overrides.get(real) ?? fileContent(state.ws, real);
  if (data === undefined) return 'absent';
  return (typeof data === 'string' && state.ws.knownDigest(real, data)) || sha256(data);
}

export function readDigests(state: SourceState, reads: Readonly<Record<string, ReadKind>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [vpath, how] of Object.entries(reads)) out[`${how}:${vpath}`] = readDigest(state, vpath, how);
  return out;
}

/** Whether every recorded read still has its digest. */
export function readsHold(state: SourceState, digests: Readonly<Record<string, string>>): boolean {
  for (const [entry, digest] of Object.entries(digests)) {
    const at = entry.indexOf(':');
    if (readDigest(state, entry.slice(at + 1), entry.slice(0, at) as ReadKind) !== digest) return false;
  }
  return true;
}

/**
 * Workspace paths whose change can change what the build read: the files and folders it looked
 * up (exact paths, would-be paths of absent ones included) and the folders it listed (any entry
 * appearing or vanishing there).
 */
export function watchedPaths(view: SourceView, reads: Readonly<Record<string, ReadKind>>): { files: Set<string>; dirs: Set<string> } {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const realOf = (vp: string): string | undefined => {
    const direct = view.file(vp) ?? view.realDir(vp);
    if (direct) return direct;
    const slash = vp.lastIndexOf('/');
    const parent = view.realDir(slash < 0 ? '' : vp.slice(0, slash));
    return parent && `${parent}/${vp.slice(slash + 1)}`;
  };
  for (const [vp, how] of Object.entries(reads)) {
    const real = realOf(vp);
    if (!real) continue;
    if (how === 'list') dirs.add(real);
    else files.add(real);
  }
  return { files, dirs };
}
