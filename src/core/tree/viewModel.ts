import type { LiveObjectStatus, LiveState } from '../status/conditions';
import type { AppliedObject, ClusterModel, KustomizationNode, RepoModel } from '../model/graph';
import type { KubeObject } from '../model/objects';
import { asRecord, asString } from '../model/objects';
import { docLine, type YamlDoc } from '../yaml/document';
import type { Range } from '../yaml/lines';
import { relativePath, sourceRootsOf } from './treeData';
import { markdownCode, markdownText } from '../escape/markdown';
import { bootstrapFacts, type BootstrapFact } from '../bootstrap/index';
import { installCount, installDetails, installedNodes, installGroups, presentInstall, type InstalledNode, type InstallGroupNode } from './helmInstalls';

/**
 * The Flux tree view as plain data, buildable from a RepoModel without VS Code. Children are
 * computed on demand (`childrenOf`), so a large repo only pays for the nodes the user expands.
 */

export type { LiveState } from '../status/conditions';
/** Cluster state as the live-status source reports it. */
export type LiveInfo = LiveObjectStatus;

/** Read-only view of the cluster the tree decorates its nodes with. */
export interface LiveLookup {
  get(kind: string, namespace: string, name: string): LiveInfo | undefined;
  clusterOnly(): LiveInfo[];
  /** Workspace cluster the status belongs to; undefined decorates every cluster. */
  readonly clusterName?: string;
}

export type TreeNode =
  | { readonly type: 'cluster'; readonly id: string; readonly cluster: ClusterModel; readonly before: readonly BootstrapFact[] }
  | { readonly type: 'bootstrap'; readonly id: string; readonly cluster: ClusterModel; readonly facts: readonly BootstrapFact[] }
  | { readonly type: 'bootstrapFact'; readonly id: string; readonly fact: BootstrapFact }
  | { readonly type: 'flux'; readonly id: string; readonly applied: AppliedObject }
  | { readonly type: 'resources'; readonly id: string; readonly ks: KustomizationNode; readonly objects: AppliedObject[] }
  | { readonly type: 'resource'; readonly id: string; readonly applied: AppliedObject }
  | { readonly type: 'unappliedGroup'; readonly id: string; readonly objects: KubeObject[] }
  | { readonly type: 'unapplied'; readonly id: string; readonly object: KubeObject }
  | { readonly type: 'clusterOnlyGroup'; readonly id: string; readonly objects: LiveInfo[] }
  | { readonly type: 'clusterOnly'; readonly id: string; readonly status: LiveInfo }
  | InstallGroupNode
  | InstalledNode;

export type Collapsible = 'none' | 'collapsed' | 'expanded';

/** An icon by name: a file pair under media/{light,dark}/NAME.svg, or a codicon with an optional theme color. */
export type IconSpec = { media: string } | { codicon: string; color?: string };

export interface NodePresentation {
  id: string;
  label: string;
  description?: string;
  /** Markdown; every user-supplied piece is escaped. */
  tooltip?: string;
  contextValue: string;
  collapsible: Collapsible;
  icon: IconSpec;
  /** Where clicking the node goes: the object's document start. */
  location?: { file: string; range: Range };
}

export const GROUP_UNAPPLIED_LABEL = 'Not applied by any Kustomization';
export const GROUP_CLUSTER_ONLY_LABEL = 'In cluster, not in workspace';
export const GROUP_BOOTSTRAP_LABEL = 'Before Flux';

export function rootNodes(model: RepoModel, live?: LiveLookup): TreeNode[] {
  const out: TreeNode[] = model.clusters.map((cluster) => ({ type: 'cluster', id: `cluster:${cluster.name}`, cluster, before: bootstrapFacts(model, cluster) }));
  if (model.unapplied.length) out.push({ type: 'unappliedGroup', id: 'unapplied', objects: model.unapplied });
  const clusterOnly = live?.clusterOnly() ?? [];
  if (clusterOnly.length) out.push({ type: 'clusterOnlyGroup', id: 'clusterOnly', objects: sortLive(clusterOnly) });
  return out;
}

