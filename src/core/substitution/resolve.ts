import type { PathSegment, YamlDoc } from '../yaml/document';
import { objectKey, type KustomizationNode, type RepoModel } from '../model/graph';
import { asArray, asRecord, asString, type KubeObject } from '../model/objects';
import { injectedVariables } from './webhook';

/** Where a variable's value comes from, for hovers and messages. */
export interface VarOrigin {
  readonly kind: 'substitute' | 'ConfigMap' | 'Secret';
  /** `namespace/name` of the ConfigMap/Secret; the Kustomization for inline `substitute`. */
  readonly name: string;
  /** The document and YAML path defining the value (when it is in the workspace). */
  readonly doc?: YamlDoc;
  readonly path?: PathSegment[];
}

export interface SubstituteVar {
  readonly name: string;
  /** Value as Flux would substitute it (newlines removed); `***` for Secret values. */
  readonly value: string;
  readonly masked: boolean;
  readonly origin: VarOrigin;
  /** Earlier definitions this one overrides (later substituteFrom entries and inline values win). */
  readonly overrides: VarOrigin[];
}

export interface UnresolvedSource {
  readonly kind: string;
  readonly name: string;
  readonly optional: boolean;
  readonly reason: string;
}

export interface SubstituteVars {
  /** `spec.postBuild` is set: without it Flux does no substitution at all. */
  readonly enabled: boolean;
  readonly vars: Map<string, SubstituteVar>;
  /** False when a `substituteFrom` source is not applied by the cluster's Kustomizations: its keys are unknown. */
  readonly complete: boolean;
  readonly unresolved: UnresolvedSource[];
  /** Flux skips substitution when there are no variables at all; known only when complete. */
  readonly active: boolean;
}

/** Per model build: nodes survive rebuilds when their own inputs are unchanged, but the ConfigMaps they read may not. */
const cache = new WeakMap<RepoModel, WeakMap<KustomizationNode, SubstituteVars>>();

/**
 * Across model rebuilds (one per keystroke) most Kustomizations and their ConfigMaps are the very
 * same parsed objects: reuse the resolution when the Kustomization document, its namespace and
 * every `substituteFrom` lookup result are unchanged.
 */
const stable = new WeakMap<KubeObject, { namespace: string; sources: (KubeObject | undefined)[]; inherited: string; injected: string | undefined; result: SubstituteVars }>();

/**
 * The variables a Kustomization's `postBuild` defines, resolved as kustomize-controller does:
 * `substituteFrom` entries in order (ConfigMap `data`, Secret `data`/`stringData`, looked up in the
 * Kustomization's namespace), then inline `substitute`, later ones overriding earlier ones.
 */
export function resolveSubstituteVars(ks: KustomizationNode, model: RepoModel): SubstituteVars {
  let perModel = cache.get(model);
  if (!perModel) cache.set(model, (perModel = new WeakMap()));
  const cached = perModel.get(ks);
  if (cached) return cached;
  const obj = ks.applied.object;
  const namespace = ks.applied.namespace ?? 'default';
  const postBuild = asRecord(asRecord(obj.body.spec)?.postBuild);
  const refs = asArray(postBuild?.substituteFrom).map((entry) => {
    const e = asRecord(entry);
    const kind = asString(e?.kind);
    const name = asString(e?.name);
    return kind && name && (kind === 'ConfigMap' || kind === 'Secret') ? findVarSource(ks, kind, namespace, name) : undefined;
  });
  const previous = stable.get(obj);
  let result: SubstituteVars;
  const inherited = JSON.stringify(ks.inheritedSubstitute ?? null);
  const injected = injectedVariables(ks.applied.cluster);
  if (
    previous &&
    previous.namespace === namespace &&
    previous.inherited === inherited &&
    previous.injected === injected &&
    previous.sources.length === refs.length &&
    previous.sources.every((s, i) => s === refs[i])
  ) {
    result = previous.result;
  } else {
    result = resolveUncached(ks, postBuild, namespace, refs, injected);
    stable.set(obj, { namespace, sources: refs, inherited, injected, result });
  }
  perModel.set(ks, result);
  return result;
}

