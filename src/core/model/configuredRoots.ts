/**
 * Cluster roots the repository declares in `.gitops-preview.yaml` (`clusters`), for layouts no
 * reader recognises. When any is declared, they are the clusters: the user said so.
 */
import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { bootstrapObjects } from './bootstrap';
import { CONFIG_FILE, repositorySettings } from './config';
import type { KubeObject } from './objects';

export interface ConfiguredRoot {
  readonly object: KubeObject;
  readonly pathNamed: boolean;
  readonly name: string;
}

/** One set of synthetic objects per parsed settings file and root folder, so identity-keyed caches survive rebuilds. */
const folderRoots = new WeakMap<SourceFile, Map<string, KubeObject[]>>();

/**
 * The declared roots: a file's Flux Kustomizations (each a root of that cluster's name when the
 * file holds one; a file with several gives the first, in file order), or for a folder the
 * Kustomization `flux bootstrap --path=<folder>` would write, located in the settings file.
 * Undefined when nothing is declared.
 */
export function configuredRoots(ws: Workspace, ksObjects: readonly KubeObject[]): { roots: ConfiguredRoot[]; inferred: KubeObject[] } | undefined {
  const declared = repositorySettings(ws).clusters;
  if (!declared.length) return undefined;
  const settings = ws.files.get(`${ws.root}/${CONFIG_FILE}`);
  if (!settings) return undefined;
  let perFile = folderRoots.get(settings);
  if (!perFile) folderRoots.set(settings, (perFile = new Map()));
  const roots: ConfiguredRoot[] = [];
  const inferred: KubeObject[] = [];
  for (const cluster of declared) {
    if (cluster.rootIsFile) {
      const file = `${ws.root}/${cluster.root}`;
      const object = ksObjects.find((k) => k.file === file && !k.synthetic);
      if (object) roots.push({ object, pathNamed: false, name: cluster.name });
      continue;
    }
    let objects = perFile.get(cluster.root);
    if (!objects) {
      objects = bootstrapObjects(settings.path, cluster.root ? `./${cluster.root}` : '.').map((o) => ({ ...o, id: `${o.id}~cluster:${cluster.name}` }));
      perFile.set(cluster.root, objects);
    }
    inferred.push(...objects);
    const ks = objects.find((o) => o.fluxKind === 'Kustomization');
    if (ks) roots.push({ object: ks, pathNamed: true, name: cluster.name });
  }
  return roots.length ? { roots, inferred } : undefined;
}
