import { parseSourceFile, type PathSegment, type SourceFile } from '../yaml/document';
import { asArray, asRecord, asString, objectsOf, type KubeObject } from './objects';
import { groupOf } from '../kinds';
import { setOwn } from '../safeRecord';

/** The Flux Operator's API group (FluxInstance, ResourceSet). */
export const GROUP_FLUX_OPERATOR = 'fluxcd.controlplane.io';

const SYNC_KINDS = new Set(['GitRepository', 'OCIRepository', 'Bucket']);

/**
 * A FluxInstance's `spec.sync`: the Flux Operator creates a source of `kind` and a Kustomization,
 * both named `name` (the FluxInstance's namespace unless `sync.name` says otherwise), in the
 * FluxInstance's namespace; the Kustomization applies `path` of that source. This is the cluster's
 * root, as `flux bootstrap`'s gotk-sync.yaml is.
 */
export interface FluxInstanceSync {
  /** The FluxInstance manifest, or the HelmRelease of the `flux-instance` chart whose values hold it. */
  readonly owner: KubeObject;
  /** YAML path of the `sync` mapping inside the owner's document. */
  readonly at: PathSegment[];
  readonly namespace: string;
  readonly name: string;
  readonly kind: 'GitRepository' | 'OCIRepository' | 'Bucket';
  readonly url: string;
  readonly ref: string | undefined;
  readonly path: string;
  /** `spec.distribution.version` (`2.x`, `2.8.x`, `2.9.4`), when written. */
  readonly version: string | undefined;
  /** Set when the written path stands for several folders (`${CLUSTER}`): tells their objects apart. */
  readonly variant?: string;
}

/**
 * FluxInstances with a `spec.sync`, written as manifests or as `flux-instance` chart values;
 * `valuesOf` gives a chart's values as helm-controller merges them (valuesFrom, then values).
 */
export function fluxInstanceSyncs(objects: readonly KubeObject[], valuesOf: (hr: KubeObject) => Record<string, any> = inlineValues): FluxInstanceSync[] {
  const out: FluxInstanceSync[] = [];
  for (const o of objects) {
    let spec: Record<string, any> | undefined;
    let at: PathSegment[];
    let namespace: string;
    if (o.kind === 'FluxInstance' && groupOf(o.apiVersion) === GROUP_FLUX_OPERATOR) {
      spec = asRecord(o.body.spec);
      at = ['spec'];
      namespace = o.namespace ?? 'flux-system';
    } else if (o.fluxKind === 'HelmRelease' && isFluxInstanceChart(o)) {
      // The chart renders `instance` as the FluxInstance's spec, in the release namespace.
      const hrSpec = asRecord(o.body.spec);
      spec = asRecord(valuesOf(o).instance);
      at = asRecord(asRecord(asRecord(hrSpec?.values)?.instance)?.sync) ? ['spec', 'values', 'instance'] : ['spec', 'valuesFrom'];
      namespace = asString(hrSpec?.targetNamespace) || o.namespace || 'flux-system';
    } else continue;
    const sync = asRecord(spec?.sync);
    const url = asString(sync?.url);
    const kind = asString(sync?.kind) ?? 'GitRepository';
    if (!sync || !url || !SYNC_KINDS.has(kind)) continue;
    const ref = sync.ref === undefined ? undefined : String(sync.ref);
    out.push({
      owner: o,
      at: [...at, 'sync'],
      namespace,
      name: asString(sync.name) || namespace,
      kind: kind as FluxInstanceSync['kind'],
      url,
      ref,
      path: asString(sync.path) ?? '',
      version: versionText(asRecord(spec?.distribution)?.version),
    });
  }
  return out;
}

