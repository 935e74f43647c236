import type { FluxObjectJson } from './conditions';

export interface ObjectKey {
  kind: string;
  namespace: string;
  name: string;
}

/**
 * What `flux reconcile … --with-source` reconciles before the object itself, in order. Mirrors
 * flux2's adapters: a Kustomization's spec.sourceRef; a HelmRelease's chartRef (an OCIRepository,
 * or a HelmChart whose own source goes first), or for a chart template the HelmChart
 * `<hr-namespace>-<hr-name>` in the source's namespace, whose source (the HelmRepository,
 * GitRepository or Bucket) goes first. `chartSourceOf` gives that nested step from the live HelmChart.
 */
export function directSourceOf(obj: FluxObjectJson): { key: ObjectKey; withItsSource: boolean } | { error: string } {
  const ns = obj.metadata?.namespace ?? '';
  const spec = obj.spec ?? {};
  const ref = (v: unknown): { kind?: string; name?: string; namespace?: string } | undefined =>
    v && typeof v === 'object' ? (v as { kind?: string; name?: string; namespace?: string }) : undefined;
  if (obj.kind === 'Kustomization') {
    const r = ref(spec.sourceRef);
    if (!r?.kind || !r.name) return { error: 'the Kustomization has no spec.sourceRef' };
    return { key: { kind: r.kind, name: r.name, namespace: r.namespace || ns }, withItsSource: false };
  }
  if (obj.kind === 'HelmRelease') {
    const chartRef = ref(spec.chartRef);
    if (chartRef?.kind && chartRef.name) {
      return {
        key: { kind: chartRef.kind, name: chartRef.name, namespace: chartRef.namespace || ns },
        withItsSource: chartRef.kind === 'HelmChart',
      };
    }
    const chartSpec = ref(ref(spec.chart) && (spec.chart as Record<string, unknown>).spec);
    const sourceRef = chartSpec ? ref((chartSpec as Record<string, unknown>).sourceRef) : undefined;
    if (!sourceRef) return { error: 'the HelmRelease has neither spec.chartRef nor spec.chart.spec.sourceRef' };
    return { key: { kind: 'HelmChart', name: `${ns}-${obj.metadata?.name ?? ''}`, namespace: sourceRef.namespace || ns }, withItsSource: true };
  }
  if (obj.kind === 'HelmChart') {
    const r = ref(spec.sourceRef);
    if (!r?.kind || !r.name) return { error: 'the HelmChart has no spec.sourceRef' };
    return { key: { kind: r.kind, name: r.name, namespace: ns }, withItsSource: false };
  }
  return { error: `${obj.kind ?? 'this kind'} has no source to reconcile` };
}

/**
 * Sources the controller does not reconcile: `flux` reports "reconciliation not supported" and
 * moves on (an OCI HelmRepository is only a pointer; its charts are fetched by the HelmChart).
 */
export function isStaticSource(obj: FluxObjectJson): boolean {
  return obj.kind === 'HelmRepository' && obj.spec?.type === 'oci';
}
