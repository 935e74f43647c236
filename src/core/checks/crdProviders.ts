import type { AppliedObject, ClusterModel, HelmReleaseNode, KustomizationNode, RepoModel } from '../model/graph';
import { asArray, asRecord, asString, objectsOf } from '../model/objects';
import { findSource, resolveSource } from '../model/sources';
import { normalizeVirtual } from '../model/view';
import type { YamlDoc } from '../yaml/document';
import type { CheckContext } from './context';
import { chartName, KNOWN_CHARTS } from './knownCharts';
import { bootstrapReleases } from '../bootstrap/index';
import { installedCrds } from '../helm/install';

/** Something that makes a CRD exist in a cluster. */
export interface CrdProvider {
  readonly group: string;
  /** The kind it defines; undefined when only the group is known (well-known chart table). */
  readonly kind: string | undefined;
  readonly via: 'crd' | 'helm';
  /** The CustomResourceDefinition document (via 'crd', or a chart's `crds/` file) or the HelmRelease. */
  readonly applied: AppliedObject;
  readonly helmRelease: HelmReleaseNode | undefined;
  /** The Kustomization applying the CRD or the HelmRelease. */
  readonly ks: KustomizationNode | undefined;
  /** The document to point at (the CRD or the HelmRelease). */
  readonly doc: YamlDoc;
  readonly description: string;
  /** Installed before Flux runs (a release of a bootstrap helmfile in the workspace). */
  readonly preinstalled?: boolean;
}

export type ProviderIndex = Map<string, CrdProvider[]>;

function add(index: ProviderIndex, key: string, p: CrdProvider) {
  const list = index.get(key);
  if (list) list.push(p);
  else index.set(key, [p]);
}

/**
 * CRD providers of a cluster, keyed `placement#group/kind` (exact) and `placement#group/*` (group
 * only): CRD documents it applies; HelmReleases by the CRDs their render installs (the chart's own
 * `crds/` folder under the `install.crds` policy, and templated CRDs); for a HelmRelease without a
 * render (its chart not at hand), a workspace chart's `crds/` folder read as written, else the
 * known-charts table, where `install.crds: Skip` provides nothing.
 */
export function crdProviders(ctx: CheckContext, cluster: ClusterModel): ProviderIndex {
  const index: ProviderIndex = new Map();
  for (const applied of cluster.objects) {
    if (applied.kind !== 'CustomResourceDefinition') continue;
    const spec = asRecord(applied.object.body.spec);
    const group = asString(spec?.group);
    const kind = asString(asRecord(spec?.names)?.kind);
    if (!group || !kind) continue;
    const p: CrdProvider = {
      group,
      kind,
      via: 'crd',
      applied,
      helmRelease: undefined,
      ks: applied.appliedBy,
      doc: applied.object.doc,
      description: `CustomResourceDefinition ${applied.name}`,
    };
    add(index, `${ctx.placement(applied)}#${group}/${kind}`, p);
  }
  const bootstrap = bootstrapReleases(ctx.model);
  const operatorRooted = cluster.root.applied.object.origin !== undefined;
  for (const hr of cluster.helmReleases) {
    const spec = asRecord(hr.applied.object.body.spec) ?? {};
    const preinstalled = bootstrap.has(`${hr.applied.namespace}/${hr.applied.name}`) || bootstrap.has(`${hr.targetNamespace}/${hr.releaseName}`);
    const where = ctx.targetOf(hr);
    const base = { via: 'helm' as const, applied: hr.applied, helmRelease: hr, ks: hr.applied.appliedBy, doc: hr.applied.object.doc, preinstalled };
    const label = `HelmRelease ${hr.applied.namespace}/${hr.applied.name}`;
    const install = hr.install;
    if (install?.ok) {
      // A bootstrap that installed the release already created the chart's crds/ folder, whatever Flux's policy says.
      const crds = preinstalled ? [...install.crds.map((object) => ({ object })), ...installedCrds(hr, install).filter((c) => !c.fromCrdsFolder)] : installedCrds(hr, install);
      const chart = `${install.chart.name} ${install.chart.version}`;
      for (const { object } of crds) {
        const crdSpec = asRecord(object.spec);
        const group = asString(crdSpec?.group);
        const kind = asString(asRecord(crdSpec?.names)?.kind);
        if (group && kind) add(index, `${where}#${group}/${kind}`, { ...base, group, kind, description: `${label} (chart ${chart}: CRD ${kind}.${group}, rendered)` });
      }
      // Values the render could not see may turn CRDs on: the table still speaks for those.
      if (!install.incomplete.length) continue;
    }
    if (!preinstalled && asString(asRecord(spec.install)?.crds) === 'Skip') continue;
    const local = workspaceChartCrds(ctx, hr);
    if (local) {
      for (const { group, kind } of local) add(index, `${where}#${group}/${kind}`, { ...base, group, kind, description: `${label} (chart CRD ${kind}.${group})` });
      continue;
    }
    const name = chartOf(ctx.model, hr);
    const known = name ? KNOWN_CHARTS[name] : undefined;
    if (!known) continue;
    if (known.enabledBy && !valuesEnable(spec, known.enabledBy)) continue;
    // A cluster whose root a FluxInstance creates has the Flux Operator (and its CRDs) running already.
    const operator = name === 'flux-operator' && operatorRooted;
    for (const group of known.groups) add(index, `${where}#${group}/*`, { ...base, preinstalled: preinstalled || operator, group, kind: undefined, description: `${label} (chart ${name}, known-charts table)` });
  }
  return index;
}

