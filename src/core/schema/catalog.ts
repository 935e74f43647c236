/**
 * Which schemas the target cluster uses for an object: Flux kinds from the CRDs of the Flux release
 * this product follows (flux.generated.json, from ../shared/flux-crds), built-in kinds from the
 * OpenAPI of the Kubernetes release the test API server builds (kube.generated.json), custom
 * resources from the CRDs the workspace and the charts of its HelmReleases hold, and from those the
 * connected cluster serves (or served when last seen) when the caller has them. A kind with no
 * known schema is never judged.
 */
import type { RepoModel } from '../model/graph';
import { objectsOf } from '../model/objects';
import type { Schema } from './structural';
import { servedCrdOf, type ServedCrd, type ClusterCrds } from './clusterCrds';
import bundle from './flux.generated.json';
import { builtinSchema, KUBERNETES } from './kube';

export interface SchemaSource {
  readonly schema: Schema;
  /** Bundled with the product: its patterns may be evaluated. */
  readonly trusted: boolean;
  /** Where it comes from, for messages: `Flux 2.9`, `Kubernetes 1.33`, the CRD's file or `CRD <name> (cluster <context>)`. */
  readonly origin: string;
  /**
   * A built-in kind: server-side apply (as Flux applies) refuses a field its schema does not
   * declare, where a custom resource's unknown field is pruned.
   */
  readonly builtin?: boolean;
}

const FLUX: Record<string, Schema> = (bundle as { schemas: Record<string, Schema> }).schemas;

const byModel = new WeakMap<RepoModel, Map<string, SchemaSource[]>>();

/**
 * Schemas for `apiVersion`/`kind`: the bundled one, and any CRD of the workspace, of a rendered
 * chart or of `cluster` (the connected context's CRDs) serving it.
 */
export function schemasFor(model: RepoModel, apiVersion: string, kind: string, cluster?: ClusterCrds): SchemaSource[] {
  const key = `${apiVersion}/${kind}`;
  const out: SchemaSource[] = [];
  const flux = Object.prototype.hasOwnProperty.call(FLUX, key) ? FLUX[key] : undefined;
  if (flux) out.push({ schema: flux, trusted: true, origin: 'Flux 2.9' });
  const builtin = builtinSchema(key);
  if (builtin) out.push({ schema: builtin, trusted: true, origin: KUBERNETES, builtin: true });
  const workspace = workspaceSchemas(model).get(key);
  if (workspace) out.push(...workspace);
  out.push(...chartSchemas(model, key));
  if (cluster) out.push(...(clusterSchemas(cluster).get(key) ?? []));
  return out;
}

const byCluster = new WeakMap<ClusterCrds, Map<string, SchemaSource[]>>();

function clusterSchemas(cluster: ClusterCrds): Map<string, SchemaSource[]> {
  let index = byCluster.get(cluster);
  if (index) return index;
  index = new Map();
  byCluster.set(cluster, index);
  for (const crd of cluster.crds) addServed(index, crd, `CRD ${crd.name} (cluster ${cluster.context})`);
  return index;
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
      if (o.kind === 'CustomResourceDefinition') addCrd(index, o.apiVersion, o.body, `CRD ${o.name} (${file.path.slice(root.length + 1)})`);
    }
  }
  return index;
}

const byInstall = new WeakMap<object, Map<string, SchemaSource[]>>();

/**
 * CRDs the charts of the model's HelmReleases hold (their `crds/` folders and templates, whatever
 * the CRD policy: the schema is the chart's either way), from renders already at hand.
 */
function chartSchemas(model: RepoModel, key: string): SchemaSource[] {
  const out: SchemaSource[] = [];
  for (const cluster of model.clusters) {
    for (const hr of cluster.helmReleases) {
      const install = hr.install;
      if (!install?.ok) continue;
      let index = byInstall.get(install);
      if (!index) {
        index = new Map();
        byInstall.set(install, index);
        const chart = `chart ${install.chart.name} ${install.chart.version}`;
        for (const o of [...install.crds, ...install.objects]) {
          if (o.kind === 'CustomResourceDefinition') addCrd(index, o.apiVersion, o as Record<string, unknown>, `CRD ${o.metadata.name} (${chart})`);
        }
      }
      for (const s of index.get(key) ?? []) if (!out.some((o) => o.origin === s.origin)) out.push(s);
    }
  }
  return out;
}

function addCrd(index: Map<string, SchemaSource[]>, apiVersion: string, body: Record<string, unknown>, origin: string): void {
  if (apiVersion !== 'apiextensions.k8s.io/v1') return;
  const crd = servedCrdOf(body);
  if (crd) addServed(index, crd, origin);
}

function addServed(index: Map<string, SchemaSource[]>, crd: ServedCrd, origin: string): void {
  for (const version of crd.versions) {
    const key = `${crd.group}/${version.name}/${crd.kind}`;
    const list = index.get(key) ?? [];
    list.push({ schema: version.schema as Schema, trusted: false, origin });
    index.set(key, list);
  }
}

/**
 * The versions the CRDs known for `group`/`kind` serve (workspace, rendered charts and `cluster`), and where
 * they come from; undefined when no CRD for the kind is known.
 */
export function crdServedVersions(model: RepoModel, group: string, kind: string, cluster?: ClusterCrds): { versions: string[]; origins: string[] } | undefined {
  const versions = new Set<string>();
  const origins = new Set<string>();
  const suffix = `/${kind}`;
  const take = (index: Map<string, SchemaSource[]>) => {
    for (const [key, sources] of index) {
      if (!key.startsWith(`${group}/`) || !key.endsWith(suffix)) continue;
      const version = key.slice(group.length + 1, key.length - suffix.length);
      if (version.includes('/')) continue;
      versions.add(version);
      for (const s of sources) origins.add(s.origin);
    }
  };
  take(workspaceSchemas(model));
  chartSchemas(model, ''); // indexes every rendered chart's CRDs
  for (const cluster of model.clusters) {
    for (const hr of cluster.helmReleases) {
      const index = hr.install?.ok ? byInstall.get(hr.install) : undefined;
      if (index) take(index);
    }
  }
  if (cluster) take(clusterSchemas(cluster));
  return versions.size ? { versions: [...versions].sort(), origins: [...origins] } : undefined;
}
