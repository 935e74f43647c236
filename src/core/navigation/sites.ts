import { posix } from 'node:path';
import { DEFAULT_NAMESPACE, objectKey, type ClusterModel, type HelmReleaseNode, type KustomizationNode, type Reference, type RepoModel } from '../model/graph';
import { asArray, asRecord, asString, kustomizeConfigOf, type KubeObject } from '../model/objects';
import { closest, findSource, resolveSource, type SourceResolution } from '../model/sources';
import { joinVirtual, kustomizationFileInView, normalizeVirtual, type SourceView } from '../model/view';
import { isRemoteResource } from '../model/expand';
import { chartSourceRefOf, sourceRefOf } from '../model/nodes';
import { isManifestFileName } from '../workspace/scanned';
import type { PathSegment, SourceFile, YamlDoc } from '../yaml/document';
import type { Range } from '../yaml/lines';
import { exactRange, fileTarget, objectTarget, objectsByFile, type NavTarget } from './locate';

export type SiteKind =
  | 'path'
  | 'sourceRef'
  | 'chartSourceRef'
  | 'chart'
  | 'dependsOn'
  | 'valuesFrom'
  | 'substituteFrom'
  | 'component'
  | 'kustomizeFile';

/** A value in a YAML file that names something else: a folder, a file, an object. */
export interface ReferenceSite {
  readonly kind: SiteKind;
  /** File holding the site. */
  readonly file: string;
  /** The scalar naming the target (what a document link underlines). */
  readonly range: Range;
  /** The whole entry (e.g. the `sourceRef` mapping); Go to Definition works anywhere inside it. */
  readonly extent: Range;
  /** Resolved targets, best first; empty when nothing in the workspace matches. */
  readonly targets: NavTarget[];
  /** Object whose document holds the site (undefined in kustomization files). */
  readonly from: KubeObject | undefined;
  /** Short description for link tooltips, e.g. `Kustomization flux-system/infra-configs`. */
  readonly label: string;
}

const sitesCache = new WeakMap<RepoModel, Map<string, ReferenceSite[]>>();

/** Every reference site of a file, resolved against the model; cached per model build. */
export function referenceSites(model: RepoModel, file: SourceFile): ReferenceSite[] {
  let perFile = sitesCache.get(model);
  if (!perFile) sitesCache.set(model, (perFile = new Map()));
  const cached = perFile.get(file.path);
  if (cached && model.workspace.files.get(file.path) === file) return cached;
  const sites: ReferenceSite[] = [];
  const ctx = new Resolver(model);
  for (const o of objectsByFile(model).get(file.path) ?? []) {
    if (o.synthetic) continue;
    if (o.fluxKind === 'Kustomization') ctx.kustomizationSites(o, sites);
    else if (o.fluxKind === 'HelmRelease') ctx.helmReleaseSites(o, sites);
  }
  const kdoc = kustomizeConfigOf(file);
  if (kdoc) ctx.kustomizeFileSites(kdoc, sites);
  perFile.set(file.path, sites);
  return sites;
}

