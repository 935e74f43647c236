/**
 * kustomize-controller's work after `kustomize build`: postBuild variable substitution (values from
 * the Kustomization and from the ConfigMaps/Secrets its cluster applies), commonMetadata and the
 * owner labels server-side apply sets.
 */
import type { ClusterModel, KustomizationNode, RepoModel } from '../model/graph';
import { objectKey } from '../model/graph';
import { asArray, asRecord, asString, type KubeObject } from '../model/objects';
import { isSopsValue, MASK, MASK_SENTINEL } from './mask';
import { substituteKnown, substituteVariables, SubstitutionError } from '../substitution/evaluate';
import { injectedVariables } from '../substitution/webhook';
import { producedUpstream } from './runtimeSecrets';

export const OWNER_NAME_LABEL = 'kustomize.toolkit.fluxcd.io/name';
export const OWNER_NAMESPACE_LABEL = 'kustomize.toolkit.fluxcd.io/namespace';
export const SUBSTITUTE_KEY = 'kustomize.toolkit.fluxcd.io/substitute';

export interface PostBuildVariables {
  /** Undefined when the Kustomization has no `spec.postBuild` (Flux then substitutes nothing). */
  vars: Map<string, string> | undefined;
  /** substituteStrategy: Always. */
  always: boolean;
  /**
   * A non-optional substituteFrom object is not in the workspace (it lives only in the cluster):
   * its variables are unknown, so unresolved `${var}` are left as written instead of failing.
   */
  incomplete: boolean;
  warnings: string[];
}