const fluxId = (cluster: string, a: AppliedObject) =>
  `${cluster}|${a.appliedBy ? key(a.appliedBy.applied) : ''}|${a.object.id}|${key(a)}`;

const key = (a: { kind: string; namespace?: string; name: string }) => `${a.kind}/${a.namespace ?? ''}/${a.name}`;

/** Order under a Kustomization: Kustomizations, HelmReleases, sources (and generators), then the rest as one group. */
function fluxRank(a: AppliedObject): number {
  switch (a.object.fluxKind) {
    case 'Kustomization':
      return 0;
    case 'HelmRelease':
      return 1;
    case undefined:
      return 3;
    default:
      return 2;
  }
}

export function childrenOf(node: TreeNode): TreeNode[] {
  switch (node.type) {
    case 'cluster': {
      const root = node.cluster.root.applied;
      const flux: TreeNode = { type: 'flux', id: fluxId(node.cluster.name, root), applied: root };
      if (!node.before.length) return [flux];
      return [{ type: 'bootstrap', id: `${node.id}|bootstrap`, cluster: node.cluster, facts: node.before }, flux];
    }
    case 'bootstrap':
      return uniqueIds(node.facts.map((fact) => ({ type: 'bootstrapFact', id: `${node.id}|${fact.file}:${fact.line}|${fact.what}|${fact.name}`, fact })));
    case 'flux': {
      if (node.applied.flux?.kind === 'HelmRelease') return installGroups(node.applied.flux, node.id);
      const ks = node.applied.flux?.kind === 'Kustomization' ? node.applied.flux : undefined;
      if (!ks) return [];
      const cluster = node.applied.cluster.name;
      const flux = ks.applies.filter((a) => a.object.fluxKind !== undefined);
      const ordered = flux.map((a, i) => ({ a, i })).sort((x, y) => fluxRank(x.a) - fluxRank(y.a) || x.i - y.i);
      const out: TreeNode[] = uniqueIds(ordered.map(({ a }) => ({ type: 'flux', id: fluxId(cluster, a), applied: a })));
      const rest = ks.applies.filter((a) => a.object.fluxKind === undefined);
      if (rest.length) out.push({ type: 'resources', id: `${fluxId(cluster, ks.applied)}|resources`, ks, objects: rest });
      return out;
    }
    case 'resources': {
      const cluster = node.ks.applied.cluster.name;
      return uniqueIds(node.objects.map((a) => ({ type: 'resource', id: fluxId(cluster, a), applied: a })));
    }
    case 'unappliedGroup':
      return uniqueIds(node.objects.map((o) => ({ type: 'unapplied', id: `unapplied|${o.id}`, object: o })));
    case 'clusterOnlyGroup':
      return node.objects.map((s) => ({ type: 'clusterOnly', id: `clusterOnly|${key(s)}`, status: s }));
    case 'installGroup':
      return installedNodes(node);
    default:
      return [];
  }
}

/** A document applied twice with the same identity by one parent would collide; suffix repeats. */
function uniqueIds<T extends TreeNode>(nodes: T[]): T[] {
  const seen = new Map<string, number>();
  return nodes.map((n) => {
    const count = seen.get(n.id) ?? 0;
    seen.set(n.id, count + 1);
    return count === 0 ? n : ({ ...n, id: `${n.id}#${count}` } as T);
  });
}

function sortLive(list: LiveInfo[]): LiveInfo[] {
  return [...list].sort((a, b) => key(a).localeCompare(key(b)));
}

const STATE_ICON: Record<LiveState, IconSpec> = {
  Ready: { codicon: 'pass-filled', color: 'testing.iconPassed' },
  NotReady: { codicon: 'error', color: 'testing.iconFailed' },
  Suspended: { codicon: 'debug-pause', color: 'disabledForeground' },
  Reconciling: { codicon: 'sync~spin' },
  Unknown: { codicon: 'question' },
  Absent: { codicon: 'circle-slash', color: 'list.warningForeground' },
};

