/**
 * What a HelmRelease installs, in the tree: under the HelmRelease, its CRDs apart, then its other
 * objects grouped by kind (all collapsed), from the model's render of the release
 * (core/helm/install.ts); and the lines of its tooltip that say where that answer came from: the
 * render (chart, digest, Kubernetes version), or, for a chart not at hand, the known-charts table.
 */
import type { HelmReleaseNode, RepoModel } from '../model/graph';
import type { BuiltObject } from '../model/rendered';
import { asRecord, asString } from '../model/objects';
import { crdPolicies, installedCrds } from '../helm/install';
import { knownChartOf } from '../checks/crdProviders';
import { markdownCode, markdownText } from '../escape/markdown';

/** A group of what a HelmRelease installs: its CRDs, or its objects of one kind. */
export interface InstallGroupNode {
  readonly type: 'installGroup';
  readonly id: string;
  readonly hr: HelmReleaseNode;
  /** The kind of its objects; undefined for the CRDs group. */
  readonly kind: string | undefined;
  readonly objects: readonly BuiltObject[];
}

export interface InstalledNode {
  readonly type: 'installed';
  readonly id: string;
  readonly hr: HelmReleaseNode;
  readonly object: BuiltObject;
}

export const GROUP_CRDS_LABEL = 'CRDs';

/** The objects a fresh install of the release creates: CRDs (the policy's crds/ folder and templated ones), then the rest. */
function installed(hr: HelmReleaseNode): { crds: BuiltObject[]; rest: BuiltObject[] } | undefined {
  const install = hr.install;
  if (!install?.ok) return undefined;
  return { crds: installedCrds(hr, install).map((c) => c.object), rest: install.objects.filter((o) => o.kind !== 'CustomResourceDefinition') };
}

/** How many objects the release installs, for the HelmRelease's line; undefined without a render. */
export function installCount(hr: HelmReleaseNode): number | undefined {
  const i = installed(hr);
  return i && i.crds.length + i.rest.length;
}

/** The groups under a HelmRelease: CRDs first, then one per kind in the order helm installs them. */
export function installGroups(hr: HelmReleaseNode, parentId: string): InstallGroupNode[] {
  const i = installed(hr);
  if (!i) return [];
  const out: InstallGroupNode[] = [];
  if (i.crds.length) out.push({ type: 'installGroup', id: `${parentId}|crds`, hr, kind: undefined, objects: i.crds });
  const byKind = new Map<string, BuiltObject[]>();
  for (const o of i.rest) {
    const list = byKind.get(o.kind);
    if (list) list.push(o);
    else byKind.set(o.kind, [o]);
  }
  for (const [kind, objects] of byKind) out.push({ type: 'installGroup', id: `${parentId}|kind:${kind}`, hr, kind, objects });
  return out;
}

export function installedNodes(group: InstallGroupNode): InstalledNode[] {
  const seen = new Map<string, number>();
  return group.objects.map((object) => {
    const base = `${group.id}|${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return { type: 'installed', id: n ? `${base}#${n}` : base, hr: group.hr, object };
  });
}

/** The tooltip lines of a HelmRelease about what it installs and where that answer came from. */
export function installDetails(hr: HelmReleaseNode, model: RepoModel): string[] {
  const install = hr.install;
  if (!install) return [];
  const out: string[] = [];
  if (install.ok) {
    const c = install.chart;
    const where = c.from === 'workspace' ? 'workspace chart' : 'chart cache';
    out.push(`Rendered: chart ${markdownText(`${c.name} ${c.version}`)} (${where}, ${markdownCode(`sha256:${c.digest.slice(0, 12)}`)}), Kubernetes ${markdownText(install.kubeVersion.version)} (${markdownText(install.kubeVersion.origin)})`);
    const crds = installedCrds(hr, install);
    const policies = crdPolicies(hr);
    const folder = install.crds.length ? `; crds/ folder: ${install.crds.length}, install.crds ${policies.install}, upgrade.crds ${policies.upgrade}` : '';
    out.push(`Installs ${install.objects.length - crds.filter((x) => !x.fromCrdsFolder).length} objects and ${crds.length} CRDs${folder}`);
    for (const why of install.incomplete.slice(0, 3)) out.push(`⚠ Values not all known: ${markdownText(why)}`);
    return out;
  }
  const known = knownChartOf(model, hr);
  const fallback = known ? `CRDs from the known-charts table (chart ${markdownText(known.name)}: ${known.groups.map(markdownCode).join(', ')})` : 'CRDs it installs unknown (its chart is not in the known-charts table)';
  out.push(install.atHand ? `⚠ Render failed: ${markdownText(firstLine(install.message))}` : `Not rendered: ${markdownText(firstLine(install.message))}`);
  out.push(fallback);
  return out;
}

function firstLine(text: string): string {
  const nl = text.indexOf('\n');
  return nl < 0 ? text : `${text.slice(0, nl)} …`;
}

/** The label, description and tooltip of a group or an installed object. */
export function presentInstall(node: InstallGroupNode | InstalledNode): { label: string; description?: string; tooltip: string } {
  const release = markdownText(`${node.hr.applied.namespace ?? 'default'}/${node.hr.applied.name}`);
  if (node.type === 'installGroup') {
    if (node.kind === undefined) {
      const skipped = crdPolicies(node.hr).install === 'Skip' && node.hr.install?.ok && node.hr.install.crds.length ? ` (the chart's crds/ folder is skipped: install.crds is Skip)` : '';
      return { label: GROUP_CRDS_LABEL, description: String(node.objects.length), tooltip: `CustomResourceDefinitions HelmRelease ${release} installs${skipped}` };
    }
    return { label: node.kind, description: String(node.objects.length), tooltip: `${markdownText(node.kind)} objects HelmRelease ${release} installs` };
  }
  const o = node.object;
  const ns = o.metadata.namespace;
  const spec = asRecord(o.spec);
  const crd = o.kind === 'CustomResourceDefinition' ? asString(spec?.group) : undefined;
  return {
    label: o.metadata.name,
    description: [o.kind, ns, crd].filter(Boolean).join(' · '),
    tooltip: `**${markdownText(o.kind)}** ${markdownText(ns ? `${ns}/${o.metadata.name}` : o.metadata.name)}\n\nInstalled by HelmRelease ${release}`,
  };
}
