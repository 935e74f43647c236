/**
 * A HelmRelease's values as the workspace writes them, read before any build: its `valuesFrom`
 * ConfigMaps, in order, then `spec.values` on top (helm-controller's order). A ConfigMap is found as a
 * manifest, or as a kustomize `configMapGenerator` of a kustomization in the HelmRelease's folder or
 * a folder above it: the common way to keep a chart's values in a plain values.yaml. The model needs
 * this where no build has run yet: a `flux-instance` chart's `instance.sync` is a cluster's root.
 */
import { mergeMaps } from '../flux/helmValues';
import { parseSourceFile, type SourceFile } from '../yaml/document';
import type { Workspace } from '../workspace/workspace';
import { asArray, asRecord, asString, kustomizeConfigOf, type KubeObject } from './objects';

type Values = Record<string, any>;

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** The merged values (ConfigMaps only: Secret values are never read). */
export function workspaceValues(ws: Workspace, objects: readonly KubeObject[], hr: KubeObject): Values {
  const spec = asRecord(hr.body.spec) ?? {};
  let values: Values = {};
  for (const entry of asArray(spec.valuesFrom)) {
    const ref = asRecord(entry);
    const name = asString(ref?.name);
    // A targetPath sets one value through Helm's --set parser; not needed for what the model reads.
    if (!ref || ref.kind !== 'ConfigMap' || !name || ref.targetPath !== undefined) continue;
    const found = configMapValues(ws, objects, hr, name, asString(ref.valuesKey) || 'values.yaml');
    if (found) values = mergeMaps(values, found);
  }
  const inline = asRecord(spec.values);
  return inline ? mergeMaps(values, inline) : values;
}

function configMapValues(ws: Workspace, objects: readonly KubeObject[], hr: KubeObject, name: string, key: string): Values | undefined {
  const namespace = asString(asRecord(hr.body.metadata)?.namespace);
  for (const o of objects) {
    if (o.kind !== 'ConfigMap' || o.name !== name || (o.namespace && namespace && o.namespace !== namespace)) continue;
    const text = asString(asRecord(o.body.data)?.[key]);
    const values = text === undefined ? undefined : parsedValues(parseSourceFile(o.file, text));
    if (values) return values;
  }
  return generatedValues(ws, hr.file, name, key);
}

/** A configMapGenerator named `name` in a kustomization of the folder of `file` or above, its `key` file's values. */
function generatedValues(ws: Workspace, file: string, name: string, key: string): Values | undefined {
  for (let dir = parentOf(file); dir !== undefined && (dir === ws.root || dir.startsWith(`${ws.root}/`)); dir = dir === ws.root ? undefined : parentOf(dir)) {
    for (const base of KUSTOMIZATION_FILES) {
      const kfile = ws.files.get(`${dir}/${base}`);
      const config = kfile && asRecord(kustomizeConfigOf(kfile)?.value);
      if (!config) continue;
      for (const gen of asArray(config.configMapGenerator)) {
        const g = asRecord(gen);
        if (asString(g?.name) !== name) continue;
        for (const entry of asArray(g?.files)) {
          const spec = asString(entry);
          if (spec === undefined) continue;
          const eq = spec.indexOf('=');
          const rel = eq >= 0 ? spec.slice(eq + 1) : spec;
          const entryKey = eq >= 0 ? spec.slice(0, eq) : rel.slice(rel.lastIndexOf('/') + 1);
          if (entryKey !== key) continue;
          const path = within(ws.root, dir, rel);
          const source = path === undefined ? undefined : ws.files.get(path);
          const values = source && parsedValues(source);
          if (values) return values;
        }
      }
    }
  }
  return undefined;
}

/** The file's one document's mapping; none when the YAML has problems (a half-read file could name a wrong root). */
function parsedValues(file: SourceFile): Values | undefined {
  const docs = file.docs.filter((d) => d.value !== undefined && d.value !== null);
  if (docs.length !== 1 || file.problems.length || docs[0].problems.length) return undefined;
  return asRecord(docs[0].value);
}

function parentOf(path: string): string | undefined {
  const at = path.lastIndexOf('/');
  return at > 0 ? path.slice(0, at) : undefined;
}

/** `rel` from `dir`, if it stays inside `root` (kustomize's file loader refuses others, as Flux does). */
function within(root: string, dir: string, rel: string): string | undefined {
  if (rel.startsWith('/')) return undefined;
  const parts = dir.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const path = parts.join('/');
  return path.startsWith(`${root}/`) ? path : undefined;
}