/** contextValue suffix per live state; documented in docs/tree-context-values.md. */
const STATE_TOKEN: Record<LiveState, string> = {
  Ready: ':inCluster:ready',
  NotReady: ':inCluster:notReady',
  Suspended: ':inCluster:suspended',
  Reconciling: ':inCluster:reconciling',
  Unknown: ':inCluster:unknown',
  Absent: ':absent',
};

export function fluxContextValue(kind: string, fluxKind: string | undefined, state: LiveState | undefined): string {
  let base: string;
  if (fluxKind === 'Kustomization' || fluxKind === 'HelmRelease') base = `flux:${fluxKind}`;
  else if (fluxKind === 'ArtifactGenerator') base = 'flux:generator:ArtifactGenerator';
  else if (fluxKind) base = `flux:source:${fluxKind}`;
  else base = `resource:${kind}`;
  return state ? base + STATE_TOKEN[state] : base;
}

const KIND_ICON: Record<string, string> = {
  Kustomization: 'kustomization',
  HelmRelease: 'helmrelease',
};

function kindIcon(fluxKind: string | undefined): IconSpec {
  if (fluxKind && KIND_ICON[fluxKind]) return { media: KIND_ICON[fluxKind] };
  if (fluxKind) return { media: 'source' };
  return { codicon: 'symbol-field' };
}

function locationOf(doc: YamlDoc): { file: string; range: Range } {
  const pos = doc.file.lines.position(doc.start);
  return { file: doc.file.path, range: { start: pos, end: pos } };
}

function liveFor(live: LiveLookup | undefined, cluster: string | undefined, a: { kind: string; namespace: string | undefined; name: string }): LiveInfo | undefined {
  if (!live) return undefined;
  if (live.clusterName !== undefined && cluster !== live.clusterName) return undefined;
  return live.get(a.kind, a.namespace ?? '', a.name);
}

