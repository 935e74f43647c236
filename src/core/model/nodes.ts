import { envsubst } from '../substitution/evaluate';
import { asArray, asRecord, asString, type KubeObject } from './objects';
import { DEFAULT_NAMESPACE, helmReleaseName, type AppliedObject, type HelmReleaseNode, type Reference } from './types';

/** `postBuild.substitute` values; substituteFrom needs ConfigMap lookups and is the checks' business. */
export function inlineSubstitutions(spec: Record<string, any>): Record<string, unknown> | undefined {
  const postBuild = asRecord(spec.postBuild);
  return asRecord(postBuild?.substitute);
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