function resolveUncached(ks: KustomizationNode, postBuild: Record<string, any> | undefined, namespace: string, sources: (KubeObject | undefined)[], injected: string | undefined): SubstituteVars {
  const obj = ks.applied.object;
  const vars = new Map<string, SubstituteVar>();
  const unresolved: UnresolvedSource[] = [];
  if (!postBuild && !ks.inheritedSubstitute) return { enabled: false, vars, complete: true, unresolved, active: false };
  const define = (name: string, value: string, masked: boolean, origin: VarOrigin) => {
    const previous = vars.get(name);
    const overrides = previous ? [...previous.overrides, previous.origin] : [];
    vars.set(name, { name, value: masked ? '***' : value.replace(/\n/g, ''), masked, origin, overrides });
  };
  asArray(postBuild?.substituteFrom).forEach((entry, index) => {
    const e = asRecord(entry);
    const kind = asString(e?.kind);
    const name = asString(e?.name);
    const optional = e?.optional === true;
    if (!kind || !name) return;
    if (kind !== 'ConfigMap' && kind !== 'Secret') {
      unresolved.push({ kind, name, optional, reason: `kind '${kind}' is neither ConfigMap nor Secret` });
      return;
    }
    const source = sources[index];
    if (!source) {
      unresolved.push({ kind, name, optional, reason: `${kind} ${namespace}/${name} is not applied by this cluster's Kustomizations (the cluster provides it)` });
      return;
    }
    const origin = (key: string, field: string): VarOrigin => ({ kind, name: `${namespace}/${name}`, doc: source.doc, path: [field, key] });
    const fields = kind === 'Secret' ? ['data', 'stringData'] : ['data', 'binaryData'];
    for (const field of fields) {
      const data = asRecord(source.body[field]);
      if (!data) continue;
      for (const [key, value] of Object.entries(data)) define(key, scalarText(value), kind === 'Secret', origin(key, field));
    }
  });
  const inline = asRecord(postBuild?.substitute);
  if (inline) {
    for (const [key, value] of Object.entries(inline)) {
      define(key, scalarText(value), false, { kind: 'substitute', name: `${namespace}/${ks.applied.name}`, doc: obj.doc, path: ['spec', 'postBuild', 'substitute', key] });
    }
  }
  // Entries the applying Kustomization's spec.patches add to this one's postBuild.substitute.
  const parent = ks.applied.appliedBy;
  for (const [key, value] of Object.entries(ks.inheritedSubstitute ?? {})) {
    define(key, value, false, { kind: 'substitute', name: parent ? `${parent.applied.namespace}/${parent.applied.name} (spec.patches)` : `${namespace}/${ks.applied.name}`, doc: parent?.applied.object.doc, path: parent ? ['spec', 'patches'] : undefined });
  }
  // The cluster adds sources at admission: whatever the manifest leaves undefined may be defined.
  if (injected) unresolved.push({ kind: 'MutatingWebhook', name: 'admission', optional: false, reason: injected });
  // An unknown non-optional source would fail the Kustomization anyway; an unknown optional one may
  // or may not exist in the cluster. Either way its keys are unknown.
  const complete = unresolved.length === 0;
  return { enabled: true, vars, complete, unresolved, active: vars.size > 0 || !complete };
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The ConfigMap/Secret a `substituteFrom` names, among the objects the Kustomization's cluster
 * applies: kustomize-controller reads it from the API server, so a same-named manifest that no
 * Kustomization of this cluster applies (a test fixture, another cluster's copy) is not it, and the
 * cluster provides the real one (its values are unknown here).
 */
function findVarSource(ks: KustomizationNode, kind: string, namespace: string, name: string): KubeObject | undefined {
  return ks.applied.cluster.byKey.get(objectKey(kind, namespace, name))?.[0]?.object;
}
