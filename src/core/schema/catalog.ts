/**
 * Which schemas the target cluster uses for an object: Flux kinds from the CRDs of the Flux release
 * this product follows (flux.generated.json, from ../shared/flux-crds), custom resources from the
 * CRDs the workspace holds. A kind with no known schema is never judged.
 */
import type { RepoModel } from '../model/graph';
import { asArray, asRecord, asString, objectsOf } from '../model/objects';
import type { Schema } from './structural';
import bundle from './flux.generated.json';

export interface SchemaSource {
  readonly schema: Schema;
  /** Bundled with the product: its patterns may be evaluated. */
  readonly trusted: boolean;
  /** Where it comes from, for messages: `Flux 2.9` or the CRD's file. */
  readonly origin: string;
}

const FLUX: Record<string, Schema> = (bundle as { schemas: Record<string, Schema> }).schemas;

const byModel = new WeakMap<RepoModel, Map<string, SchemaSource[]>>();

/** Schemas for `apiVersion`/`kind`: the bundled one and any workspace CRD serving it. */
export function schemasFor(model: RepoModel, apiVersion: string, kind: string): SchemaSource[] {
  const key = `${apiVersion}/${kind}`;
  const out: SchemaSource[] = [];
  const flux = Object.prototype.hasOwnProperty.call(FLUX, key) ? FLUX[key] : undefined;
  if (flux) out.push({ schema: flux, trusted: true, origin: 'Flux 2.9' });
  const workspace = workspaceSchemas(model).get(key);
  if (workspace) out.push(...workspace);
  return out;
}

function workspaceSchemas(model: RepoModel): Map<string, SchemaSource[]> {
  let index = byModel.get(model);
  if (index) return index;
  index = new Map();
  byModel.set(model, index);
  const root = model.workspace.root;
  for (const file of model.workspace.files.values()) {
    if (!file.text.includes('CustomResourceDefinition')) continue;
    for (const o of objectsOf(file)) {
      if (o.kind !== 'CustomResourceDefinition' || o.apiVersion !== 'apiextensions.k8s.io/v1') continue;
      const spec = asRecord(o.body.spec);
      const group = asString(spec?.group);
      const kind = asString(asRecord(spec?.names)?.kind);
      if (!group || !kind) continue;
      for (const v of asArray(spec?.versions)) {
        const version = asRecord(v);
        const schema = asRecord(asRecord(version?.schema)?.openAPIV3Schema);
        const name = asString(version?.name);
        if (!version || version.served === false || !schema || !name) continue;
        const key = `${group}/${name}/${kind}`;
        const list = index.get(key) ?? [];
        list.push({ schema: schema as Schema, trusted: false, origin: `CRD ${o.name} (${file.path.slice(root.length + 1)})` });
        index.set(key, list);
      }
    }
  }
  return index;
}
