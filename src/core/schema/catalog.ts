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
import type { SourceFile } from '../yaml/document';
import type { HelmInstall } from '../helm/install';
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

/** CRD schemas by `group/version/Kind`. */
type Index = ReadonlyMap<string, readonly SchemaSource[]>;

const EMPTY: Index = new Map();

/**
 * Schemas for `apiVersion`/`kind`: the bundled one, and any CRD of the workspace, of a rendered
 * chart or of `cluster` (the connected context's CRDs) serving it. The list is shared (do not
 * change it) and stays the very same list, its sources the very same objects, across model
 * rebuilds while the CRDs it comes from are the same parsed objects: an edit elsewhere leaves it.
 */
export function schemasFor(model: RepoModel, apiVersion: string, kind: string, cluster?: ClusterCrds): readonly SchemaSource[] {
  return schemaLookup(model, cluster)(apiVersion, kind);
}

/**
 * schemasFor for one model and cluster, as a function: a check asks it for every object, so what
 * the model and cluster decide is looked up once, and each kind once.
 */
export function schemaLookup(model: RepoModel, cluster?: ClusterCrds): (apiVersion: string, kind: string) => readonly SchemaSource[] {
  const lookups = lookupsOf(model, cluster);
  return (apiVersion, kind) => {
    let byKind = lookups.get(apiVersion);
    if (!byKind) lookups.set(apiVersion, (byKind = new Map()));
    let out = byKind.get(kind);
    if (!out) {
      const key = `${apiVersion}/${kind}`;
      out = [...bundled(key), ...(workspaceSchemas(model).get(key) ?? []), ...(chartSchemas(model).get(key) ?? []), ...((cluster && clusterSchemas(cluster).get(key)) ?? [])];
      byKind.set(kind, out);
    }
    return out;
  };
}

/** Stands for "no cluster CRDs" as a WeakMap key. */
const NO_CLUSTER = {};

/** Answers of schemasFor by apiVersion and kind. */
type Lookups = Map<string, Map<string, readonly SchemaSource[]>>;

/** Answers of schemasFor, per workspace index, chart index and cluster CRDs (each an unchanged object while its input is). */
const lookupsByInputs = new WeakMap<Index, WeakMap<Index, WeakMap<object, Lookups>>>();

function lookupsOf(model: RepoModel, cluster: ClusterCrds | undefined): Lookups {
  const workspace = workspaceSchemas(model);
  const charts = chartSchemas(model);
  let byCharts = lookupsByInputs.get(workspace);
  if (!byCharts) lookupsByInputs.set(workspace, (byCharts = new WeakMap()));
  let byCluster = byCharts.get(charts);
  if (!byCluster) byCharts.set(charts, (byCluster = new WeakMap()));
  let lookups = byCluster.get(cluster ?? NO_CLUSTER);
  if (!lookups) byCluster.set(cluster ?? NO_CLUSTER, (lookups = new Map()));
  return lookups;
}

/** The schemas bundled with the product (Flux, built-in) for `apiVersion`/`kind`; they come first in schemasFor's list. */
export function bundledSchemas(apiVersion: string, kind: string): readonly SchemaSource[] {
  return bundled(`${apiVersion}/${kind}`);
}

/** The bundled schemas of a key (Flux, built-in), one list per key for the process. */
const bundledByKey = new Map<string, readonly SchemaSource[]>();

function bundled(key: string): readonly SchemaSource[] {
  let out = bundledByKey.get(key);
  if (out) return out;
  const list: SchemaSource[] = [];
  const flux = Object.prototype.hasOwnProperty.call(FLUX, key) ? FLUX[key] : undefined;
  if (flux) list.push({ schema: flux, trusted: true, origin: 'Flux 2.9' });
  const builtin = builtinSchema(key);
  if (builtin) list.push({ schema: builtin, trusted: true, origin: KUBERNETES, builtin: true });
  bundledByKey.set(key, (out = list));
  return out;
}

const byCluster = new WeakMap<ClusterCrds, Index>();

function clusterSchemas(cluster: ClusterCrds): Index {
  let index = byCluster.get(cluster);
  if (index) return index;
  const built = new Map<string, SchemaSource[]>();
  for (const crd of cluster.crds) addServed(built, crd, `CRD ${crd.name} (cluster ${cluster.context})`);
  byCluster.set(cluster, (index = built));
  return index;
}

/** The CRDs of one version of a file (an edit parses the file anew: a new SourceFile). */
const byFile = new WeakMap<SourceFile, Index>();

