import type { AppliedObject, ClusterModel, HelmReleaseNode, KustomizationNode, RepoModel } from '../model/graph';
import type { KubeObject } from '../model/objects';
import { docLine } from '../yaml/document';
import { terminalName } from '../escape/terminal';
import { bootstrapFacts } from '../bootstrap/index';
import { installGroups } from './helmInstalls';

/** The `gitops-preview tree --format json` contract. */
export interface TreeObjectEntry {
  kind: string;
  name: string;
  namespace: string;
  file: string;
  line: number;
  cluster: string | null;
}

export interface TreeKustomizationEntry extends TreeObjectEntry {
  path: string;
  sourceRef: string | null;
  dependsOn: string[];
  applies: string[];
}

export interface TreeSourceEntry extends TreeObjectEntry {
  /**
   * The workspace folder this source's artifact holds (`.` = the repository root), when a
   * Kustomization of the cluster reads it from the workspace; null when it is external or unread.
   */
  root: string | null;
  /** How `root` was decided: `remote` (URL of a Git remote), `bootstrap`, `configured`, `inferred`. */
  rootOrigin: string | null;
}

export interface TreeHelmReleaseEntry extends TreeObjectEntry {
  /**
   * What the release installs (`Kind/namespace/name`, CRDs first), from its render; null when it
   * has none (its chart is not at hand, the render failed, or the model was not refined).
   */
  installs: string[] | null;
  /** The chart rendered (`name version`, and where it was found); null without a render. */
  chart: { name: string; version: string; from: string; digest: string; kubeVersion: string } | null;
}

export interface TreeNodeEntry {
  kind: string;
  name: string;
  namespace: string;
  file: string;
  line: number;
  children: TreeNodeEntry[];
}

/** One thing the repository's bootstrap installs before Flux, and where that was read. */
export interface TreeBootstrapEntry {
  what: string;
  name: string;
  /** CRD groups it installs; empty when none or unknown. */
  groups: string[];
  reader: string;
  file: string;
  line: number;
  via: string | null;
}

export interface TreeJson {
  clusters: { name: string; root: TreeNodeEntry; bootstrap: TreeBootstrapEntry[] }[];
  kustomizations: TreeKustomizationEntry[];
  helmReleases: TreeHelmReleaseEntry[];
  sources: TreeSourceEntry[];
  unapplied: TreeObjectEntry[];
}

export function relativePath(root: string, path: string): string {
  return path.startsWith(root + '/') ? path.slice(root.length + 1) : path;
}

export function fluxId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

function entry(root: string, applied: AppliedObject): TreeObjectEntry {
  return {
    kind: applied.kind,
    name: applied.name,
    namespace: applied.namespace ?? '',
    file: relativePath(root, applied.object.doc.file.path),
    // Objects the Flux Operator creates point at what creates them (FluxInstance, ResourceSet).
    line: docLine(applied.object.origin?.doc ?? applied.object.doc),
    cluster: applied.cluster.name,
  };
}

function unappliedEntry(root: string, o: KubeObject): TreeObjectEntry {
  return {
    kind: o.kind,
    name: o.name,
    namespace: o.namespace ?? 'default',
    file: relativePath(root, o.doc.file.path),
    line: docLine(o.doc),
    cluster: null,
  };
}

function nodeEntry(root: string, ks: KustomizationNode): TreeNodeEntry {
  const children: TreeNodeEntry[] = [];
  for (const applied of ks.applies) {
    if (!applied.flux) continue;
    if (applied.flux.kind === 'Kustomization') children.push(nodeEntry(root, applied.flux));
    else children.push({ ...leaf(root, applied), children: [] });
  }
  return { ...leaf(root, ks.applied), children };
}

function leaf(root: string, applied: AppliedObject) {
  const e = entry(root, applied);
  return { kind: e.kind, name: e.name, namespace: e.namespace, file: e.file, line: e.line };
}

