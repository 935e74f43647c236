/**
 * What one command of a task runner or script installs before Flux: `kubectl apply|create -f|-k`,
 * `helm install|upgrade`, `helmfile apply|sync|template` (which links to that helmfile) and
 * `flux bootstrap --path`. Shared by the Taskfile, justfile, Makefile and shell readers.
 */
import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { asArray, asRecord, asString, kustomizeConfigOf, objectsOf } from '../model/objects';
import { isRemoteResource } from '../model/expand';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
import { chartName, KNOWN_CHARTS } from '../checks/knownCharts';
import { crdGroupsOfUrl } from './crdBundles';
import type { BootstrapFiles } from './files';
import { crdFact, type BootstrapFact, type BootstrapReader } from './facts';
import { fluxBootstrap, fluxPushArtifact, helmfileRun, helmInstall, kubectlApply, type CommandWords } from './commands';
import { resolveWritten, type ResolvedPath } from './writtenPaths';

/** What the readers share: the files, indexed, and the helmfiles steps run. */
export interface ReadContext {
  readonly ws: Workspace;
  readonly files: BootstrapFiles;
  readonly yamlByPath: ReadonlyMap<string, SourceFile>;
  /** Folder → the names of its files, for every file known. */
  readonly dirFiles: ReadonlyMap<string, readonly string[]>;
  /** Helmfiles a step runs (`helmfile -f bootstrap/crds.yaml template`): read as helmfiles whatever their name. */
  readonly helmfileLinks: Set<string>;
  /** Paths resolved so far: a path behind a variable is matched against every folder once, however many steps write it. */
  readonly resolved: Map<string, ResolvedPath[]>;
}

export function readContext(ws: Workspace, files: BootstrapFiles): ReadContext {
  const yamlByPath = new Map<string, SourceFile>();
  for (const f of files.yaml) if (!yamlByPath.has(f.path)) yamlByPath.set(f.path, f);
  return { ws, files, yamlByPath, dirFiles: dirFilesOf(ws, files.paths), helmfileLinks: new Set(), resolved: new Map() };
}

/** Per set of paths (the same until files appear or vanish). */
const dirFilesCache = new WeakMap<ReadonlySet<string>, Map<string, string[]>>();

function dirFilesOf(ws: Workspace, paths: ReadonlySet<string>): Map<string, string[]> {
  const cached = dirFilesCache.get(paths);
  if (cached) return cached;
  const dirFiles = new Map<string, string[]>();
  for (const p of paths) {
    const dir = p.slice(0, p.lastIndexOf('/'));
    const list = dirFiles.get(dir);
    if (list) list.push(p.slice(dir.length + 1));
    else dirFiles.set(dir, [p.slice(dir.length + 1)]);
  }
  // Every ancestor folder of a known file is a folder, even one holding only folders.
  for (const dir of [...dirFiles.keys()]) {
    for (let d = dir.slice(0, dir.lastIndexOf('/')); d.length > ws.root.length && !dirFiles.has(d); d = d.slice(0, d.lastIndexOf('/'))) dirFiles.set(d, []);
  }
  dirFilesCache.set(paths, dirFiles);
  return dirFiles;
}

/** Distinct paths resolved per repository: past this, steps are not followed into the repository. */
const MAX_RESOLVED = 5000;

/** The repository folders (`dir`), YAML files or folders (`yaml`), or any files (`file`) a written path may be. */
function resolve(ctx: ReadContext, kind: 'dir' | 'yaml' | 'file', written: string, fromDir: string): ResolvedPath[] {
  const key = `${kind}\u0000${fromDir}\u0000${written}`;
  const known = ctx.resolved.get(key);
  if (known) return known;
  if (ctx.resolved.size >= MAX_RESOLVED) return [];
  const found =
    kind === 'dir'
      ? resolveWritten(written, ctx.ws.root, fromDir, (p) => ctx.dirFiles.has(p), () => ctx.dirFiles.keys())
      : kind === 'yaml'
        ? resolveWritten(written, ctx.ws.root, fromDir, (p) => ctx.yamlByPath.has(p) || ctx.dirFiles.has(p), () => [...ctx.yamlByPath.keys(), ...ctx.dirFiles.keys()])
        : resolveWritten(written, ctx.ws.root, fromDir, (p) => ctx.files.paths.has(p), () => ctx.files.paths);
  ctx.resolved.set(key, found);
  return found;
}

/** Steps a kustomize folder may nest through `resources`: past this it is not a bootstrap folder. */
const MAX_FOLDERS = 200;