const dedupe = (targets: NavTarget[]): NavTarget[] => {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const k = `${t.file}:${t.range.start.line}:${t.range.start.character}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

class Resolver {
  private readonly ws;
  constructor(private readonly model: RepoModel) {
    this.ws = model.workspace;
  }

  private site(kind: SiteKind, doc: YamlDoc, entry: PathSegment[], value: PathSegment[], targets: NavTarget[], from: KubeObject | undefined, label: string): ReferenceSite | undefined {
    const range = exactRange(doc, value);
    if (!range) return undefined;
    return { kind, file: doc.file.path, range, extent: exactRange(doc, entry) ?? range, targets: dedupe(targets), from, label };
  }

  private push(out: ReferenceSite[], site: ReferenceSite | undefined): void {
    if (site) out.push(site);
  }

  /** The Flux nodes built for a document (one per cluster applying it). */
  private nodesOf<K extends 'Kustomization' | 'HelmRelease'>(o: KubeObject, kind: K): (K extends 'Kustomization' ? KustomizationNode : HelmReleaseNode)[] {
    const out: any[] = [];
    for (const a of this.model.appliedById.get(o.id) ?? []) if (a.flux?.kind === kind) out.push(a.flux);
    return out;
  }

  /** Objects with an identity, in one cluster, or anywhere in the workspace for unapplied referrers. */
  private lookup(cluster: ClusterModel | undefined, kind: string, namespace: string, name: string): NavTarget[] {
    if (cluster) {
      const hits = cluster.byKey.get(objectKey(kind, namespace, name)) ?? [];
      if (hits.length) return hits.map((a) => objectTarget(a.object));
    }
    const exact = this.model.allObjects.filter((o) => o.kind === kind && o.name === name && o.namespace === namespace);
    if (exact.length) return exact.map(objectTarget);
    return this.model.allObjects.filter((o) => o.kind === kind && o.name === name && o.namespace === undefined).map(objectTarget);
  }

  private sourceTarget(resolution: SourceResolution | undefined, ref: Reference, cluster: ClusterModel | undefined, near: string): NavTarget[] {
    if (cluster) {
      const inCluster = cluster.byKey.get(objectKey(ref.kind, ref.namespace, ref.name));
      if (inCluster?.length) return inCluster.map((a) => objectTarget(a.object));
    }
    // ExternalArtifacts made by an ArtifactGenerator only exist through the source resolution.
    const resolved = resolution ?? (ref.kind === 'ExternalArtifact' ? resolveSource(this.ws, this.model.sourceIndex, ref, { remotes: [] }, near) : undefined);
    const object = resolved && resolved.kind !== 'missing' && resolved.kind !== 'none' ? resolved.object : findSource(this.model.sourceIndex, ref.kind, ref.name, ref.namespace, near);
    if (!object) return [];
    if (object.fluxKind === 'ArtifactGenerator') {
      // Land on the generator's artifact entry that produces the referenced ExternalArtifact.
      const index = asArray(asRecord(object.body.spec)?.artifacts).findIndex((a) => asString(asRecord(a)?.name) === ref.name);
      const range = index >= 0 ? exactRange(object.doc, ['spec', 'artifacts', index, 'name']) : undefined;
      if (range) return [{ file: object.doc.file.path, range, objectId: object.id }];
    }
    return [objectTarget(object)];
  }

  /** A ConfigMap/Secret by name, or the kustomize generator that makes it. */
  private configTargets(cluster: ClusterModel | undefined, kind: string, namespace: string, name: string, near: string): NavTarget[] {
    const objects = this.lookup(cluster, kind, namespace, name);
    if (objects.length) return objects;
    const generators = this.generatorIndex().get(`${kind}/${name}`) ?? [];
    const best = closest(generators.map((g) => ({ ...g, doc: { file: { path: g.target.file } } })), near);
    return best ? [best.target, ...generators.filter((g) => g !== best).map((g) => g.target)] : [];
  }

  private generatorIndex(): Map<string, { target: NavTarget }[]> {
    let index = generatorCache.get(this.model);
    if (index) return index;
    index = new Map();
    for (const file of this.ws.files.values()) {
      const kdoc = kustomizeConfigOf(file);
      const body = asRecord(kdoc?.value);
      if (!kdoc || !body) continue;
      for (const [field, kind] of [
        ['configMapGenerator', 'ConfigMap'],
        ['secretGenerator', 'Secret'],
      ] as const) {
        asArray(body[field]).forEach((g, i) => {
          const name = asString(asRecord(g)?.name);
          const range = name ? exactRange(kdoc, [field, i, 'name']) : undefined;
          if (!name || !range) return;
          const list = index!.get(`${kind}/${name}`) ?? [];
          list.push({ target: { file: file.path, range } });
          index!.set(`${kind}/${name}`, list);
        });
      }
    }
    generatorCache.set(this.model, index);
    return index;
  }

  /** `spec.path` (and components) of a Kustomization: the kustomization file, else the manifests Flux would generate from. */
  private folderTargets(view: SourceView | undefined, vdir: string | undefined): NavTarget[] {
    if (!view || vdir === undefined) return [];
    const kfile = kustomizationFileInView(view, vdir);
    if (kfile) return [fileTarget(kfile)];
    const listing = view.listDir(vdir);
    const real = view.realDir(vdir);
    if (!listing || !real) return [];
    return [...listing.files.entries()]
      .filter(([name]) => isManifestFileName(name))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, path]) => ({ ...fileTarget(path), folder: real }));
  }

  kustomizationSites(o: KubeObject, out: ReferenceSite[]): void {
    const doc = o.doc;
    const spec = asRecord(o.body.spec) ?? {};
    const nodes = this.nodesOf(o, 'Kustomization');
    const ns = o.namespace ?? DEFAULT_NAMESPACE;
    const near = doc.file.path;
    // An unapplied Kustomization is resolved as if applied in its written namespace.
    const refOf = () => sourceRefOf(spec, ns);
    const unappliedResolution = nodes.length ? undefined : resolveSource(this.ws, this.model.sourceIndex, refOf(), { remotes: [] }, near);
    const views: { view: SourceView | undefined; path: string }[] = nodes.length
      ? nodes.map((n) => ({ view: n.source.kind === 'view' ? n.source.view : undefined, path: n.path }))
      : [{ view: unappliedResolution?.kind === 'view' ? unappliedResolution.view : undefined, path: normalizeVirtual(asString(spec.path) ?? '') ?? '' }];

    if (typeof spec.path === 'string') {
      const targets = views.flatMap((v) => this.folderTargets(v.view, v.path));
      this.push(out, this.site('path', doc, ['spec', 'path'], ['spec', 'path'], targets, o, `path ./${views[0]?.path ?? ''}`));
    }
    const ref = nodes[0]?.sourceRef ?? refOf();
    if (ref && asRecord(spec.sourceRef)?.name !== undefined) {
      const targets = nodes.length
        ? nodes.flatMap((n) => (n.sourceRef ? this.sourceTarget(n.source, n.sourceRef, n.applied.cluster, near) : []))
        : this.sourceTarget(unappliedResolution, ref, undefined, near);
      this.push(out, this.site('sourceRef', doc, ['spec', 'sourceRef'], ['spec', 'sourceRef', 'name'], targets, o, `${ref.kind} ${ref.namespace}/${ref.name}`));
    }
    asArray(spec.components).forEach((c, i) => {
      if (typeof c !== 'string') return;
      const targets = views.flatMap((v) => this.folderTargets(v.view, joinVirtual(v.path, c)));
      this.push(out, this.site('component', doc, ['spec', 'components', i], ['spec', 'components', i], targets, o, `component ${c}`));
    });
    this.dependsOnSites(o, nodes.length ? nodes.map((n) => ({ cluster: n.applied.cluster, refs: n.dependsOn })) : [], ns, out);
    asArray(asRecord(spec.postBuild)?.substituteFrom).forEach((entry, i) => {
      const e = asRecord(entry);
      const name = asString(e?.name);
      if (!e || !name) return;
      const kind = asString(e.kind) ?? 'ConfigMap';
      const targets = nodes.length
        ? nodes.flatMap((n) => this.configTargets(n.applied.cluster, kind, n.applied.namespace ?? ns, name, near))
        : this.configTargets(undefined, kind, ns, name, near);
      const path = ['spec', 'postBuild', 'substituteFrom', i];
      this.push(out, this.site('substituteFrom', doc, path, [...path, 'name'], targets, o, `${kind} ${name}`));
    });
  }

  private dependsOnSites(o: KubeObject, applied: { cluster: ClusterModel; refs: Reference[] }[], ns: string, out: ReferenceSite[]): void {
    const spec = asRecord(o.body.spec) ?? {};
    asArray(spec.dependsOn).forEach((entry, i) => {
      const e = asRecord(entry);
      const name = asString(e?.name);
      if (!e || !name) return;
      const namespace = asString(e.namespace) || ns;
      const targets = applied.length
        ? applied.flatMap(({ cluster, refs }) => {
            const ref = refs.find((r) => r.path[2] === i);
            return ref ? this.lookup(cluster, o.kind, ref.namespace, ref.name) : [];
          })
        : this.lookup(undefined, o.kind, namespace, name);
      const path = ['spec', 'dependsOn', i];
      const label = `${o.kind} ${applied[0]?.refs.find((r) => r.path[2] === i)?.namespace ?? namespace}/${name}`;
      this.push(out, this.site('dependsOn', o.doc, path, [...path, 'name'], targets, o, label));
    });
  }

  helmReleaseSites(o: KubeObject, out: ReferenceSite[]): void {
    const doc = o.doc;
    const spec = asRecord(o.body.spec) ?? {};
    const nodes = this.nodesOf(o, 'HelmRelease');
    const ns = o.namespace ?? DEFAULT_NAMESPACE;
    const near = doc.file.path;
    const written = () => chartSourceRefOf(spec, ns);
    const refs = nodes.length ? nodes.map((n) => ({ ref: n.chartSourceRef, cluster: n.applied.cluster as ClusterModel | undefined })) : [{ ref: written(), cluster: undefined }];
    const first = refs.find((r) => r.ref)?.ref;
    if (first) {
      const targets = refs.flatMap(({ ref, cluster }) => (ref ? this.sourceTarget(undefined, ref, cluster, near) : []));
      this.push(out, this.site('chartSourceRef', doc, first.path, [...first.path, 'name'], targets, o, `${first.kind} ${first.namespace}/${first.name}`));
      const chart = asString(asRecord(asRecord(spec.chart)?.spec)?.chart);
      if (chart && (first.kind === 'GitRepository' || first.kind === 'Bucket')) {
        const resolution = resolveSource(this.ws, this.model.sourceIndex, first, { remotes: [] }, near);
        const vchart = normalizeVirtual(chart);
        const chartFile = resolution.kind === 'view' && vchart !== undefined ? resolution.view.file(vchart ? `${vchart}/Chart.yaml` : 'Chart.yaml') : undefined;
        const path = ['spec', 'chart', 'spec', 'chart'];
        this.push(out, this.site('chart', doc, path, path, chartFile ? [fileTarget(chartFile)] : [], o, `chart ${chart}`));
      }
    }
    this.dependsOnSites(o, nodes.map((n) => ({ cluster: n.applied.cluster, refs: n.dependsOn })), ns, out);
    asArray(spec.valuesFrom).forEach((entry, i) => {
      const e = asRecord(entry);
      const name = asString(e?.name);
      if (!e || !name) return;
      const kind = asString(e.kind) ?? 'ConfigMap';
      const targets = nodes.length
        ? nodes.flatMap((n) => this.configTargets(n.applied.cluster, kind, n.applied.namespace ?? ns, name, near))
        : this.configTargets(undefined, kind, ns, name, near);
      const path = ['spec', 'valuesFrom', i];
      this.push(out, this.site('valuesFrom', doc, path, [...path, 'name'], targets, o, `${kind} ${name}`));
    });
  }

  /** Relative paths in a kustomization file, resolved from its folder on disk. */
  kustomizeFileSites(kdoc: YamlDoc, out: ReferenceSite[]): void {
    const body = asRecord(kdoc.value);
    if (!body) return;
    const dir = kdoc.file.path.slice(0, kdoc.file.path.lastIndexOf('/'));
    const add = (path: PathSegment[], value: unknown, stripKey = false) => {
      if (typeof value !== 'string' || value.includes('\n') || isRemoteResource(value)) return;
      const rel = stripKey && value.includes('=') ? value.slice(value.indexOf('=') + 1) : value;
      const targets = this.localTargets(posix.normalize(posix.join(dir, rel)));
      this.push(out, this.site('kustomizeFile', kdoc, path, path, targets, undefined, rel));
    };
    for (const field of ['resources', 'bases', 'components', 'patchesStrategicMerge', 'crds', 'configurations']) {
      asArray(body[field]).forEach((v, i) => add([field, i], v));
    }
    for (const field of ['patches', 'patchesJson6902']) {
      asArray(body[field]).forEach((p, i) => add([field, i, 'path'], asRecord(p)?.path));
    }
    for (const field of ['configMapGenerator', 'secretGenerator']) {
      asArray(body[field]).forEach((g, i) => {
        const gen = asRecord(g);
        asArray(gen?.files).forEach((f, j) => add([field, i, 'files', j], f, true));
        asArray(gen?.envs).forEach((f, j) => add([field, i, 'envs', j], f));
        add([field, i, 'env'], gen?.env);
      });
    }
  }

  private localTargets(path: string): NavTarget[] {
    if (this.ws.hasFile(path)) return [fileTarget(path)];
    if (!this.ws.hasDir(path)) return [];
    const kfile = this.ws.kustomizationFileIn(path);
    if (kfile) return [fileTarget(kfile)];
    return [...(this.ws.listDir(path)?.files ?? [])]
      .filter(isManifestFileName)
      .sort()
      .map((name) => ({ ...fileTarget(`${path}/${name}`), folder: path }));
  }
}

const generatorCache = new WeakMap<RepoModel, Map<string, { target: NavTarget }[]>>();
