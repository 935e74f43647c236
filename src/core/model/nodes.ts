import { envsubst } from '../substitution/evaluate';
import { parseSourceFile } from '../yaml/document';
import { asArray, asRecord, asString, type KubeObject } from './objects';
import { DEFAULT_NAMESPACE, helmReleaseName, type AppliedObject, type HelmReleaseNode, type Reference } from './types';
import { nullRecord } from '../safeRecord';

/** `postBuild.substitute` values; substituteFrom needs ConfigMap lookups (see `postBuildVars`). */
export function inlineSubstitutions(spec: Record<string, any>): Record<string, unknown> | undefined {
  const postBuild = asRecord(spec.postBuild);
  return asRecord(postBuild?.substitute);
}

/** Finds the ConfigMap a `substituteFrom` entry names, for the Kustomization in `file`. */
export type ConfigMapLookup = (name: string, namespace: string, near: string) => KubeObject | undefined;

/**
 * The variables a Kustomization's post-build substitution knows from the repository: ConfigMaps
 * of `substituteFrom` found in the workspace, then `substitute`, then values a parent's
 * `spec.patches` add to `postBuild.substitute` (later ones win, as in kustomize-controller).
 * Secrets and ConfigMaps outside the workspace are unknown: a variable only they define keeps its
 * `${…}` form. Undefined when the Kustomization has no `postBuild` (Flux substitutes nothing).
 */
export function postBuildVars(ks: KubeObject, namespace: string, lookup: ConfigMapLookup, inherited?: Record<string, string>): Record<string, string> | undefined {
  const postBuild = asRecord(asRecord(ks.body.spec)?.postBuild);
  if (!postBuild && !inherited) return undefined;
  const vars = nullRecord<string>();
  for (const entry of asArray(postBuild?.substituteFrom)) {
    const e = asRecord(entry);
    const name = asString(e?.name);
    if (!e || !name || asString(e.kind) !== 'ConfigMap') continue;
    const cm = lookup(name, namespace, ks.file);
    for (const [k, v] of Object.entries(asRecord(cm?.body.data) ?? {})) if (v !== null && typeof v !== 'object') vars[k] = String(v).replace(/\n/g, '');
  }
  for (const [k, v] of Object.entries(asRecord(postBuild?.substitute) ?? {})) if (v !== null && typeof v !== 'object') vars[k] = String(v).replace(/\n/g, '');
  for (const [k, v] of Object.entries(inherited ?? {})) vars[k] = v;
  return vars;
}

/** Whether a document opts out of its applier's substitution (`kustomize.toolkit.fluxcd.io/substitute: disabled`). */
export function substitutionDisabled(o: KubeObject): boolean {
  const annotations = asRecord(asRecord(o.body.metadata)?.annotations);
  return annotations?.['kustomize.toolkit.fluxcd.io/substitute'] === 'disabled';
}

/**
 * `postBuild.substitute` entries a Kustomization's `spec.patches` give the Kustomizations it
 * applies: strategic-merge patches targeting every Flux Kustomization (no name or selector), as
 * home-ops repos use to pass `CLUSTER: ${CLUSTER}` down. Values are then substituted by the
 * parent's own variables, since its post-build runs after its patches.
 */
export function patchedChildSubstitute(parent: KubeObject, parentVars: Record<string, string> | undefined): Record<string, string> | undefined {
  let raw = patchedCache.get(parent);
  if (raw === undefined) patchedCache.set(parent, (raw = readPatchedSubstitute(parent)));
  if (!raw) return undefined;
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(raw)) {
    const value = substituteInline(v, parentVars);
    // A value the parent's variables leave unresolved is unknown, not literally `${…}`.
    if (!value.includes('${')) (out ??= {})[k] = value;
  }
  return out;
}

const patchedCache = new WeakMap<KubeObject, Record<string, string> | null>();

