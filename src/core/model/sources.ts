import type { Workspace } from '../workspace/workspace';
import type { Reference } from './graph';
import { asArray, asRecord, asString, type KubeObject } from './objects';
import { mountedView, normalizeVirtual, workspaceView, type Mount, type SourceView } from './view';

/** Where a Kustomization's files come from, as far as the workspace can tell. */
export type SourceResolution =
  | { kind: 'view'; view: SourceView; object: KubeObject | undefined; description: string }
  | { kind: 'external'; object: KubeObject | undefined; description: string }
  | { kind: 'missing'; description: string }
  | { kind: 'none'; description: string };

const stamps = new WeakMap<object, number>();
let nextStamp = 0;
/** A number unique to one parsed version of a file: cache keys built from it change when the file does. */
function fileStamp(file: object): number {
  let s = stamps.get(file);
  if (s === undefined) stamps.set(file, (s = ++nextStamp));
  return s;
}

/** Source-kind objects (and ArtifactGenerators) by `Kind/name`; namespaces are matched at lookup. */
export type SourceIndex = Map<string, KubeObject[]>;

export function buildSourceIndex(objects: readonly KubeObject[]): SourceIndex {
  const index: SourceIndex = new Map();
  for (const o of objects) {
    if (!o.fluxKind || o.fluxKind === 'Kustomization' || o.fluxKind === 'HelmRelease') continue;
    const key = `${o.fluxKind}/${o.name}`;
    const list = index.get(key);
    if (list) list.push(o);
    else index.set(key, [o]);
  }
  return index;
}

/**
 * The workspace object a reference names. An object without a namespace matches any namespace,
 * since kustomize or Flux gives it one when applying; an exact namespace match wins.
 */
export function findSource(index: SourceIndex, kind: string, name: string, namespace: string, near?: string): KubeObject | undefined {
  const list = index.get(`${kind}/${name}`);
  if (!list) return undefined;
  const exact = list.filter((o) => o.namespace === namespace);
  return closest(exact.length ? exact : list.filter((o) => o.namespace === undefined), near);
}

/**
 * Several clusters of one repo often define the same source (`flux-system/flux-system`); the one
 * sharing the longest folder prefix with the referring file belongs to the same cluster.
 */
export function closest<T extends { doc: { file: { path: string } } }>(candidates: readonly T[], near: string | undefined): T | undefined {
  if (candidates.length <= 1 || !near) return candidates[0];
  let best = candidates[0];
  let bestLen = -1;
  for (const c of candidates) {
    const p = c.doc.file.path;
    let i = 0;
    while (i < p.length && i < near.length && p[i] === near[i]) i++;
    if (i > bestLen) {
      best = c;
      bestLen = i;
    }
  }
  return best;
}