export function factsOfCommand(ctx: ReadContext, reader: BootstrapReader, file: string, cmd: CommandWords, out: BootstrapFact[]): void {
  const fromDir = file.slice(0, file.lastIndexOf('/'));
  const base = { reader, file, line: cmd.line };
  const kubectl = kubectlApply(cmd.words);
  if (kubectl) {
    for (const k of kubectl.kustomize) {
      const via = `kubectl apply -k ${k}`;
      const dirs = resolve(ctx, 'dir', k, fromDir);
      if (!dirs.length && !isRemoteResource(k)) out.push({ ...base, what: 'manifest', name: k, groups: [], via });
      if (isRemoteResource(k)) urlFacts(k, { ...base, via }, out);
      for (const d of dirs) folderFacts(ctx, d.path, { ...base, via, ...(d.scope ? { scope: [d.scope] } : {}) }, out);
    }
    for (const f of kubectl.files) {
      const via = `kubectl apply -f ${f}`;
      if (isRemoteResource(f)) {
        urlFacts(f, { ...base, via }, out);
        continue;
      }
      const targets = resolve(ctx, 'yaml', f, fromDir);
      if (!targets.length) out.push({ ...base, what: 'manifest', name: f, groups: [], via });
      for (const t of targets) {
        const b = { ...base, via, ...(t.scope ? { scope: [t.scope] } : {}) };
        const yaml = ctx.yamlByPath.get(t.path);
        if (yaml) fileFacts(ctx, yaml, b, out);
        else for (const name of ctx.dirFiles.get(t.path) ?? []) {
          const y = ctx.yamlByPath.get(`${t.path}/${name}`);
          if (y) fileFacts(ctx, y, b, out);
        }
      }
    }
    return;
  }
  const helm = helmInstall(cmd.words);
  if (helm) {
    const name = chartName(helm.chart);
    const known = KNOWN_CHARTS[name];
    const enabled = !known?.enabledBy || known.enabledBy.some((p) => cmd.words.some((w) => w === `${p.join('.')}=true`));
    const groups = known && enabled && !helm.skipCrds ? [...known.groups] : [];
    out.push({ ...base, what: 'chart', name, groups, via: `helm install ${helm.release} ${helm.chart}`, release: `${helm.namespace ?? 'default'}/${helm.release}` });
    return;
  }
  const helmfile = helmfileRun(cmd.words);
  if (helmfile) {
    const written = helmfile.file ?? 'helmfile.yaml';
    for (const t of resolve(ctx, 'file', written, fromDir)) ctx.helmfileLinks.add(t.path);
    return;
  }
  const push = fluxPushArtifact(cmd.words);
  if (push) {
    // A folder behind a variable could be any of several: only a written one is the artifact's.
    const dirs = resolve(ctx, 'dir', push.path, fromDir).filter((d) => !d.scope);
    const dir = dirs.length === 1 ? dirs[0].path : undefined;
    out.push({ ...base, what: 'artifact', name: push.url, groups: [], via: `flux push artifact --path=${dir ? rel(ctx, dir) : push.path}`, ...(dir ? { dir } : {}) });
    return;
  }
  const flux = fluxBootstrap(cmd.words);
  if (flux?.path) out.push({ ...base, what: 'root', name: flux.path, groups: [], via: 'flux bootstrap' });
}

/** A URL: its CRD groups when the known table or the file name tells them, else an unknown manifest. */
function urlFacts(url: string, base: Omit<BootstrapFact, 'what' | 'name' | 'groups'>, out: BootstrapFact[]): void {
  const groups = crdGroupsOfUrl(url);
  if (!groups.length) out.push({ ...base, what: 'manifest', name: url, groups: [] });
  for (const g of groups) out.push({ ...base, what: 'crd-group', name: g, groups: [g], via: base.via ?? url });
}

/** The CRDs a YAML file defines, and the Flux Kustomizations it holds (each a cluster's root). */
function fileFacts(ctx: ReadContext, file: SourceFile, base: Omit<BootstrapFact, 'what' | 'name' | 'groups'>, out: BootstrapFact[]): void {
  for (const o of objectsOf(file)) {
    // gotk-sync.yaml's folder is a root fact already (folderFacts). A path behind a variable
    // (`clusters/$CLUSTER_NAME/infra.yaml`) matches templates too: only a written one is a root.
    if (o.fluxKind === 'Kustomization' && !base.scope && !file.path.endsWith('/gotk-sync.yaml')) {
      out.push({ ...base, what: 'root', name: `${o.namespace ?? 'default'}/${o.name} (${rel(ctx, file.path)})`, groups: [], kustomization: o.id });
      continue;
    }
    if (o.kind !== 'CustomResourceDefinition') continue;
    const f = crdFact(o.body, base);
    if (f) out.push(f);
  }
}

/**
 * A kustomize folder: the CRDs of its resources (files, folders, remote CRD files), followed through
 * nested folders; without a kustomization, every YAML file of the folder. One that holds the
 * `flux-system` bootstrap (gotk-sync.yaml, or a kustomization listing it) is a cluster's root.
 */
function folderFacts(ctx: ReadContext, dir: string, base: Omit<BootstrapFact, 'what' | 'name' | 'groups'>, out: BootstrapFact[]): void {
  const seen = new Set<string>();
  const stack = [dir];
  while (stack.length && seen.size < MAX_FOLDERS) {
    const d = stack.pop()!;
    if (seen.has(d)) continue;
    seen.add(d);
    const names = ctx.dirFiles.get(d) ?? [];
    if (names.includes('gotk-sync.yaml') || (d.endsWith('/flux-system') && names.includes('gotk-components.yaml'))) {
      out.push({ ...base, what: 'root', name: rel(ctx, d), groups: [] });
    }
    const kname = KUSTOMIZATION_FILE_NAMES.find((n) => names.includes(n));
    const kfile = kname ? ctx.yamlByPath.get(`${d}/${kname}`) : undefined;
    const config = kfile && asRecord(kustomizeConfigOf(kfile)?.value);
    const entries = config ? asArray(config.resources).map(asString).filter((e): e is string => !!e) : names.filter((n) => ctx.yamlByPath.has(`${d}/${n}`));
    for (const entry of entries) {
      if (isRemoteResource(entry)) {
        urlFacts(entry, base, out);
        continue;
      }
      let r = entry.startsWith('./') ? entry.slice(2) : entry;
      while (r.endsWith('/')) r = r.slice(0, -1);
      if (r.split('/').includes('..')) continue;
      const target = `${d}/${r}`;
      const file = ctx.yamlByPath.get(target);
      if (file) fileFacts(ctx, file, base, out);
      else if (ctx.dirFiles.has(target)) stack.push(target);
    }
  }
}

function rel(ctx: ReadContext, path: string): string {
  return path === ctx.ws.root ? '.' : path.slice(ctx.ws.root.length + 1);
}