function fileSchemas(file: SourceFile, root: string): Index {
  let index = byFile.get(file);
  if (index) return index;
  index = EMPTY;
  if (file.text.includes('CustomResourceDefinition')) {
    const built = new Map<string, SchemaSource[]>();
    for (const o of objectsOf(file)) {
      if (o.kind === 'CustomResourceDefinition') addCrd(built, o.apiVersion, o.body, `CRD ${o.name} (${file.path.slice(root.length + 1)})`);
    }
    if (built.size) index = built;
  }
  byFile.set(file, index);
  return index;
}

/** Per workspace: the files holding CRDs the last index was made of, and that index. */
const lastWorkspace = new WeakMap<object, { files: readonly SourceFile[]; index: Index }>();
const byModel = new WeakMap<RepoModel, Index>();

/**
 * The CRDs of the workspace's files, in file order: the previous model's index while the files
 * holding CRDs are the same versions (an edit of any other file keeps it).
 */
function workspaceSchemas(model: RepoModel): Index {
  let index = byModel.get(model);
  if (index) return index;
  const root = model.workspace.root;
  const files: SourceFile[] = [];
  for (const file of model.workspace.files.values()) if (fileSchemas(file, root) !== EMPTY) files.push(file);
  const last = lastWorkspace.get(model.workspace);
  if (last && sameList(last.files, files)) index = last.index;
  else {
    index = files.length ? merge(files.map((f) => fileSchemas(f, root))) : EMPTY;
    lastWorkspace.set(model.workspace, { files, index });
  }
  byModel.set(model, index);
  return index;
}

/** The CRDs of one chart render (its `crds/` folder and templates). */
const byInstall = new WeakMap<object, Index>();

function installSchemas(install: HelmInstall & { ok: true }): Index {
  let index = byInstall.get(install);
  if (index) return index;
  const built = new Map<string, SchemaSource[]>();
  const chart = `chart ${install.chart.name} ${install.chart.version}`;
  for (const o of [...install.crds, ...install.objects]) {
    if (o.kind === 'CustomResourceDefinition') addCrd(built, o.apiVersion, o as Record<string, unknown>, `CRD ${o.metadata.name} (${chart})`);
  }
  byInstall.set(install, (index = built.size ? built : EMPTY));
  return index;
}

/** Per workspace: the renders the last chart index was made of, and that index. */
const lastCharts = new WeakMap<object, { installs: readonly object[]; index: Index }>();
const chartsByModel = new WeakMap<RepoModel, Index>();

/**
 * CRDs the charts of the model's HelmReleases hold (their `crds/` folders and templates, whatever
 * the CRD policy: the schema is the chart's either way), from renders already at hand; one source
 * per origin (a chart rendered for several releases). The previous model's index while the renders
 * are the same objects.
 */
function chartSchemas(model: RepoModel): Index {
  let index = chartsByModel.get(model);
  if (index) return index;
  const installs: (HelmInstall & { ok: true })[] = [];
  for (const cluster of model.clusters) {
    for (const hr of cluster.helmReleases) if (hr.install?.ok) installs.push(hr.install);
  }
  const last = lastCharts.get(model.workspace);
  if (last && sameList(last.installs, installs)) index = last.index;
  else {
    const indexes = installs.map(installSchemas).filter((i) => i !== EMPTY);
    index = indexes.length ? merge(indexes, true) : EMPTY;
    lastCharts.set(model.workspace, { installs, index });
  }
  chartsByModel.set(model, index);
  return index;
}

/** The indexes' sources per key, in order; `unique`: one per origin. */
function merge(indexes: readonly Index[], unique = false): Index {
  const out = new Map<string, SchemaSource[]>();
  for (const index of indexes) {
    for (const [key, sources] of index) {
      const list = out.get(key);
      if (!list) out.set(key, [...sources]);
      else for (const s of sources) if (!unique || !list.some((o) => o.origin === s.origin)) list.push(s);
    }
  }
  return out;
}

function sameList(a: readonly object[], b: readonly object[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
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
  const take = (index: Index) => {
    for (const [key, sources] of index) {
      if (!key.startsWith(`${group}/`) || !key.endsWith(suffix)) continue;
      const version = key.slice(group.length + 1, key.length - suffix.length);
      if (version.includes('/')) continue;
      versions.add(version);
      for (const s of sources) origins.add(s.origin);
    }
  };
  take(workspaceSchemas(model));
  take(chartSchemas(model));
  if (cluster) take(clusterSchemas(cluster));
  return versions.size ? { versions: [...versions].sort(), origins: [...origins] } : undefined;
}