/** Git URLs compare equal regardless of scheme, user, `.git` suffix and `host:path` vs `host/path`. */
export function normalizeGitUrl(url: string): string {
  return url
    .trim()
    .replace(/^[a-z+]+:\/\//i, '')
    .replace(/^[^@/]+@/, '')
    .replace(/:(?!\d+\/)/, '/')
    .replace(/:\d+\//, '/')
    .replace(/\.git$/, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

export interface SourceOptions {
  remotes: readonly string[];
}

/**
 * `flux bootstrap` names the GitRepository of the repository it bootstraps `flux-system/flux-system`,
 * and often creates it outside the repo; it is the workspace. Other Git URLs are the workspace only
 * when they match one of its remotes. Anything else is external: shown, never guessed.
 */
function isWorkspaceGitRepository(ref: Reference, object: KubeObject | undefined, options: SourceOptions): boolean {
  const url = asString(asRecord(object?.body.spec)?.url);
  if (url && options.remotes.some((r) => normalizeGitUrl(r) === normalizeGitUrl(url))) return true;
  return ref.name === 'flux-system' && ref.namespace === 'flux-system';
}

export function resolveSource(ws: Workspace, index: SourceIndex, ref: Reference | undefined, options: SourceOptions, near?: string, depth = 0): SourceResolution {
  if (!ref) return { kind: 'none', description: 'no sourceRef' };
  const label = `${ref.kind}/${ref.namespace}/${ref.name}`;
  if (depth > 4) return { kind: 'external', object: undefined, description: `${label} (source chain too deep)` };
  const object = findSource(index, ref.kind, ref.name, ref.namespace, near);
  if (ref.kind === 'GitRepository') {
    if (isWorkspaceGitRepository(ref, object, options)) {
      return { kind: 'view', view: workspaceView(ws), object, description: `${label} (this workspace)` };
    }
    if (!object) return { kind: 'missing', description: label };
    return { kind: 'external', object, description: `${label} (${asString(asRecord(object.body.spec)?.url) ?? 'external'})` };
  }
  if (ref.kind === 'ExternalArtifact') {
    const generated = generatedArtifact(ws, index, ref, options, near, depth);
    if (generated) return generated;
    if (!object) return { kind: 'missing', description: label };
    return { kind: 'external', object, description: `${label} (produced outside the workspace)` };
  }
  if (!object) return { kind: 'missing', description: label };
  const url = asString(asRecord(object.body.spec)?.url) ?? asString(asRecord(object.body.spec)?.endpoint);
  return { kind: 'external', object, description: url ? `${label} (${url})` : label };
}

/** An ExternalArtifact made by an ArtifactGenerator in the workspace, as a view over its copy rules. */
function generatedArtifact(ws: Workspace, index: SourceIndex, ref: Reference, options: SourceOptions, near: string | undefined, depth: number): SourceResolution | undefined {
  const candidates: { g: KubeObject; artifact: Record<string, any>; doc: KubeObject['doc'] }[] = [];
  for (const gen of index.values()) {
    for (const g of gen) {
      if (g.fluxKind !== 'ArtifactGenerator') continue;
      if ((g.namespace ?? ref.namespace) !== ref.namespace) continue;
      const spec = asRecord(g.body.spec) ?? {};
      const artifact = asArray(spec.artifacts)
        .map(asRecord)
        .find((a) => asString(a?.name) === ref.name);
      if (artifact) candidates.push({ g, artifact, doc: g.doc });
    }
  }
  const chosen = closest(candidates, near);
  if (!chosen) return undefined;
  {
    {
      const { g, artifact } = chosen;
      const genNs = g.namespace ?? ref.namespace;
      const spec = asRecord(g.body.spec) ?? {};
      const aliases = new Map<string, SourceResolution>();
      for (const s of asArray(spec.sources).map(asRecord)) {
        const alias = asString(s?.alias);
        if (!s || !alias) continue;
        const sref: Reference = {
          kind: asString(s.kind) ?? 'GitRepository',
          name: asString(s.name) ?? '',
          namespace: asString(s.namespace) || genNs,
          path: [],
        };
        aliases.set(alias, resolveSource(ws, index, sref, options, g.doc.file.path, depth + 1));
      }
      const mounts: Mount[] = [];
      let external = false;
      for (const rule of asArray(artifact.copy).map(asRecord)) {
        const mount = mountOf(ws, aliases, asString(rule?.from), asString(rule?.to));
        if (mount === 'external') external = true;
        else if (mount) mounts.push(mount);
      }
      const label = `ExternalArtifact/${ref.namespace}/${ref.name}`;
      if (external && mounts.length === 0) return { kind: 'external', object: g, description: `${label} (from sources outside the workspace)` };
      return { kind: 'view', view: mountedView(ws, `gen:${g.id}:${fileStamp(g.doc.file)}:${ref.name}`, mounts), object: g, description: `${label} (generated by ArtifactGenerator ${genNs}/${g.name})` };
    }
  }
}

function mountOf(ws: Workspace, aliases: Map<string, SourceResolution>, from: string | undefined, to: string | undefined): Mount | 'external' | undefined {
  if (!from || !to) return undefined;
  const m = /^@([^/]+)\/?(.*)$/.exec(from);
  const t = /^@artifact\/?(.*)$/.exec(to);
  if (!m || !t) return undefined;
  const source = aliases.get(m[1]);
  if (!source || source.kind !== 'view') return 'external';
  const toDir = t[1].endsWith('/') || t[1] === '';
  const dest = normalizeVirtual(t[1]) ?? '';
  let srcPattern = m[2];
  if (srcPattern.endsWith('/**')) {
    const dir = source.view.realDir(normalizeVirtual(srcPattern.slice(0, -3)) ?? '');
    return dir ? { dest, src: dir, single: false } : undefined;
  }
  const lastSlash = srcPattern.lastIndexOf('/');
  const lastSeg = srcPattern.slice(lastSlash + 1);
  if (/[*?[]/.test(lastSeg)) {
    const dir = source.view.realDir(normalizeVirtual(srcPattern.slice(0, Math.max(lastSlash, 0))) ?? '');
    const regex = new RegExp('^' + lastSeg.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
    return dir ? { dest, src: dir, single: false, filter: regex } : undefined;
  }
  srcPattern = normalizeVirtual(srcPattern) ?? '';
  const file = source.view.file(srcPattern);
  if (file) {
    const base = srcPattern.slice(srcPattern.lastIndexOf('/') + 1);
    return { dest: toDir ? (dest ? `${dest}/${base}` : base) : dest, src: file, single: true };
  }
  const dir = source.view.realDir(srcPattern);
  if (dir) {
    const base = srcPattern.slice(srcPattern.lastIndexOf('/') + 1);
    return { dest: toDir && base ? (dest ? `${dest}/${base}` : base) : dest, src: dir, single: false };
  }
  return undefined;
}