export function treeJson(model: RepoModel): TreeJson {
  const root = model.workspace.root;
  const out: TreeJson = { clusters: [], kustomizations: [], helmReleases: [], sources: [], unapplied: [] };
  for (const cluster of model.clusters) {
    const bootstrap = bootstrapFacts(model, cluster).map((f) => ({ what: f.what, name: f.name, groups: [...f.groups], reader: f.reader, file: relativePath(root, f.file), line: f.line, via: f.via ?? null }));
    out.clusters.push({ name: cluster.name, root: nodeEntry(root, cluster.root), bootstrap });
    for (const ks of cluster.kustomizations) {
      out.kustomizations.push({
        ...entry(root, ks.applied),
        path: ks.path ? `./${ks.path}` : './',
        sourceRef: ks.sourceRef ? fluxId(ks.sourceRef.kind, ks.sourceRef.namespace, ks.sourceRef.name) : null,
        dependsOn: ks.dependsOn.map((d) => `${d.namespace}/${d.name}`),
        applies: ks.applies.filter((a) => a.flux).map((a) => fluxId(a.kind, a.namespace, a.name)),
      });
    }
    for (const hr of cluster.helmReleases) {
      const install = hr.install?.ok ? hr.install : undefined;
      const installs = install ? installGroups(hr, '').flatMap((g) => g.objects.map((o) => fluxId(o.kind, o.metadata.namespace, o.metadata.name))) : null;
      const chart = install ? { ...install.chart, kubeVersion: install.kubeVersion.version } : null;
      out.helmReleases.push({ ...entry(root, hr.applied), installs, chart });
    }
    const roots = sourceRootsOf(cluster);
    for (const src of cluster.sources) {
      const r = roots.get(src.applied.object.id);
      out.sources.push({ ...entry(root, src.applied), root: r ? (r.root ? `./${r.root}` : '.') : null, rootOrigin: r?.origin ?? null });
    }
  }
  out.unapplied = model.unapplied.map((o) => unappliedEntry(root, o));
  return out;
}

/** `flux tree`-style text: every object each Kustomization applies, nested; names as terminal text. */
export function treeText(model: RepoModel): string {
  const lines: string[] = [];
  const label = (a: AppliedObject) => terminalName(`${a.kind}/${a.namespace ? a.namespace + '/' : ''}${a.name}`);
  const walk = (ks: KustomizationNode, prefix: string) => {
    const items = ks.applies;
    items.forEach((a, i) => {
      const last = i === items.length - 1;
      lines.push(`${prefix}${last ? '└── ' : '├── '}${label(a)}`);
      if (a.flux?.kind === 'Kustomization') walk(a.flux, prefix + (last ? '    ' : '│   '));
      if (a.flux?.kind === 'HelmRelease') installs(a.flux, prefix + (last ? '    ' : '│   '));
    });
  };
  // What a rendered HelmRelease installs: its CRDs first, then its objects in helm's install order.
  const installs = (hr: HelmReleaseNode, prefix: string) => {
    const objects = installGroups(hr, '').flatMap((g) => g.objects);
    objects.forEach((o, i) => {
      const ns = o.metadata.namespace;
      lines.push(`${prefix}${i === objects.length - 1 ? '└── ' : '├── '}${terminalName(`${o.kind}/${ns ? ns + '/' : ''}${o.metadata.name}`)}`);
    });
  };
  for (const cluster of model.clusters) {
    lines.push(`Cluster: ${terminalName(cluster.name)}`);
    const before = bootstrapFacts(model, cluster);
    if (before.length) {
      lines.push('Before Flux:');
      for (const f of before) {
        const shown = f.groups.length && !(f.groups.length === 1 && f.groups[0] === f.name);
        const groups = shown ? ` [${f.groups.map(terminalName).join(', ')}]` : f.what === 'manifest' || (f.what === 'chart' && !f.groups.length) ? ' [CRDs unknown]' : '';
        lines.push(`  ${f.what} ${terminalName(f.name)}${groups}  (${f.reader}, ${terminalName(relativePath(model.workspace.root, f.file))}:${f.line})`);
      }
    }
    lines.push(label(cluster.root.applied));
    walk(cluster.root, '');
    lines.push('');
  }
  if (model.unapplied.length) {
    lines.push('Not applied by any Kustomization:');
    for (const o of model.unapplied) {
      lines.push(`  ${terminalName(`${o.kind}/${o.namespace ?? 'default'}/${o.name}`)}  (${terminalName(relativePath(model.workspace.root, o.doc.file.path))}:${docLine(o.doc)})`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

/** Source object id → the workspace folder its artifact was read from in this cluster, and why. */
export function sourceRootsOf(cluster: ClusterModel): Map<string, { root: string; origin: string }> {
  const out = new Map<string, { root: string; origin: string }>();
  for (const ks of cluster.kustomizations) {
    const s = ks.source;
    if (s.kind !== 'view' || !s.object || s.root === undefined || !s.rootOrigin) continue;
    if (!out.has(s.object.id)) out.set(s.object.id, { root: s.root, origin: s.rootOrigin });
  }
  return out;
}