export function present(node: TreeNode, model: RepoModel, live?: LiveLookup): NodePresentation {
  const root = model.workspace.root;
  const where = (doc: YamlDoc) => `${relativePath(root, doc.file.path)}:${docLine(doc)}`;
  switch (node.type) {
    case 'cluster': {
      const c = node.cluster;
      return {
        id: node.id,
        label: c.name,
        description: `${plural(c.kustomizations.length, 'Kustomization')}, ${plural(c.helmReleases.length, 'HelmRelease')}`,
        tooltip: `**Cluster** ${markdownText(c.name)}\n\nRoot: ${markdownText(key(c.root.applied))} (${markdownText(where(c.root.applied.object.doc))})`,
        contextValue: 'cluster',
        collapsible: 'expanded',
        icon: { media: 'cluster' },
      };
    }
    case 'flux':
      return presentFlux(node.id, node.applied, where, live, model);
    case 'installGroup':
      return { id: node.id, ...presentInstall(node), contextValue: node.kind === undefined ? 'group:helmCrds' : 'group:helmKind', collapsible: 'collapsed', icon: { codicon: node.kind === undefined ? 'symbol-class' : 'files' } };
    case 'installed': {
      const origin = node.object.origin;
      return {
        id: node.id,
        ...presentInstall(node),
        contextValue: `${fluxContextValue(node.object.kind, undefined, undefined)}:helm`,
        collapsible: 'none',
        icon: kindIcon(undefined),
        // A workspace chart's template; else the HelmRelease that installs it.
        location: origin ? { file: origin.file, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } } : locationOf(node.hr.applied.object.doc),
      };
    }
    case 'resources':
      return {
        id: node.id,
        label: `${node.objects.length} ${node.objects.length === 1 ? 'resource' : 'resources'}`,
        tooltip: `Other objects ${markdownText(key(node.ks.applied))} applies`,
        contextValue: 'group:resources',
        collapsible: 'collapsed',
        icon: { codicon: 'files' },
      };
    case 'resource': {
      const a = node.applied;
      return {
        id: node.id,
        label: a.name,
        description: a.namespace ? `${a.kind} · ${a.namespace}` : a.kind,
        tooltip: objectTooltip(a.kind, a.namespace, a.name, where(a.object.doc), []),
        contextValue: fluxContextValue(a.kind, undefined, undefined),
        collapsible: 'none',
        icon: kindIcon(undefined),
        location: locationOf(a.object.origin?.doc ?? a.object.doc),
      };
    }
    case 'unappliedGroup':
      return {
        id: node.id,
        label: GROUP_UNAPPLIED_LABEL,
        description: String(node.objects.length),
        tooltip: 'Flux objects in the workspace that no cluster root Kustomization reaches: Flux never applies them from this repository.',
        contextValue: 'group:unapplied',
        collapsible: 'collapsed',
        icon: { codicon: 'warning', color: 'list.warningForeground' },
      };
    case 'unapplied': {
      const o = node.object;
      return {
        id: node.id,
        label: o.name,
        description: `${o.kind} · ${relativePath(root, o.doc.file.path)}`,
        tooltip: objectTooltip(o.kind, o.namespace, o.name, where(o.doc), ['Not applied by any Kustomization']),
        contextValue: fluxContextValue(o.kind, o.fluxKind, undefined) + ':unapplied',
        collapsible: 'none',
        icon: kindIcon(o.fluxKind),
        location: locationOf(o.doc),
      };
    }
    case 'bootstrap':
      return {
        id: node.id,
        label: GROUP_BOOTSTRAP_LABEL,
        description: plural(node.facts.length, 'fact'),
        tooltip: `What the repository's bootstrap installs before Flux runs ${markdownText(node.cluster.name)} (helmfiles, Talos configs, task runners and scripts, \`.gitops-preview.yaml\`): CRDs of these groups exist before any Kustomization.`,
        contextValue: 'group:bootstrap',
        collapsible: 'collapsed',
        icon: { codicon: 'rocket' },
      };
    case 'bootstrapFact': {
      const f = node.fact;
      const at = `${relativePath(root, f.file)}:${f.line}`;
      const details = [`${markdownText(BOOTSTRAP_WHAT[f.what])}, read from ${markdownText(f.reader)}`, markdownCode(at)];
      if (f.via) details.push(`By ${markdownCode(f.via)}`);
      if (f.what !== 'artifact') details.push(f.groups.length ? `CRD groups: ${f.groups.map(markdownCode).join(', ')}` : 'CRD groups: unknown (custom resources needing them are not flagged)');
      return {
        id: node.id,
        label: f.name,
        description: `${f.what} · ${f.reader} · ${at}`,
        tooltip: details.join('\n\n'),
        contextValue: `bootstrap:${f.what}`,
        collapsible: 'none',
        icon: { codicon: f.what === 'root' ? 'root-folder' : f.what === 'chart' ? 'package' : f.what === 'manifest' ? 'file' : f.what === 'artifact' ? 'cloud-upload' : 'symbol-class' },
        location: { file: f.file, range: { start: { line: f.line - 1, character: 0 }, end: { line: f.line - 1, character: 0 } } },
      };
    }
    case 'clusterOnlyGroup':
      return {
        id: node.id,
        label: GROUP_CLUSTER_ONLY_LABEL,
        description: String(node.objects.length),
        tooltip: 'Flux objects the connected cluster has and no workspace file defines.',
        contextValue: 'group:clusterOnly',
        collapsible: 'collapsed',
        icon: { codicon: 'cloud' },
      };
    case 'clusterOnly': {
      const s = node.status;
      const lines = [`**${markdownText(s.kind)}** ${markdownText(`${s.namespace}/${s.name}`)}`, 'Only in the cluster', ...liveLines(s)];
      return {
        id: node.id,
        label: s.name,
        description: `${s.kind} · ${s.namespace} · ${s.state}`,
        tooltip: lines.join('\n\n'),
        contextValue: `${fluxContextValue(s.kind, fluxKindByName(s.kind), s.state)}:clusterOnly`,
        collapsible: 'none',
        icon: STATE_ICON[s.state],
      };
    }
  }
}