function versionText(v: unknown): string | undefined {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

function inlineValues(hr: KubeObject): Record<string, any> {
  return asRecord(asRecord(hr.body.spec)?.values) ?? {};
}

/** A HelmRelease of the Flux Operator's `flux-instance` chart (by chart name or chart source name/URL). */
function isFluxInstanceChart(hr: KubeObject): boolean {
  const spec = asRecord(hr.body.spec);
  const chart = asString(asRecord(asRecord(spec?.chart)?.spec)?.chart);
  const chartRef = asString(asRecord(spec?.chartRef)?.name);
  return chart === 'flux-instance' || /flux-instance/.test(chart ?? '') || /flux-instance/.test(chartRef ?? '');
}

const syncCache = new WeakMap<SourceFile, Map<string, KubeObject[]>>();

/**
 * The source and Kustomization a FluxInstance sync creates, as synthetic objects located in the
 * owner's file (so navigation goes there; checks never report on them). One set per parsed file,
 * so identity-keyed caches survive rebuilds.
 */
export function syncObjects(sync: FluxInstanceSync): KubeObject[] {
  const file = sync.owner.doc.file;
  let perFile = syncCache.get(file);
  if (!perFile) syncCache.set(file, (perFile = new Map()));
  const key = JSON.stringify([sync.owner.id, sync.namespace, sync.name, sync.kind, sync.url, sync.ref, sync.path]);
  const known = perFile.get(key);
  if (known) {
    syncVersions.set(known[1], sync.version);
    return known;
  }
  // JSON strings are YAML double-quoted scalars: nothing in the values can change the document's shape.
  const q = (s: string) => JSON.stringify(s);
  const ref: string[] = [];
  if (sync.ref !== undefined && sync.kind === 'GitRepository') ref.push('  ref:', `    ${sync.ref.startsWith('refs/') ? 'name' : 'branch'}: ${q(sync.ref)}`);
  if (sync.ref !== undefined && sync.kind === 'OCIRepository') ref.push('  ref:', `    ${sync.ref.startsWith('sha256:') ? 'digest' : 'tag'}: ${q(sync.ref)}`);
  const text = [
    `apiVersion: source.toolkit.fluxcd.io/v1`,
    `kind: ${sync.kind}`,
    'metadata:',
    `  name: ${q(sync.name)}`,
    `  namespace: ${q(sync.namespace)}`,
    'spec:',
    `  url: ${q(sync.url)}`,
    ...ref,
    '---',
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    `  name: ${q(sync.name)}`,
    `  namespace: ${q(sync.namespace)}`,
    'spec:',
    `  path: ${q(sync.path)}`,
    '  prune: true',
    '  sourceRef:',
    `    kind: ${sync.kind}`,
    `    name: ${q(sync.name)}`,
    '',
  ].join('\n');
  const synthetic = parseSourceFile(file.path, text);
  const variant = sync.variant === undefined ? '' : `(${sync.variant})`;
  const objects = objectsOf(synthetic).map((o) => ({ ...o, id: `${sync.owner.id}~sync${variant}${o.id.slice(o.id.indexOf('#'))}`, synthetic: true, origin: sync.owner }));
  perFile.set(key, objects);
  syncVersions.set(objects[1], sync.version);
  return objects;
}

/**
 * The `distribution.version` of the FluxInstance whose sync created this root Kustomization, read
 * from the values helm-controller merges (valuesFrom ConfigMaps, generated ones included), which the
 * owner's document alone does not hold.
 */
export function syncVersionOf(root: KubeObject): string | undefined {
  return syncVersions.get(root);
}

/** Per synthetic root; set on every call, as the owner's valuesFrom may change while its file does not. */
const syncVersions = new WeakMap<KubeObject, string | undefined>();

const resourceSetCache = new WeakMap<SourceFile, Map<string, KubeObject[]>>();

/**
 * The objects a ResourceSet generates, when its inputs are written inline: each `resources` entry
 * once per input (once when there are no inputs), with `<< inputs.key >>` replaced. Entries whose
 * identity still holds template actions the model does not evaluate (functions, conditionals,
 * `inputsFrom` providers) are left out rather than guessed.
 */
export function resourceSetObjects(rs: KubeObject): KubeObject[] {
  const file = rs.doc.file;
  let perFile = resourceSetCache.get(file);
  if (!perFile) resourceSetCache.set(file, (perFile = new Map()));
  const known = perFile.get(rs.id);
  if (known) return known;
  const out: KubeObject[] = [];
  perFile.set(rs.id, out);
  const spec = asRecord(rs.body.spec);
  if (!spec || asArray(spec.inputsFrom).length) return out;
  const inputs = spec.inputs === undefined ? [{}] : asArray(spec.inputs).map((i) => asRecord(i) ?? {});
  const resources = asArray(spec.resources).map(asRecord).filter((r): r is Record<string, any> => !!r);
  if (!resources.length || !inputs.length) return out;
  const docs: string[] = [];
  for (const input of inputs) {
    for (const resource of resources) {
      const rendered = renderTemplate(resource, input);
      if (rendered === undefined) continue;
      const meta = asRecord(rendered.metadata);
      if (!meta || hasTemplate(meta.name) || hasTemplate(meta.namespace) || hasTemplate(rendered.kind) || hasTemplate(rendered.apiVersion)) continue;
      if (meta.namespace === undefined && rs.namespace) rendered.metadata = { ...meta, namespace: rs.namespace };
      docs.push(JSON.stringify(rendered));
    }
  }
  if (!docs.length) return out;
  const synthetic = parseSourceFile(file.path, docs.join('\n---\n') + '\n');
  for (const o of objectsOf(synthetic)) out.push({ ...o, id: `${rs.id}~rs${o.id.slice(o.id.indexOf('#'))}`, synthetic: true, origin: rs });
  return out;
}

export function isResourceSet(o: KubeObject): boolean {
  return o.kind === 'ResourceSet' && groupOf(o.apiVersion) === GROUP_FLUX_OPERATOR;
}

const ACTION = /<<-?\s*inputs\.([A-Za-z_][A-Za-z0-9_]*)\s*-?>>/g;

function hasTemplate(v: unknown): boolean {
  return typeof v === 'string' && v.includes('<<');
}

/** Deep copy of `value` with `<< inputs.key >>` actions replaced; undefined when an input is missing. */
function renderTemplate(value: any, input: Record<string, any>): any {
  if (typeof value === 'string') {
    let missing = false;
    const text = value.replace(ACTION, (_, key: string) => {
      const v = input[key];
      if (v === undefined || v === null || typeof v === 'object') {
        missing = true;
        return '';
      }
      return String(v);
    });
    return missing ? undefined : text;
  }
  if (Array.isArray(value)) {
    const out: any[] = [];
    for (const v of value) {
      const r = renderTemplate(v, input);
      if (r === undefined && v !== undefined) return undefined;
      out.push(r);
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, any> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = renderTemplate(v, input);
      if (r === undefined && v !== undefined) return undefined;
      setOwn(out, k, r);
    }
    return out;
  }
  return value;
}
