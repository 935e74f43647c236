import { objectKey, type ClusterModel, type HelmReleaseNode } from '../model/graph';
import { asRecord, asString } from '../model/objects';

/**
 * Charts whose admission webhook adds post-build variables to every Flux Kustomization the cluster
 * admits, from ConfigMaps and Secrets the cluster holds (xunholy/kustomize-mutating-webhook): a
 * Kustomization in that cluster has variables its manifest does not show.
 */
const INJECTING_CHARTS = new Set(['kustomize-mutating-webhook']);

/** Per list of HelmReleases and its length: a cluster's list grows while its model is built. */
const cache = new WeakMap<readonly HelmReleaseNode[], { length: number; found: string | undefined }>();

/**
 * Why the cluster's Kustomizations have variables the workspace cannot tell (the HelmRelease
 * installing such a webhook), or undefined when it installs none.
 */
export function injectedVariables(cluster: ClusterModel): string | undefined {
  const known = cache.get(cluster.helmReleases);
  if (known && known.length === cluster.helmReleases.length) return known.found;
  let found: string | undefined;
  for (const hr of cluster.helmReleases) {
    const chart = chartName(cluster, hr);
    if (!chart || !INJECTING_CHARTS.has(chart)) continue;
    found = `the cluster's ${chart} (HelmRelease ${hr.applied.namespace}/${hr.applied.name}) adds variables to every Kustomization at admission`;
    break;
  }
  cache.set(cluster.helmReleases, { length: cluster.helmReleases.length, found });
  return found;
}

/** The chart's name: `chart.spec.chart`, or the last segment of the OCIRepository URL a `chartRef` names. */
function chartName(cluster: ClusterModel, hr: HelmReleaseNode): string | undefined {
  if (!hr.chartRef) return hr.chart;
  const ref = hr.chartSourceRef;
  if (ref?.kind !== 'OCIRepository') return undefined;
  const source = cluster.byKey.get(objectKey(ref.kind, ref.namespace, ref.name))?.[0]?.object;
  const url = asString(asRecord(source?.body.spec)?.url);
  return url?.slice(url.lastIndexOf('/') + 1);
}