function fluxKindByName(kind: string): string | undefined {
  return kind === 'Kustomization' || kind === 'HelmRelease' || kind === 'ArtifactGenerator' ? kind : kind.length ? kind : undefined;
}

function presentFlux(id: string, a: AppliedObject, where: (doc: YamlDoc) => string, liveLookup: LiveLookup | undefined, model: RepoModel): NodePresentation {
  const flux = a.flux;
  const live = liveFor(liveLookup, a.cluster.name, a);
  const details: string[] = [];
  let description: string | undefined;
  if (flux?.kind === 'Kustomization') {
    const src = flux.sourceRef ? `${flux.sourceRef.kind}/${flux.sourceRef.name}` : 'no source';
    description = `${src} · ./${flux.path}`;
    details.push(`Source: ${markdownText(flux.source.description)}`, `Path: ${markdownCode(`./${flux.path}`)}`);
    if (flux.source.kind === 'view' && flux.source.root !== undefined) details.push(sourceRootLine(flux.source.root, flux.source.rootOrigin));
    if (flux.targetNamespace) details.push(`targetNamespace: ${markdownText(flux.targetNamespace)}`);
    if (flux.dependsOn.length) details.push(`dependsOn: ${flux.dependsOn.map((d) => markdownText(`${d.namespace}/${d.name}`)).join(', ')}`);
    details.push(`Applies ${flux.applies.length} objects`);
    for (const problem of flux.problems.slice(0, 3)) details.push(`⚠ ${markdownText(problem.message)}`);
    if (flux.remoteResources.length) details.push(`Remote bases not followed: ${flux.remoteResources.map(markdownText).join(', ')}`);
  } else if (flux?.kind === 'HelmRelease') {
    const chart = flux.chart ?? (flux.chartRef ? 'chartRef' : undefined);
    const src = flux.chartSourceRef ? `${flux.chartSourceRef.kind}/${flux.chartSourceRef.name}` : undefined;
    const count = installCount(flux);
    description = [chart, src, count === undefined ? undefined : plural(count, 'object')].filter(Boolean).join(' · ') || undefined;
    if (chart) details.push(`Chart: ${markdownText(chart)}`);
    if (flux.chartSourceRef) details.push(`Chart source: ${markdownText(`${flux.chartSourceRef.kind}/${flux.chartSourceRef.namespace}/${flux.chartSourceRef.name}`)}`);
    details.push(`Release name: ${markdownText(flux.releaseName)}`, `targetNamespace: ${markdownText(flux.targetNamespace)}`);
    if (flux.storageNamespace !== flux.targetNamespace) details.push(`storageNamespace: ${markdownText(flux.storageNamespace)}`);
    if (flux.dependsOn.length) details.push(`dependsOn: ${flux.dependsOn.map((d) => markdownText(`${d.namespace}/${d.name}`)).join(', ')}`);
    details.push(...installDetails(flux, model));
  } else {
    const spec = asRecord(a.object.body.spec);
    const url = asString(spec?.url) ?? asString(spec?.endpoint);
    description = url ? `${a.kind} · ${url}` : a.kind;
    if (url) details.push(`URL: ${markdownText(url)}`);
    const root = sourceRootsOf(a.cluster).get(a.object.id);
    if (root) details.push(sourceRootLine(root.root, root.origin));
  }
  if (a.object.origin?.fluxKind === 'Kustomization') details.push('_Inferred: the repository has no bootstrap file, and `flux bootstrap` would sync this folder_');
  else if (a.object.origin) details.push(`_Created by ${markdownText(`${a.object.origin.kind} ${a.object.origin.namespace ?? ''}/${a.object.origin.name}`)}_`);
  else if (a.object.synthetic) details.push('_Inferred: `flux bootstrap` creates it at install time_');
  if (live) {
    description = `${description ? description + ' · ' : ''}${live.state}`;
    details.push(...liveLines(live));
  }
  return {
    id,
    label: a.name,
    description,
    tooltip: objectTooltip(a.kind, a.namespace, a.name, where(a.object.origin?.doc ?? a.object.doc), details),
    contextValue: fluxContextValue(a.kind, a.object.fluxKind, live?.state),
    collapsible: flux?.kind === 'Kustomization' && flux.applies.length ? (a.appliedBy ? 'collapsed' : 'expanded') : flux?.kind === 'HelmRelease' && installCount(flux) ? 'collapsed' : 'none',
    icon: live ? STATE_ICON[live.state] : kindIcon(a.object.fluxKind),
    location: locationOf(a.object.origin?.doc ?? a.object.doc),
  };
}

