import { parseSourceFile, type SourceFile } from '../yaml/document';
import type { Workspace } from '../workspace/workspace';
import { asArray, asRecord, asString, kustomizeConfigOf, objectsOf, type KubeObject } from './objects';
import { normalizeVirtual } from './view';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';

/**
 * `flux bootstrap` writes `flux-system/gotk-sync.yaml` (the GitRepository and the Kustomization that
 * applies the cluster folder) at install time; example repositories ship it as a placeholder. When
 * that file holds no Kustomization, the model infers the one bootstrap would write, so the cluster
 * still has its root: `flux-system/flux-system`, path = the folder holding `flux-system/`.
 */
export function inferBootstrapObjects(ws: Workspace, files: Iterable<SourceFile> = ws.files.values()): Map<string, KubeObject[]> {
  const inferred = new Map<string, KubeObject[]>();
  for (const file of files) {
    if (!isBootstrapSyncFile(file.path)) continue;
    if (objectsOf(file).some((o) => o.fluxKind === 'Kustomization')) continue;
    // One set of objects per parsed file, so identity-keyed caches survive rebuilds.
    const known = inferredCache.get(file);
    if (known) {
      inferred.set(file.path, known);
      continue;
    }
    const clusterDir = file.path.slice(0, -'/flux-system/gotk-sync.yaml'.length);
    const rel = clusterDir === ws.root ? '.' : `./${clusterDir.slice(ws.root.length + 1)}`;
    const objects = bootstrapObjects(file.path, rel).map((o) => ({ ...o, id: `${o.id}~bootstrap` }));
    inferredCache.set(file, objects);
    inferred.set(file.path, objects);
  }
  return inferred;
}

/** The GitRepository and Kustomization `flux bootstrap --path=<rel>` writes, as synthetic objects located in `path`. */
export function bootstrapObjects(path: string, rel: string): KubeObject[] {
  const text = [
    'apiVersion: source.toolkit.fluxcd.io/v1',
    'kind: GitRepository',
    'metadata:',
    '  name: flux-system',
    '  namespace: flux-system',
    'spec:',
    '  interval: 1m0s',
    '  ref:',
    '    branch: main',
    '  url: ""',
    '---',
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    '  name: flux-system',
    '  namespace: flux-system',
    'spec:',
    '  interval: 10m0s',
    `  path: ${rel}`,
    '  prune: true',
    '  sourceRef:',
    '    kind: GitRepository',
    '    name: flux-system',
    '',
  ].join('\n');
  return objectsOf(parseSourceFile(path, text)).map((o) => ({ ...o, synthetic: true }));
}

const inferredCache = new WeakMap<SourceFile, KubeObject[]>();

/**
 * With no bootstrap file and no FluxInstance, a folder holding several of the Kustomizations nothing
 * applies (`unapplied`), which depend on each other or sit under a `clusters/` folder, is the folder `flux
 * bootstrap --path` would sync (the repository is bootstrapped outside Git, or not yet): the model
 * infers that root, so the folder is one cluster rather than one per Kustomization. Its origin is
 * the folder's first Kustomization.
 */
export function inferClusterFolderRoots(ws: Workspace, unapplied: readonly KubeObject[]): KubeObject[] {
  const byDir = new Map<string, KubeObject[]>();
  for (const ks of unapplied) {
    if (ks.synthetic) continue;
    const dir = ks.file.slice(ws.root.length + 1, Math.max(ws.root.length + 1, ks.file.lastIndexOf('/')));
    const list = byDir.get(dir);
    if (list) list.push(ks);
    else byDir.set(dir, [ks]);
  }
  const out: KubeObject[] = [];
  for (const [dir, list] of byDir) {
    const names = new Set(list.map((k) => k.name));
    if (names.size < 2) continue;
    const siblings = list.some((k) =>
      asArray(asRecord(k.body.spec)?.dependsOn).some((d) => {
        const name = asString(asRecord(d)?.name);
        return name !== undefined && name !== k.name && names.has(name);
      }),
    );
    if (!siblings && !dir.split('/').includes('clusters')) continue;
    const first = [...list].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))[0];
    const file = first.doc.file;
    let perFile = folderRootCache.get(file);
    if (!perFile) folderRootCache.set(file, (perFile = new Map()));
    let objects = perFile.get(dir);
    // `origin`: shown and navigated at that file's Kustomization, and never given to a build as the file's content.
    if (!objects) perFile.set(dir, (objects = bootstrapObjects(file.path, dir ? `./${dir}` : '.').map((o) => ({ ...o, id: `${o.id}~cluster-folder`, origin: first }))));
    out.push(...objects);
  }
  return out;
}

const folderRootCache = new WeakMap<SourceFile, Map<string, KubeObject[]>>();

/**
 * Files a kustomization uses as patches (`patches[].path`, `patchesStrategicMerge`, `patchesJson6902`):
 * their objects are edits of other objects, never applied on their own.
 */
export function isBootstrapSyncFile(path: string): boolean {
  return path.endsWith('/flux-system/gotk-sync.yaml');
}

export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(path.slice(path.lastIndexOf('/') + 1));
}

export function patchFiles(files: Iterable<SourceFile>): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    if (!isKustomizationFile(file.path)) continue;
    for (const p of patchFilesOf(file)) out.add(p);
  }
  return out;
}

const patchCache = new WeakMap<SourceFile, string[]>();

function patchFilesOf(file: SourceFile): string[] {
  const cached = patchCache.get(file);
  if (cached) return cached;
  const out: string[] = [];
  patchCache.set(file, out);
  {
    const config = asRecord(kustomizeConfigOf(file)?.value);
    if (!config) return out;
    const dir = file.path.slice(0, file.path.lastIndexOf('/'));
    const add = (rel: string | undefined) => {
      if (!rel || rel.includes('\n')) return;
      const abs = normalizeVirtual(`${dir.slice(1)}/${rel}`);
      if (abs !== undefined) out.push(`/${abs}`);
    };
    for (const p of asArray(config.patches)) add(asString(asRecord(p)?.path));
    for (const p of asArray(config.patchesJson6902)) add(asString(asRecord(p)?.path));
    for (const p of asArray(config.patchesStrategicMerge)) add(asString(p));
  }
  return out;
}