function readPatchedSubstitute(parent: KubeObject): Record<string, string> | null {
  let out: Record<string, string> | null = null;
  for (const p of asArray(asRecord(parent.body.spec)?.patches)) {
    const entry = asRecord(p);
    const target = asRecord(entry?.target);
    const text = asString(entry?.patch);
    if (!entry || !text || !target || target.kind !== 'Kustomization') continue;
    if (target.name || target.labelSelector || target.annotationSelector) continue;
    if (target.group !== undefined && target.group !== 'kustomize.toolkit.fluxcd.io') continue;
    const doc = parseSourceFile(`${parent.file}#patch`, text).docs[0];
    const body = asRecord(doc?.value);
    if (!body || body.kind !== 'Kustomization') continue;
    const substitute = asRecord(asRecord(asRecord(body.spec)?.postBuild)?.substitute);
    for (const [k, v] of Object.entries(substitute ?? {})) {
      if (v !== null && typeof v !== 'object') (out ??= {})[k] = String(v);
    }
  }
  return out;
}

/**
 * Flux substitutes variables after the kustomize build, so an object named `${APP}` is applied
 * under the value. Only inline values are known here; a name that needs a variable from
 * `substituteFrom` keeps its `${…}` form rather than being guessed.
 */
export function substituteInline(text: string, vars: Record<string, unknown> | undefined): string {
  if (!text.includes('${')) return text;
  try {
    return envsubst(text, (name) => {
      const v = vars?.[name];
      return v === undefined || v === null ? ['', false] : [String(v), true];
    });
  } catch {
    return text;
  }
}

export function dependsOnOf(obj: KubeObject, namespace: string): Reference[] {
  const spec = asRecord(obj.body.spec) ?? {};
  const out: Reference[] = [];
  asArray(spec.dependsOn).forEach((entry, i) => {
    const e = asRecord(entry);
    const name = asString(e?.name);
    if (!e || !name) return;
    out.push({
      kind: obj.kind,
      name,
      namespace: asString(e.namespace) || namespace,
      path: ['spec', 'dependsOn', i],
    });
  });
  return out;
}

/** A Kustomization's `spec.sourceRef`, its namespace defaulted to the Kustomization's as Flux does. */
export function sourceRefOf(spec: Record<string, any>, namespace: string): Reference | undefined {
  const ref = asRecord(spec.sourceRef);
  if (!ref) return undefined;
  return { kind: asString(ref.kind) ?? 'GitRepository', name: asString(ref.name) ?? '', namespace: asString(ref.namespace) || namespace, path: ['spec', 'sourceRef'] };
}

/** A HelmRelease's chart source: `spec.chartRef`, else `spec.chart.spec.sourceRef`, namespace defaulted. */
export function chartSourceRefOf(spec: Record<string, any>, namespace: string): Reference | undefined {
  const chartRef = asRecord(spec.chartRef);
  const ref = chartRef ?? asRecord(asRecord(asRecord(spec.chart)?.spec)?.sourceRef);
  if (!ref) return undefined;
  return {
    kind: asString(ref.kind) ?? (chartRef ? 'OCIRepository' : 'HelmRepository'),
    name: asString(ref.name) ?? '',
    namespace: asString(ref.namespace) || namespace,
    path: chartRef ? ['spec', 'chartRef'] : ['spec', 'chart', 'spec', 'sourceRef'],
  };
}

export function helmReleaseNode(applied: AppliedObject, sha: (s: string) => string): HelmReleaseNode {
  const obj = applied.object;
  const ns = applied.namespace ?? DEFAULT_NAMESPACE;
  const spec = asRecord(obj.body.spec) ?? {};
  const chartSpec = asRecord(asRecord(spec.chart)?.spec);
  const chartSourceRef = chartSourceRefOf(spec, ns);
  const targetNamespace = asString(spec.targetNamespace) || undefined;
  const node: HelmReleaseNode = {
    kind: 'HelmRelease',
    applied,
    chartSourceRef,
    chartRef: !!asRecord(spec.chartRef),
    chart: asString(chartSpec?.chart),
    dependsOn: dependsOnOf(obj, ns),
    releaseName: helmReleaseName(applied.name, targetNamespace, asString(spec.releaseName) || undefined, sha),
    targetNamespace: targetNamespace ?? ns,
    storageNamespace: asString(spec.storageNamespace) || ns,
  };
  applied.flux = node;
  return node;
}