const ROOT_ORIGIN: Record<string, string> = {
  remote: 'its URL is a Git remote of this workspace',
  bootstrap: "the cluster's own sync source",
  configured: 'configured in `gitopsPreview.sourceRoots` or `.gitops-preview.yaml`',
  inferred: 'inferred from where the `spec.path`s reading it resolve; pin it with `gitopsPreview.sourceRoots` or `.gitops-preview.yaml`',
  pushed: 'the folder the repository’s own `flux push artifact` step pushes as this artifact',
};

function sourceRootLine(root: string, origin: string | undefined): string {
  return `Source root: ${markdownCode(root ? `./${root}` : '.')} (${origin ? ROOT_ORIGIN[origin] ?? markdownText(origin) : 'this workspace'})`;
}

function liveLines(s: LiveInfo): string[] {
  const out = [`Cluster: **${s.state}**`];
  if (s.message) out.push(markdownText(s.message));
  if (s.revision) out.push(`Revision: ${markdownCode(s.revision)}`);
  if (s.lastHandledReconcileAt) out.push(`Last reconcile request: ${markdownText(s.lastHandledReconcileAt)}`);
  return out;
}

function objectTooltip(kind: string, namespace: string | undefined, name: string, where: string, details: string[]): string {
  const head = `**${markdownText(kind)}** ${markdownText(namespace ? `${namespace}/${name}` : name)}`;
  return [head, markdownCode(where), ...details].join('\n\n');
}

/**
 * Nodes from a cluster down to every place the document `objectId` appears in the tree (one path
 * per cluster applying it, plus the unapplied group). Used to reveal the object under the cursor;
 * pass the view's own `children` so the returned nodes are the very objects the view holds.
 */
export function pathsTo(
  model: RepoModel,
  objectId: string,
  roots: TreeNode[] = rootNodes(model),
  children: (node: TreeNode) => TreeNode[] = childrenOf,
): TreeNode[][] {
  const out: TreeNode[][] = [];
  const visit = (node: TreeNode, trail: TreeNode[]) => {
    const here = [...trail, node];
    if ((node.type === 'flux' || node.type === 'resource') && node.applied.object.id === objectId) out.push(here);
    if ((node.type === 'flux' && node.applied.flux?.kind !== 'Kustomization') || node.type === 'bootstrap') return;
    if (node.type === 'resources' && !node.objects.some((a) => a.object.id === objectId)) return;
    for (const child of children(node)) visit(child, here);
  };
  for (const root of roots) {
    if (root.type === 'cluster') visit(root, []);
    else if (root.type === 'unappliedGroup') {
      const hit = children(root).find((n) => n.type === 'unapplied' && n.object.id === objectId);
      if (hit) out.push([root, hit]);
    }
  }
  return out;
}

const BOOTSTRAP_WHAT: Record<BootstrapFact['what'], string> = {
  'crd-group': 'Every CRD of an API group',
  crd: 'A CustomResourceDefinition',
  chart: 'A Helm chart',
  manifest: 'Manifests whose CRDs cannot be told',
  root: "A cluster's root folder",
  artifact: 'An OCI artifact pushed from a folder of this repository',
};

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