export function providersFor(index: ProviderIndex, placement: string, group: string, kind: string): CrdProvider[] {
  return index.get(`${placement}#${group}/${kind}`) ?? index.get(`${placement}#${group}/*`) ?? [];
}

/** The known-charts table's entry for a HelmRelease's chart (the fallback when the chart is not at hand). */
export function knownChartOf(model: RepoModel, hr: HelmReleaseNode): { name: string; groups: readonly string[] } | undefined {
  const name = chartOf(model, hr);
  const known = name ? KNOWN_CHARTS[name] : undefined;
  return name && known ? { name, groups: known.groups } : undefined;
}

/** The chart a HelmRelease installs: `chart.spec.chart`, or the repository name of its chartRef OCIRepository. */
function chartOf(model: RepoModel, hr: HelmReleaseNode): string | undefined {
  if (hr.chart) return chartName(hr.chart);
  const ref = hr.chartSourceRef;
  if (!hr.chartRef || !ref || ref.kind !== 'OCIRepository') return undefined;
  const repo = findSource(model.sourceIndex, ref.kind, ref.name, ref.namespace, hr.applied.object.doc.file.path);
  const url = asString(asRecord(repo?.body.spec)?.url);
  return url ? chartName(url) : undefined;
}

/** CRDs in the `crds/` folder of a chart that lives in this workspace, or undefined when the chart is elsewhere. */
function workspaceChartCrds(ctx: CheckContext, hr: HelmReleaseNode): { group: string; kind: string }[] | undefined {
  const ref = hr.chartSourceRef;
  if (!ref || hr.chartRef || !hr.chart || ref.kind !== 'GitRepository') return undefined;
  const ws = ctx.model.workspace;
  const source = resolveSource(ws, ctx.model.sourceIndex, ref, { remotes: [] }, hr.applied.object.doc.file.path);
  if (source.kind !== 'view') return undefined;
  const vpath = normalizeVirtual(hr.chart);
  const dir = vpath === undefined ? undefined : source.view.realDir(vpath);
  if (!dir || !ws.chartDirs.has(dir)) return undefined;
  const out: { group: string; kind: string }[] = [];
  const crdsDir = `${dir}/crds`;
  for (const name of ws.listDir(crdsDir)?.files ?? []) {
    const file = ws.files.get(`${crdsDir}/${name}`);
    if (!file) continue;
    for (const o of objectsOf(file)) {
      if (o.kind !== 'CustomResourceDefinition') continue;
      const spec = asRecord(o.body.spec);
      const group = asString(spec?.group);
      const kind = asString(asRecord(spec?.names)?.kind);
      if (group && kind) out.push({ group, kind });
    }
  }
  return out;
}

/** Whether the HelmRelease's values turn on CRD installation; unknown (valuesFrom) counts as on. */
function valuesEnable(spec: Record<string, any>, paths: readonly (readonly string[])[]): boolean {
  if (asArray(spec.valuesFrom).length) return true;
  const values = asRecord(spec.values) ?? {};
  return paths.some((p) => {
    let v: unknown = values;
    for (const seg of p) v = asRecord(v)?.[seg];
    return v === true || v === 'true';
  });
}