/** UTF-8 text of a base64 value (core has no Buffer). */
export function decodeBase64(b64: string): string | undefined {
  try {
    const bin = atob(b64.replace(/\s+/g, ''));
    return new TextDecoder('utf-8', { fatal: false }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/**
 * The data a ConfigMap or Secret has in the cluster, from its manifest: Secret `stringData` merged
 * over base64-decoded `data` as the API server does; SOPS-encrypted values masked, never decrypted.
 */
export function dataOf(object: KubeObject): { data: Map<string, string>; masked: boolean } {
  const data = new Map<string, string>();
  let masked = false;
  const put = (k: string, v: unknown, b64: boolean) => {
    if (typeof v !== 'string') {
      if (v !== null && v !== undefined) data.set(k, String(v));
      return;
    }
    // A build's output already shows SOPS values as `***` (a SOPS-encrypted ConfigMap the parent applied).
    if (isSopsValue(v) || (object.rendered && v === MASK)) {
      masked = true;
      data.set(k, MASK);
      return;
    }
    data.set(k, b64 ? (decodeBase64(v) ?? v) : v);
  };
  const body = object.body;
  if (object.kind === 'Secret') {
    for (const [k, v] of Object.entries(asRecord(body.data) ?? {})) put(k, v, true);
    for (const [k, v] of Object.entries(asRecord(body.stringData) ?? {})) put(k, v, false);
  } else {
    for (const [k, v] of Object.entries(asRecord(body.data) ?? {})) put(k, v, false);
  }
  return { data, masked };
}

/**
 * A ConfigMap/Secret as `cluster` would hold it: first among the objects the same cluster
 * applies (effective namespace), else any workspace manifest with that name and namespace (or none).
 */
export function findClusterObject(model: RepoModel, cluster: ClusterModel, kind: string, namespace: string, name: string): KubeObject | undefined {
  const applied = cluster.byKey.get(objectKey(kind, namespace, name));
  if (applied?.length) return applied[0].object;
  return (
    model.allObjects.find((o) => o.kind === kind && o.name === name && o.namespace === namespace && !model.patchFiles.has(o.doc.file.path)) ??
    model.allObjects.find((o) => o.kind === kind && o.name === name && o.namespace === undefined && !model.patchFiles.has(o.doc.file.path))
  );
}

/** kustomize-controller's LoadVariables plus the inline `substitute` map (which wins). */
export function postBuildVariables(model: RepoModel, ks: KustomizationNode, revealSecrets = false): PostBuildVariables {
  const spec = asRecord(ks.applied.object.body.spec) ?? {};
  // Entries the applying Kustomization's spec.patches add count as written here (as in resolve.ts).
  const postBuild = asRecord(spec.postBuild) ?? (ks.inheritedSubstitute ? {} : undefined);
  const warnings: string[] = [];
  if (!postBuild) return { vars: undefined, always: false, incomplete: false, warnings };
  const namespace = ks.applied.namespace ?? 'default';
  const vars = new Map<string, string>();
  let incomplete = false;
  for (const entry of asArray(postBuild.substituteFrom)) {
    const ref = asRecord(entry) ?? {};
    const kind = asString(ref.kind) ?? '';
    const name = asString(ref.name) ?? '';
    if (kind !== 'ConfigMap' && kind !== 'Secret') continue;
    // Only what this cluster applies (see findVarSource in substitution/resolve.ts).
    const object = ks.applied.cluster.byKey.get(objectKey(kind, namespace, name))?.[0]?.object;
    if (!object) {
      // An optional source the cluster makes at runtime, from an object a Kustomization this one
      // waits for applies (a PocketIDOIDCClient's client Secret, an ExternalSecret's): it exists
      // by the time this one runs, with keys unknown here. Any other is absent on a fresh cluster.
      if (ref.optional === true && !producedUpstream(ks, kind, namespace, name)) continue;
      incomplete = true;
      warnings.push(`substituteFrom ${kind}/${namespace}/${name} is not applied by this cluster's Kustomizations (the cluster provides it): its variables are unknown here, unresolved \${...} are left as written.`);
      continue;
    }
    const { data, masked } = dataOf(object);
    if (masked) warnings.push(`substituteFrom ${kind}/${namespace}/${name} is SOPS-encrypted: its values are shown as ${MASK} (never decrypted).`);
    const hide = kind === 'Secret' && !revealSecrets;
    if (hide && data.size) warnings.push(`Variables from Secret ${namespace}/${name} are shown as ${MASK}.`);
    for (const [k, v] of data) vars.set(k, hide || (v === MASK && masked) ? MASK_SENTINEL : v.replace(/\n/g, ''));
  }
  const injected = injectedVariables(ks.applied.cluster);
  if (injected) {
    incomplete = true;
    warnings.push(`${injected}: those variables are unknown here, unresolved \${...} are left as written.`);
  }
  // Flux applies this Kustomization as its parent's build renders it: the parent's variables are
  // already substituted into the values written here (`SUBDOMAIN: app-${CLUSTER}`).
  const parent = ks.applied.appliedBy;
  let parentVars: ReadonlyMap<string, string> | undefined;
  for (const [k, v] of Object.entries(asRecord(postBuild.substitute) ?? {})) {
    let value = String(v ?? '');
    if (parent && parent !== ks && !ks.applied.object.rendered && value.includes('${')) {
      parentVars ??= postBuildVariables(model, parent, revealSecrets).vars ?? new Map();
      try {
        value = substituteVariables(value, parentVars, false);
      } catch {
        /* left as written: the substitution check reports it */
      }
    }
    vars.set(k, value.replace(/\n/g, ''));
  }
  for (const [k, v] of Object.entries(ks.inheritedSubstitute ?? {})) {
    // The parent's own variables did not all resolve here: the value Flux would patch in is unknown.
    if (v.includes('${')) {
      incomplete = true;
      warnings.push(`postBuild.substitute.${k} comes from the applying Kustomization's spec.patches as '${v}', whose variables are unknown here: unresolved \${...} are left as written.`);
      continue;
    }
    vars.set(k, v.replace(/\n/g, ''));
  }
  return { vars, always: postBuild.substituteStrategy === 'Always', incomplete, warnings };
}

function labelsOf(obj: Record<string, any>): Record<string, unknown> {
  return asRecord(asRecord(obj.metadata)?.labels) ?? {};
}

function annotationsOf(obj: Record<string, any>): Record<string, unknown> {
  return asRecord(asRecord(obj.metadata)?.annotations) ?? {};
}

/** Objects labelled or annotated `kustomize.toolkit.fluxcd.io/substitute: disabled` are left alone. */
export function substitutionDisabled(obj: Record<string, any>): boolean {
  return labelsOf(obj)[SUBSTITUTE_KEY] === 'disabled' || annotationsOf(obj)[SUBSTITUTE_KEY] === 'disabled';
}

export type SubstituteOutcome = { text: string; changed: boolean } | { error: string };

/**
 * Substitutes one object's YAML text as Flux does (on the serialised object, so a value like
 * `replicas: ${N}` becomes a number after re-parsing). When variables are incomplete, unknown ones
 * are kept verbatim (`${name}`) rather than failing or emptied.
 */
export function substituteObjectText(text: string, obj: Record<string, any>, pb: PostBuildVariables, strict: boolean): SubstituteOutcome {
  if (!pb.vars || substitutionDisabled(obj)) return { text, changed: false };
  if (pb.vars.size === 0 && !pb.always && !pb.incomplete) return { text, changed: false };
  try {
    if (pb.incomplete) {
      const out = substituteKnown(text, pb.vars);
      return { text: out, changed: out !== text };
    }
    const out = substituteVariables(text, pb.vars, strict);
    return { text: out, changed: out !== text };
  } catch (err) {
    if (err instanceof SubstitutionError) return { error: err.message };
    throw err;
  }
}

/**
 * At most how long substituting `text` with `vars` makes it: every reference replaced by its
 * variable's value (a default's text is already counted in `text`; envsubst never substitutes a
 * value again). Linear, so a budget can be checked before the substitution is made.
 */
export function substitutedSizeBound(text: string, vars: ReadonlyMap<string, string>): number {
  let size = text.length;
  // Sticky, from each `${`: a name holds no `$`, so the scans never overlap.
  const name = /[_A-Za-z][_A-Za-z0-9]*/y;
  for (let at = text.indexOf('${'); at !== -1; at = text.indexOf('${', at + 2)) {
    name.lastIndex = at + 2;
    const found = name.exec(text)?.[0];
    if (found) size += vars.get(found)?.length ?? 0;
  }
  return size;
}

/** ssa.ResourceManager.SetOwnerLabels with kustomize-controller's group. */
export function setOwnerLabels(obj: Record<string, any>, name: string, namespace: string): void {
  obj.metadata ??= {};
  obj.metadata.labels = { ...(asRecord(obj.metadata.labels) ?? {}), [OWNER_NAME_LABEL]: name, [OWNER_NAMESPACE_LABEL]: namespace };
}

/** ssautil.SetCommonMetadata: spec.commonMetadata labels/annotations override the objects' own. */
export function setCommonMetadata(obj: Record<string, any>, labels: Record<string, unknown> | undefined, annotations: Record<string, unknown> | undefined): void {
  obj.metadata ??= {};
  if (labels && Object.keys(labels).length) obj.metadata.labels = { ...(asRecord(obj.metadata.labels) ?? {}), ...stringMap(labels) };
  if (annotations && Object.keys(annotations).length) obj.metadata.annotations = { ...(asRecord(obj.metadata.annotations) ?? {}), ...stringMap(annotations) };
}

function stringMap(m: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)]));
}
