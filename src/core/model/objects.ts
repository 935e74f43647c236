import type { SourceFile, YamlDoc } from '../yaml/document';
import { fluxKindOf, isKustomizeConfig, type FluxKind } from './kinds';

/** A Kubernetes object as written in one YAML document (before any kustomize or Flux transformation). */
export interface KubeObject {
  /** `path#docIndex`: stable for the lifetime of the file's text. */
  readonly id: string;
  readonly doc: YamlDoc;
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** As written; the namespace it ends up in depends on who applies it. */
  readonly namespace: string | undefined;
  readonly body: Record<string, any>;
  readonly fluxKind: FluxKind | undefined;
  /** Inferred by the model (the bootstrap Kustomization `flux bootstrap` writes at install time), not written in the file. */
  readonly synthetic?: boolean;
}

const cache = new WeakMap<SourceFile, KubeObject[]>();

function isRecord(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Kubernetes objects of a file: documents with string `apiVersion` and `kind`; kustomize configs excluded. */
export function objectsOf(file: SourceFile): KubeObject[] {
  let objects = cache.get(file);
  if (objects) return objects;
  objects = [];
  for (const doc of file.docs) {
    const v = doc.value;
    if (!isRecord(v) || typeof v.kind !== 'string' || typeof v.apiVersion !== 'string') continue;
    if (isKustomizeConfig(v.apiVersion, v.kind)) continue;
    const meta = isRecord(v.metadata) ? v.metadata : {};
    const name = typeof meta.name === 'string' ? meta.name : meta.name === undefined ? '' : String(meta.name);
    const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
    objects.push({
      id: `${file.path}#${doc.index}`,
      doc,
      apiVersion: v.apiVersion,
      kind: v.kind,
      name,
      namespace,
      body: v,
      fluxKind: fluxKindOf(v.apiVersion, v.kind),
    });
  }
  cache.set(file, objects);
  return objects;
}

/** A kustomize build file (kustomization.yaml) of a document, if it is one. */
export function kustomizeConfigOf(file: SourceFile): YamlDoc | undefined {
  for (const doc of file.docs) {
    const v = doc.value;
    if (isRecord(v) && isKustomizeConfig(v.apiVersion, v.kind)) return doc;
    // kustomize also accepts a kustomization file without apiVersion/kind.
    if (isRecord(v) && v.kind === undefined && v.apiVersion === undefined) return doc;
  }
  return undefined;
}

export function asRecord(v: unknown): Record<string, any> | undefined {
  return isRecord(v) ? v : undefined;
}

export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
