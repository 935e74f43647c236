import type { Workspace } from '../workspace/workspace';
import type { Reference } from './graph';
import { namedSourceRoot } from './namedSourceRoot';
import { asArray, asRecord, asString, type KubeObject } from './objects';
import { mountedView, normalizeVirtual, subfolderView, workspaceView, type Mount, type SourceView } from './view';
import { trimEndChars } from '../text';
import { segmentGlob } from '../workspace/sourceignore';
import { pulledArtifact, type PushedArtifact } from '../bootstrap/artifacts';

/** How the folder a workspace source's artifact starts at was decided. */
export type SourceRootOrigin = 'remote' | 'bootstrap' | 'configured' | 'inferred' | 'pushed';

/** Where a Kustomization's files come from, as far as the workspace can tell. */
export type SourceResolution =
  | {
      kind: 'view';
      view: SourceView;
      object: KubeObject | undefined;
      description: string;
      /** Workspace folder (relative, '' = the root) the artifact's root is; undefined for generated artifacts. */
      root?: string;
      rootOrigin?: SourceRootOrigin;
    }
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
  const plain = url
    .trim()
    .replace(/^[a-z+]+:\/\//i, '')
    .replace(/^[^@/]+@/, '')
    .replace(/:(?!\d+\/)/, '/')
    .replace(/:\d+\//, '/')
    .replace(/\.git$/, '');
  return trimEndChars(plain, '/').toLowerCase();
}

/** What the workspace's Git checkout is (from `.git/HEAD`); empty when unknown. */
export interface GitCheckout {
  readonly branch?: string;
  readonly commit?: string;
  /** Tags pointing at `commit`. */
  readonly tags?: readonly string[];
  /** The branch `origin/HEAD` names (the remote's default branch), when the clone records it. */
  readonly defaultBranch?: string;
}

export interface SourceOptions {
  remotes: readonly string[];
  checkout?: GitCheckout;
  /** `Kind/namespace/name` → workspace folder (relative) its artifact holds: settings and `.gitops-preview.yaml`. */
  sourceRoots?: ReadonlyMap<string, string>;
  /** `Kind/name` → the `spec.path`s Kustomizations read from sources of that kind and name (root inference). */
  pathsBySource?: ReadonlyMap<string, readonly string[]>;
  /**
   * The ref (as `refLabel` writes it) that the working tree stands for when the checkout is none
   * of the refs this repository's GitRepositories name (a feature branch): see workingTreeRef.
   */
  workingRef?: string;
  /** OCI artifacts the repository's scripts push from its folders (`flux push artifact --path`). */
  artifacts?: readonly PushedArtifact[];
}

/** `flux bootstrap` and the Flux Operator name the cluster's own sync source after its namespace. */
function isBootstrapSource(ref: Reference, object: KubeObject | undefined): boolean {
  // Inferred by the model: the gotk-sync placeholder's or a FluxInstance's sync source (not a ResourceSet's objects).
  if (object?.synthetic && object.origin?.kind !== 'ResourceSet') return true;
  return ref.name === 'flux-system' && ref.namespace === 'flux-system';
}

function urlMatchesRemote(url: string | undefined, options: SourceOptions): boolean {
  return !!url && options.remotes.some((r) => normalizeGitUrl(r) === normalizeGitUrl(url));
}

/**
 * Whether a GitRepository's `spec.ref` names what the workspace has checked out. Unknown checkouts
 * and refs that cannot be compared (semver ranges, no ref) count as the same.
 */
export function refMatchesCheckout(ref: Record<string, any> | undefined, checkout: GitCheckout | undefined): { same: boolean; wanted?: string } {
  if (!ref || !checkout || (!checkout.branch && !checkout.commit)) return { same: true };
  const commit = asString(ref.commit);
  if (commit) return { same: !!checkout.commit && (checkout.commit.startsWith(commit) || commit.startsWith(checkout.commit)), wanted: `commit ${commit}` };
  let name = asString(ref.name);
  let branch = asString(ref.branch);
  let tag = asString(ref.tag);
  if (name?.startsWith('refs/heads/')) branch = name.slice('refs/heads/'.length);
  else if (name?.startsWith('refs/tags/')) tag = name.slice('refs/tags/'.length);
  else if (name) return { same: true };
  if (tag) return { same: !!checkout.tags?.includes(tag), wanted: `tag ${tag}` };
  if (asString(ref.semver)) return { same: true };
  if (branch) return { same: checkout.branch === branch, wanted: `branch ${branch}` };
  return { same: true };
}

/** A GitRepository ref as one comparable label (`branch main`, `tag v1`, `commit abc`); undefined when it names no fixed ref. */
export function refLabel(ref: Record<string, any> | undefined): string | undefined {
  if (!ref) return undefined;
  const commit = asString(ref.commit);
  if (commit) return `commit ${commit}`;
  const name = asString(ref.name);
  if (name?.startsWith('refs/heads/')) return `branch ${name.slice('refs/heads/'.length)}`;
  if (name?.startsWith('refs/tags/')) return `tag ${name.slice('refs/tags/'.length)}`;
  if (name) return undefined;
  const tag = asString(ref.tag);
  if (tag) return `tag ${tag}`;
  if (asString(ref.semver)) return undefined;
  const branch = asString(ref.branch);
  return branch ? `branch ${branch}` : undefined;
}

/**
 * Which of this repository's refs the working tree stands for when the checkout is none of them.
 * People edit on branches, and the working tree is what the branch becomes once merged: so with
 * the checkout on a feature branch, the ref the cluster syncs is still this working tree. When the
 * repository's GitRepositories name several refs (a tenant's `dev-team` beside `main`), the
 * remote's default branch wins, else the ref of the cluster's own sync source, else `main` or
 * `master`; the others stay other sources. Undefined when the checkout is one of the refs (it alone is the working tree),
 * or when nothing says which ref to take.
 */
export function workingTreeRef(index: SourceIndex, options: Pick<SourceOptions, 'remotes' | 'checkout'>, kustomizations: readonly KubeObject[] = []): string | undefined {
  // A `flux-system` Kustomization whose GitRepository is not written (a gotk-sync.yaml holding
  // only the Kustomization): the sync source is this repository at a ref nobody wrote.
  const unwrittenSync = kustomizations.some((k) => {
    const ref = asRecord(asRecord(k.body.spec)?.sourceRef);
    return k.name === 'flux-system' && ref?.kind === 'GitRepository' && ref.name === 'flux-system' && !(index.get('GitRepository/flux-system') ?? []).some((o) => asString(asRecord(o.body.spec)?.url));
  });
  if (unwrittenSync) return undefined;
  const all = new Set<string>();
  const bootstrap = new Set<string>();
  for (const [key, objects] of index) {
    if (!key.startsWith('GitRepository/')) continue;
    for (const o of objects) {
      const spec = asRecord(o.body.spec);
      const url = asString(spec?.url);
      const isBootstrap = isBootstrapSource({ kind: 'GitRepository', name: o.name, namespace: o.namespace ?? 'default', path: [] }, o);
      // A bootstrap placeholder (no URL) is this repository at a ref nobody wrote: the working tree
      // stands for that one, and every ref written elsewhere is another source.
      if (isBootstrap && !url) return undefined;
      if (!urlMatchesRemote(url, options)) continue;
      const ref = asRecord(spec?.ref);
      if (refMatchesCheckout(ref, options.checkout).same) return undefined;
      const label = refLabel(ref);
      if (!label) continue;
      all.add(label);
      if (isBootstrap) bootstrap.add(label);
    }
  }
  const defaultBranch = options.checkout?.defaultBranch && `branch ${options.checkout.defaultBranch}`;
  if (defaultBranch && all.has(defaultBranch)) return defaultBranch;
  if (bootstrap.size === 1) return [...bootstrap][0];
  if (all.size === 1) return [...all][0];
  // A clone that does not record origin/HEAD: Git's usual default branches.
  const usual = ['branch main', 'branch master'].filter((b) => all.has(b));
  return usual.length === 1 ? usual[0] : undefined;
}

function checkoutLabel(checkout: GitCheckout | undefined): string {
  if (checkout?.branch) return `branch ${checkout.branch}`;
  if (checkout?.commit) return `commit ${checkout.commit.slice(0, 12)}`;
  return 'another ref';
}

const folderLists = new WeakMap<Workspace, { version: number; dirs: string[]; roots: Map<string, string[]> }>();

/** Every folder of the workspace, relative ('' first), shallow before deep. */
function workspaceFolders(ws: Workspace): string[] {
  const cached = folderLists.get(ws);
  if (cached && cached.version === ws.treeVersion) return cached.dirs;
  const dirs: string[] = [];
  const queue = [''];
  while (queue.length && dirs.length < 20000) {
    const rel = queue.shift()!;
    dirs.push(rel);
    const info = ws.listDir(rel ? `${ws.root}/${rel}` : ws.root);
    for (const d of [...(info?.dirs ?? [])].sort()) queue.push(rel ? `${rel}/${d}` : d);
  }
  folderLists.set(ws, { version: ws.treeVersion, dirs, roots: new Map() });
  return dirs;
}

/**
 * Folders of the workspace that could be the root of an artifact read at `paths`: those where
 * every (non-root) path is a folder. Paths naming only the artifact root tell nothing.
 */
export function candidateRoots(ws: Workspace, paths: readonly string[]): string[] | undefined {
  // Every Kustomization of a source asks with the same paths: answered once per tree and list.
  const known = rootsByPaths.get(paths);
  if (known && known.ws === ws && known.version === ws.treeVersion) return known.roots;
  const roots = candidateRootsOf(ws, paths);
  rootsByPaths.set(paths, { ws, version: ws.treeVersion, roots });
  return roots;
}

const rootsByPaths = new WeakMap<readonly string[], { ws: Workspace; version: number; roots: string[] | undefined }>();

function candidateRootsOf(ws: Workspace, paths: readonly string[]): string[] | undefined {
  const informative = [...new Set(paths.filter((p) => p !== '' && !p.includes('${')))];
  if (!informative.length) return undefined;
  const folders = workspaceFolders(ws);
  const memo = folderLists.get(ws)!.roots;
  const key = informative.sort().join('\n');
  let roots = memo.get(key);
  if (!roots) memo.set(key, (roots = folders.filter((root) => informative.every((p) => ws.hasDir(root ? `${ws.root}/${root}/${p}` : `${ws.root}/${p}`)))));
  return roots;
}

function rootedView(ws: Workspace, root: string): SourceView {
  return root ? subfolderView(ws, root) : workspaceView(ws);
}

function rootLabel(root: string): string {
  return root ? `./${root}` : 'the repository root';
}

function viewAt(ws: Workspace, object: KubeObject | undefined, label: string, root: string, origin: SourceRootOrigin, detail: string): SourceResolution {
  const where = origin === 'configured' ? `root ${rootLabel(root)}, configured` : origin === 'inferred' ? `root ${rootLabel(root)}, inferred from where spec.path resolves` : root ? `root ${rootLabel(root)}` : '';
  const text = [detail, where].filter(Boolean).join('; ');
  return { kind: 'view', view: rootedView(ws, root), object, description: `${label} (${text})`, root, rootOrigin: origin };
}

export function resolveSource(ws: Workspace, index: SourceIndex, ref: Reference | undefined, options: SourceOptions, near?: string, depth = 0): SourceResolution {
  if (!ref) return { kind: 'none', description: 'no sourceRef' };
  const label = `${ref.kind}/${ref.namespace}/${ref.name}`;
  if (depth > 4) return { kind: 'external', object: undefined, description: `${label} (source chain too deep)` };
  const object = findSource(index, ref.kind, ref.name, ref.namespace, near);
  if (ref.kind === 'ExternalArtifact') {
    const generated = generatedArtifact(ws, index, ref, options, near, depth);
    if (generated) return generated;
    if (!object) return { kind: 'missing', description: label };
    return { kind: 'external', object, description: `${label} (produced outside the workspace)` };
  }
  const spec = asRecord(object?.body.spec);
  const url = asString(spec?.url) ?? asString(spec?.endpoint);
  const configured = options.sourceRoots?.get(`${ref.kind}/${ref.namespace}/${ref.name}`);
  if (configured !== undefined) {
    const root = normalizeVirtual(configured);
    if (root !== undefined && (root === '' || ws.hasDir(`${ws.root}/${root}`))) return viewAt(ws, object, label, root, 'configured', 'this workspace');
    return { kind: 'external', object, description: `${label} (configured source root '${configured}' is not a folder of this workspace)` };
  }
  if (ref.kind === 'OCIRepository' && options.artifacts?.length) {
    const pushed = pulledArtifact(options.artifacts, url, asString(asRecord(spec?.ref)?.tag));
    if (pushed && (pushed.root === '' || ws.hasDir(`${ws.root}/${pushed.root}`))) return viewAt(ws, object, label, pushed.root, 'pushed', `this workspace, pushed by ${pushed.at}`);
  }
  const bootstrap = isBootstrapSource(ref, object);
  const sameUrl = ref.kind === 'GitRepository' && urlMatchesRemote(url, options);
  if (sameUrl && !bootstrap) {
    const match = refMatchesCheckout(asRecord(spec?.ref), options.checkout);
    if (!match.same) {
      if (options.workingRef && refLabel(asRecord(spec?.ref)) === options.workingRef) {
        return viewAt(ws, object, label, '', 'remote', `this workspace: its ${checkoutLabel(options.checkout)} stands for ${options.workingRef}, which it becomes once merged`);
      }
      return { kind: 'external', object, description: `${label} (${url}, ${match.wanted}: the same repository at another ref than this workspace's ${checkoutLabel(options.checkout)})` };
    }
    return viewAt(ws, object, label, '', 'remote', 'this workspace');
  }
  if (!object && !bootstrap) return { kind: 'missing', description: label };
  const paths = options.pathsBySource?.get(`${ref.kind}/${ref.name}`) ?? [];
  const candidates = candidateRoots(ws, paths);
  if (bootstrap) {
    // The cluster's own sync source: this workspace, at the root unless the paths say otherwise.
    // Paths that resolve in no single folder (templates among them): a folder named after the URL may still hold the source.
    const named = candidates?.length === 0 && !sameUrl ? namedSourceRoot(url, paths, (p) => candidateRoots(ws, [p])) : undefined;
    if (named !== undefined) return viewAt(ws, object, label, named, 'inferred', 'this workspace');
    if (!candidates || candidates.includes('') || candidates.length === 0 || sameUrl) return viewAt(ws, object, label, '', 'bootstrap', 'this workspace');
    return viewAt(ws, object, label, candidates[0], 'inferred', candidates.length > 1 ? `this workspace, first of ${candidates.length} candidate folders` : 'this workspace');
  }
  // A fork or a copy: the URL names a repository of this clone's name under another owner (a
  // template's or the upstream's URL left in place), and every path resolves from the root.
  if (ref.kind === 'GitRepository' && candidates?.includes('') && sameRepositoryName(url, options)) {
    return viewAt(ws, object, label, '', 'inferred', `this workspace: ${url} has its repository's name`);
  }
  // Another repository or an artifact pushed by CI: one workspace folder may hold its contents.
  if (candidates?.length === 1 && candidates[0] !== '' && plausibleRoot(ref.kind, url, candidates[0])) {
    return viewAt(ws, object, label, candidates[0], 'inferred', url ?? 'external');
  }
  return { kind: 'external', object, description: url ? `${label} (${url})` : label };
}

/**
 * An artifact pushed from CI (OCIRepository, Bucket) is usually one folder of this repository.
 * Another Git repository's contents kept in a sub-folder are recognised by the folder's name.
 */
/** Whether the URL's repository has the name of one of the clone's remotes (`home-ops` of `github.com/someone/home-ops`). */
function sameRepositoryName(url: string | undefined, options: SourceOptions): boolean {
  const name = url && normalizeGitUrl(url).split('/').pop();
  return !!name && options.remotes.some((r) => normalizeGitUrl(r).split('/').pop() === name);
}

function plausibleRoot(kind: string, url: string | undefined, root: string): boolean {
  if (kind === 'OCIRepository' || kind === 'Bucket') return true;
  if (kind !== 'GitRepository' || !url) return false;
  const repoName = normalizeGitUrl(url).split('/').pop();
  return !!repoName && root.split('/').pop()!.toLowerCase() === repoName;
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

/**
 * `@alias/rest` as [alias, rest] (the slash optional when nothing follows). By index: a regex with
 * `(.*)$` backtracks over the alias at every position when the rest holds a line break.
 */
function splitAlias(ref: string): [string, string] | undefined {
  if (!ref.startsWith('@')) return undefined;
  const slash = ref.indexOf('/');
  const alias = slash === -1 ? ref.slice(1) : ref.slice(1, slash);
  return alias ? [alias, slash === -1 ? '' : ref.slice(slash + 1)] : undefined;
}

function mountOf(ws: Workspace, aliases: Map<string, SourceResolution>, from: string | undefined, to: string | undefined): Mount | 'external' | undefined {
  if (!from || !to) return undefined;
  const m = splitAlias(from);
  if (!m || !to.startsWith('@artifact')) return undefined;
  const target = to.slice(to.startsWith('@artifact/') ? '@artifact/'.length : '@artifact'.length);
  const source = aliases.get(m[0]);
  if (!source || source.kind !== 'view') return 'external';
  const toDir = target.endsWith('/') || target === '';
  const dest = normalizeVirtual(target) ?? '';
  let srcPattern = m[1];
  if (srcPattern.endsWith('/**')) {
    const dir = source.view.realDir(normalizeVirtual(srcPattern.slice(0, -3)) ?? '');
    return dir ? { dest, src: dir, single: false } : undefined;
  }
  const lastSlash = srcPattern.lastIndexOf('/');
  const lastSeg = srcPattern.slice(lastSlash + 1);
  if (/[*?[]/.test(lastSeg)) {
    const dir = source.view.realDir(normalizeVirtual(srcPattern.slice(0, Math.max(lastSlash, 0))) ?? '');
    // Not a RegExp: `*a*a*…b` backtracks exponentially against a long name.
    return dir ? { dest, src: dir, single: false, filter: segmentGlob(lastSeg) } : undefined;
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
