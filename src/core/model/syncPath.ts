/**
 * A FluxInstance's `sync.path` may hold post-build variables (`kubernetes/clusters/${CLUSTER}/bootstrap`)
 * that the Kustomization applying the FluxInstance fills. The model reads the path as Flux will see
 * it: with the values of the Kustomizations whose folder holds the owner, else each existing folder
 * the variables can stand for, else as written.
 */
import { substitute } from '../substitution/evaluate';
import { findSubstitutions } from '../substitution/parse';
import type { Workspace } from '../workspace/workspace';
import type { FluxInstanceSync } from './fluxOperator';
import { asRecord, asString, type KubeObject } from './objects';
import { normalizeVirtual } from './view';

/** Each sync once per path it stands for; a sync of several paths gets one variant per path. */
export function resolvedSyncs(syncs: readonly FluxInstanceSync[], objects: readonly KubeObject[], ws: Workspace): FluxInstanceSync[] {
  if (!syncs.some((s) => s.path.includes('${'))) return [...syncs];
  const kustomizations = objects.filter((o) => o.fluxKind === 'Kustomization' && !o.synthetic);
  const prefix = ws.root.endsWith('/') ? ws.root : `${ws.root}/`;
  const relative = (p: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : p);
  let folders: Set<string> | undefined;
  const allFolders = () => (folders ??= foldersOf([...ws.files.keys()].map(relative)));
  return syncs.flatMap((sync) => {
    const paths = resolveSyncPath(sync.path, relative(sync.owner.doc.file.path), kustomizations, allFolders);
    if (paths.length === 1) return [{ ...sync, path: paths[0] }];
    return paths.map((path) => ({ ...sync, path, variant: path }));
  });
}

function foldersOf(files: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    for (let i = file.lastIndexOf('/'); i > 0; i = file.lastIndexOf('/', i - 1)) {
      const dir = file.slice(0, i);
      if (out.has(dir)) break;
      out.add(dir);
    }
  }
  return out;
}

/** The paths `path` stands for; `[path]` when it holds no variable or nothing resolves it. */
export function resolveSyncPath(path: string, ownerFile: string, kustomizations: readonly KubeObject[], folders: () => Iterable<string>): string[] {
  if (!path.includes('${')) return [path];
  const { refs, error } = findSubstitutions(path);
  if (error || !refs.length) return [path];
  const fromApplier = new Set<string>();
  for (const values of applierSubstitutions(ownerFile, kustomizations)) {
    const r = substitute(path, (name) => values.get(name));
    if (r.value !== undefined && !r.missing.length && !r.value.includes('${')) fromApplier.add(r.value);
  }
  if (fromApplier.size) return [...fromApplier].sort();
  const matched = matchFolders(path, folders());
  return matched.length ? matched : [path];
}

/** `postBuild.substitute` of each Kustomization whose `spec.path` holds the owner's file (relative to the root). */
function applierSubstitutions(file: string, kustomizations: readonly KubeObject[]): Map<string, string>[] {
  const out: Map<string, string>[] = [];
  for (const ks of kustomizations) {
    const spec = asRecord(ks.body.spec);
    const dir = normalizeVirtual(asString(spec?.path) ?? '');
    if (dir === undefined || (dir !== '' && !file.startsWith(`${dir}/`))) continue;
    const substituteMap = asRecord(asRecord(spec?.postBuild)?.substitute);
    if (!substituteMap) continue;
    const values = new Map<string, string>();
    for (const [k, v] of Object.entries(substituteMap)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values.set(k, String(v));
    if (values.size) out.push(values);
  }
  return out;
}

/**
 * Existing folders matching `path` where each segment holding a variable matches any one folder
 * name (with its literal text around the variable kept). Segment by segment, so the work is linear
 * in the number of folders.
 */
function matchFolders(path: string, folders: Iterable<string>): string[] {
  const segments = (normalizeVirtual(path) ?? '').split('/');
  if (!segments.length || segments.every((s) => !s.includes('${'))) return [];
  const matchers = segments.map(segmentMatcher);
  const out: string[] = [];
  for (const folder of folders) {
    const parts = folder.split('/');
    if (parts.length === segments.length && parts.every((p, i) => matchers[i](p))) out.push(folder);
  }
  return out.sort();
}

function segmentMatcher(segment: string): (name: string) => boolean {
  if (!segment.includes('${')) return (name) => name === segment;
  // The text before the first variable and after the last one must match; the middle is free.
  const start = segment.indexOf('${');
  const end = segment.lastIndexOf('}');
  const prefix = segment.slice(0, start);
  const suffix = segment.slice(end + 1);
  return (name) => name.length > prefix.length + suffix.length && name.startsWith(prefix) && name.endsWith(suffix);
}
