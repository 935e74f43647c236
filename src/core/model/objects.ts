import { isParsed, type SourceFile, type YamlDoc } from '../yaml/document';
import { scanHeaders } from '../yaml/headers';
import { fluxKindOf, isKustomizeConfig, type FluxKind } from '../kinds';

/** A Kubernetes object as written in one YAML document (before any kustomize or Flux transformation). */
export interface KubeObject {
  /** `path#docIndex`: stable for the lifetime of the file's text. */
  readonly id: string;
  /** Path of the file holding it (reading `doc` may parse the file; this never does). */
  readonly file: string;
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
  /** For objects the model derives from another (a FluxInstance's sync, a ResourceSet's resources): that object. */
  readonly origin?: KubeObject;
  /**
   * Taken from its applier's build (rendered.ts): `body` is the object as Flux applies it (patched,
   * transformed, substituted), while `id`, `file` and `doc` stay those of its source document.
   */
  readonly rendered?: true;
}

const cache = new WeakMap<SourceFile, KubeObject[]>();

function isRecord(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Kubernetes objects of a file: documents with string `apiVersion` and `kind`; kustomize configs excluded. */
export function objectsOf(file: SourceFile): KubeObject[] {
  let objects = cache.get(file);
  if (objects) return objects;
  objects = (!isParsed(file) && headerObjects(file)) || parsedObjects(file);
  cache.set(file, objects);
  return objects;
}

/**
 * Objects of a not-yet-parsed file from its document headers, when every document is a plain
 * non-Flux object (Deployments, ConfigMaps, …): their `doc` and `body` parse the file on first use.
 * Flux objects, kustomize files and CRDs are always parsed, since the model reads their bodies.
 */
function headerObjects(file: SourceFile): KubeObject[] | undefined {
  const headers = scanHeaders(file.text);
  if (!headers) return undefined;
  const objects: KubeObject[] = [];
  for (const h of headers) {
    if (h.kind === undefined || h.apiVersion === undefined) {
      if (h.kind !== undefined || h.apiVersion !== undefined) return undefined;
      continue;
    }
    if (fluxKindOf(h.apiVersion, h.kind) || isKustomizeConfig(h.apiVersion, h.kind) || h.kind === 'CustomResourceDefinition') return undefined;
    const index = h.index;
    objects.push({
      id: `${file.path}#${index}`,
      file: file.path,
      get doc() {
        return file.docs[index] ?? file.docs[file.docs.length - 1];
      },
      get body() {
        const v = file.docs[index]?.value;
        return isRecord(v) ? v : {};
      },
      apiVersion: h.apiVersion,
      kind: h.kind,
      name: h.name ?? '',
      namespace: h.namespace || undefined,
      fluxKind: undefined,
    });
  }
  return objects;
}

function parsedObjects(file: SourceFile): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const doc of file.docs) {
    const v = doc.value;
    if (!isRecord(v) || typeof v.kind !== 'string' || typeof v.apiVersion !== 'string') continue;
    if (isKustomizeConfig(v.apiVersion, v.kind)) continue;
    const meta = isRecord(v.metadata) ? v.metadata : {};
    const name = typeof meta.name === 'string' ? meta.name : meta.name === undefined ? '' : String(meta.name);
    const namespace = typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
    objects.push({
      id: `${file.path}#${doc.index}`,
      file: file.path,
      doc,
      apiVersion: v.apiVersion,
      kind: v.kind,
      name,
      namespace,
      body: v,
      fluxKind: fluxKindOf(v.apiVersion, v.kind),
    });
  }
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
