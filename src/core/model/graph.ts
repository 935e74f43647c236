import type { PathSegment } from '../yaml/document';
import type { Workspace } from '../workspace/workspace';
import { Expander, type ExpandProblem, type Expansion } from './expand';
import { CLUSTER_SCOPED_KINDS, SOURCE_KINDS, type FluxKind } from './kinds';
import { asArray, asRecord, asString, objectsOf, type KubeObject } from './objects';
import { inferBootstrapObjects, isBootstrapSyncFile, isKustomizationFile, patchFiles } from './bootstrap';
import { envsubst } from '../substitution/evaluate';
import type { SourceFile } from '../yaml/document';
import { resolveSource, type SourceResolution, type SourceIndex, buildSourceIndex } from './sources';
import { normalizeVirtual } from './view';

/** A reference to another object (dependsOn entry, sourceRef), with where it is written. */
export interface Reference {
  readonly kind: string;
  readonly name: string;
  /** Defaulted the way Flux defaults it (the referring object's namespace). */
  readonly namespace: string;
  /** YAML path of the reference's mapping inside the referring document. */
  readonly path: PathSegment[];
}

/** An object as a cluster sees it: after kustomize transformers and Flux's targetNamespace. */
export interface AppliedObject {
  readonly object: KubeObject;
  readonly kind: string;
  readonly apiVersion: string;
  readonly name: string;
  /** Undefined for cluster-scoped objects. */
  readonly namespace: string | undefined;
  readonly cluster: ClusterModel;
  /** The Flux Kustomization applying it; undefined only for a cluster's root. */
  readonly appliedBy: KustomizationNode | undefined;
  /** Flux-specific view; set for Flux kinds. */
  flux?: FluxNode;
  /** `objectKey(kind, namespace, name)`, computed once. */
  readonly key: string;
}

interface FluxNodeBase {
  readonly applied: AppliedObject;
}

export interface KustomizationNode extends FluxNodeBase {
  readonly kind: 'Kustomization';
  readonly sourceRef: Reference | undefined;
  readonly source: SourceResolution;
  /** `spec.path` normalised inside the artifact ('' = its root). */
  readonly path: string;
  readonly dependsOn: Reference[];
  readonly targetNamespace: string | undefined;
  /** Everything the Kustomization applies (Flux objects included). */
  readonly applies: AppliedObject[];
  readonly children: KustomizationNode[];
  readonly helmReleases: HelmReleaseNode[];
  readonly sources: SourceNode[];
  /** The Kustomization applies its own definition (the bootstrap pattern). */
  appliesItself: boolean;
  readonly problems: ExpandProblem[];
  readonly remoteResources: string[];
}

export interface HelmReleaseNode extends FluxNodeBase {
  readonly kind: 'HelmRelease';
  /** `spec.chart.spec.sourceRef` or `spec.chartRef`. */
  readonly chartSourceRef: Reference | undefined;
  readonly chartRef: boolean;
  readonly chart: string | undefined;
  readonly dependsOn: Reference[];
  readonly releaseName: string;
  readonly targetNamespace: string;
  readonly storageNamespace: string;
}

export interface SourceNode extends FluxNodeBase {
  readonly kind: Exclude<FluxKind, 'Kustomization' | 'HelmRelease'>;
}

export type FluxNode = KustomizationNode | HelmReleaseNode | SourceNode;

export interface ClusterModel {
  readonly name: string;
  root: KustomizationNode;
  readonly kustomizations: KustomizationNode[];
  readonly helmReleases: HelmReleaseNode[];
  readonly sources: SourceNode[];
  readonly objects: AppliedObject[];
  /** `Kind/namespace/name` (namespace empty for cluster-scoped) → every object with that identity. */
  readonly byKey: Map<string, AppliedObject[]>;
}

export interface RepoModel {
  readonly workspace: Workspace;
  readonly version: number;
  readonly clusters: ClusterModel[];
  /** Flux objects reachable from no cluster root. */
  readonly unapplied: KubeObject[];
  /** Every Kubernetes object in the workspace (outside Helm charts), applied or not. */
  readonly allObjects: KubeObject[];
  /** Files used as kustomize patches: their objects edit others and are never applied alone. */
  readonly patchFiles: Set<string>;
  /** Every place an object document is applied, across clusters. */
  readonly appliedById: Map<string, AppliedObject[]>;
  readonly sourceIndex: SourceIndex;
  readonly isNamespaced: (kind: string, apiVersion?: string) => boolean;
}

export function objectKey(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** Namespace used for namespaced objects nobody gave one, as kubectl and the API do. */
export const DEFAULT_NAMESPACE = 'default';

/** helm-controller's release name: `[targetNamespace-]name`, shortened past 53 characters with a hash suffix. */
export function helmReleaseName(name: string, targetNamespace: string | undefined, releaseName: string | undefined, hash: (s: string) => string): string {
  if (releaseName) return releaseName;
  const full = targetNamespace ? `${targetNamespace}-${name}` : name;
  if (full.length <= 53) return full;
  return `${full.slice(0, 40)}-${hash(full).slice(0, 12)}`;
}

export interface BuildOptions {
  /** URLs of the workspace's Git remotes: a GitRepository with one of them is this workspace. */
  remotes?: readonly string[];
  /** sha256 hex of a string (core has no crypto import; the caller passes node:crypto's). */
  sha256?: (s: string) => string;
}

/** One-shot build; editors keep a ModelBuilder so edits reuse unaffected expansions. */
export function buildModel(ws: Workspace, options: BuildOptions = {}): RepoModel {
  return new ModelBuilder(ws, options).build();
}

/** What one Flux Kustomization document reads: its source, path and the kustomize expansion there. */
interface KsInput {
  readonly object: KubeObject;
  readonly sourceRef: Reference | undefined;
  readonly source: SourceResolution;
  readonly path: string;
  readonly expansion: Expansion | undefined;
}

/** A cluster's graph from the previous build, for reuse. */
interface ClusterState {
  readonly cluster: ClusterModel;
  readonly nodes: Map<string, KustomizationNode>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Builds the model and keeps as much as it can between builds, so an edit costs what it touches:
 * kustomize expansions that did not read the edited file are reused, and so is every Kustomization
 * subtree whose inputs are unchanged (same node objects, so caches keyed on them stay valid).
 * A change in the tree's shape, in the sources, or in cluster-scoped CRD kinds starts afresh.
 * A RepoModel stays valid until the next build: reused clusters are refilled in place.
 */
export class ModelBuilder {
  private expander: Expander | undefined;
  private scopeSignature = '';
  private readonly inputs = new Map<string, KsInput>();
  private readonly inputOf = new WeakMap<KustomizationNode, KsInput>();
  /** Nodes whose subtree depended on which of two applications of one Kustomization came first. */
  private readonly orderDependent = new WeakSet<KustomizationNode>();
  private previous = new Map<string, ClusterState>();
  private previousSources: SourceIndex | undefined;
  private readonly ksIdsIn = new WeakMap<Expansion, string[]>();
  /** Paths worth a look for patches and bootstrap placeholders; the file set changes only on full reloads. */
  private special: string[] | undefined;

  constructor(
    private readonly ws: Workspace,
    private readonly options: BuildOptions = {},
  ) {
    ws.onChange((change) => {
      if (change.kind === 'all') this.reset();
      else this.expander?.invalidate(change.path);
    });
  }

  private reset(): void {
    this.special = undefined;
    this.expander = undefined;
    this.inputs.clear();
    this.previous = new Map();
  }

  build(): RepoModel {
    const ws = this.ws;
    this.special ??= [...ws.files.keys()].filter((p) => isKustomizationFile(p) || isBootstrapSyncFile(p));
    const specialFiles = this.special.map((p) => ws.files.get(p)).filter((f): f is SourceFile => !!f);
    const inferred = inferBootstrapObjects(ws, specialFiles);
    const objectsFor = (file: SourceFile) => inferred.get(file.path) ?? objectsOf(file);
    const patches = patchFiles(specialFiles);
    const allObjects: KubeObject[] = [];
    for (const file of ws.files.values()) {
      if (ws.chartDirOf(file.path)) continue;
      for (const o of objectsFor(file)) allObjects.push(o);
    }
    const clusterScoped = new Set(CLUSTER_SCOPED_KINDS);
    const namespacedCrdKinds = new Set<string>();
    for (const o of allObjects) {
      if (o.kind !== 'CustomResourceDefinition') continue;
      const spec = asRecord(o.body.spec);
      const kind = asString(asRecord(spec?.names)?.kind);
      if (!kind) continue;
      if (spec?.scope === 'Cluster') clusterScoped.add(kind);
      else namespacedCrdKinds.add(kind);
    }
    const isNamespacedKind = (kind: string) => !clusterScoped.has(kind) || namespacedCrdKinds.has(kind);
    const scopeSignature = [...clusterScoped].sort().join(',') + '|' + [...namespacedCrdKinds].sort().join(',') + '|' + [...inferred.keys()].join(',');
    if (!this.expander || scopeSignature !== this.scopeSignature) {
      this.reset();
      this.expander = new Expander(ws, (o) => isNamespacedKind(o.kind), objectsFor);
      this.scopeSignature = scopeSignature;
    }
    const expander = this.expander;
    const sourceIndex = buildSourceIndex(allObjects);
    if (!this.previousSources || !sameSources(this.previousSources, sourceIndex)) {
      this.inputs.clear();
      this.previous = new Map();
    }
    this.previousSources = sourceIndex;
    const sha = this.options.sha256 ?? ((s: string) => s);
    const sourceOptions = { remotes: this.options.remotes ?? [] };

    const readInput = (ks: KubeObject, namespace: string): KsInput => {
      const key = `${ks.id}|${namespace}`;
      const cached = this.inputs.get(key);
      if (cached && cached.object === ks && (!cached.expansion || expander.isLive(cached.expansion))) return cached;
      const spec = asRecord(ks.body.spec) ?? {};
      const ref = asRecord(spec.sourceRef);
      const sourceRef: Reference | undefined = ref
        ? {
            kind: asString(ref.kind) ?? 'GitRepository',
            name: asString(ref.name) ?? '',
            namespace: asString(ref.namespace) || namespace,
            path: ['spec', 'sourceRef'],
          }
        : undefined;
      const source = resolveSource(ws, sourceIndex, sourceRef, sourceOptions, ks.doc.file.path);
      const path = normalizeVirtual(asString(spec.path) ?? '') ?? '';
      const components = asArray(spec.components).filter((c): c is string => typeof c === 'string');
      const expansion = source.kind === 'view' && source.view.hasDir(path) ? expander.expandFluxPath(source.view, path, components) : undefined;
      const input: KsInput = { object: ks, sourceRef, source, path, expansion };
      this.inputs.set(key, input);
      return input;
    };

    const ksIdsIn = (expansion: Expansion | undefined): string[] => {
      if (!expansion) return [];
      let ids = this.ksIdsIn.get(expansion);
      if (!ids) {
        ids = expansion.objects.filter((e) => e.object.fluxKind === 'Kustomization').map((e) => e.object.id);
        this.ksIdsIn.set(expansion, ids);
      }
      return ids;
    };

    const currentById = new Map<string, KubeObject>();
    for (const o of allObjects) currentById.set(o.id, o);

    // Roots are the Kustomizations nothing else applies (a bootstrap Kustomization applying itself counts).
    const ksObjects = allObjects.filter((o) => o.fluxKind === 'Kustomization');
    const appliedByOther = new Set<string>();
    const selfApplying = new Set<string>();
    for (const ks of ksObjects) {
      for (const id of ksIdsIn(readInput(ks, ks.namespace ?? DEFAULT_NAMESPACE).expansion)) {
        if (id === ks.id) selfApplying.add(ks.id);
        else appliedByOther.add(id);
      }
    }

    const clusters: ClusterModel[] = [];
    const current = new Map<string, ClusterState>();
    const appliedById = new Map<string, AppliedObject[]>();
    const roots = ksObjects.filter((o) => !appliedByOther.has(o.id) && !patches.has(o.file));
    const usedNames = new Set<string>();
    for (const rootObject of roots) {
      const rootSpec = asRecord(rootObject.body.spec) ?? {};
      const rootPath = normalizeVirtual(asString(rootSpec.path) ?? '') ?? '';
      let name = selfApplying.has(rootObject.id) && rootPath ? rootPath.split('/').pop()! : rootObject.name;
      if (usedNames.has(name)) name = `${name} (${rootObject.doc.file.path.slice(ws.root.length + 1)})`;
      usedNames.add(name);
      const previous = this.previous.get(name);
      const cluster: Mutable<ClusterModel> = previous?.cluster ?? {
        name,
        root: undefined as unknown as KustomizationNode,
        kustomizations: [],
        helmReleases: [],
        sources: [],
        objects: [],
        byKey: new Map(),
      };
      cluster.kustomizations.length = 0;
      cluster.helmReleases.length = 0;
      cluster.sources.length = 0;
      cluster.objects.length = 0;
      cluster.byKey.clear();
      const nodes = new Map<string, KustomizationNode>();
      current.set(name, { cluster, nodes });
      const nodeKey = (a: AppliedObject) => `${a.object.id}|${a.key}`;

      const addApplied = (applied: AppliedObject) => {
        cluster.objects.push(applied);
        const key = applied.key;
        const list = cluster.byKey.get(key);
        if (list) list.push(applied);
        else cluster.byKey.set(key, [applied]);
        const byId = appliedById.get(applied.object.id);
        if (byId) byId.push(applied);
        else appliedById.set(applied.object.id, [applied]);
      };

      /** An old subtree can stand as it is when every Kustomization in it reads the same inputs. */
      const reusable = (old: KustomizationNode): boolean => {
        if (this.orderDependent.has(old) || nodes.has(nodeKey(old.applied))) return false;
        if (currentById.get(old.applied.object.id) !== old.applied.object) return false;
        const input = this.inputOf.get(old);
        if (!input || input !== readInput(old.applied.object, old.applied.namespace ?? DEFAULT_NAMESPACE)) return false;
        return old.children.every(reusable);
      };

      /** Puts a reused subtree's nodes and objects into this build's indexes, in visiting order. */
      const adopt = (node: KustomizationNode) => {
        cluster.kustomizations.push(node);
        nodes.set(nodeKey(node.applied), node);
        for (const a of node.applies) {
          addApplied(a);
          if (a.flux?.kind === 'Kustomization') adopt(a.flux);
          else if (a.flux?.kind === 'HelmRelease') cluster.helmReleases.push(a.flux);
          else if (a.flux) cluster.sources.push(a.flux);
        }
      };

      const visitKs = (applied: AppliedObject): KustomizationNode => {
        const ks = applied.object;
        const ns = applied.namespace ?? DEFAULT_NAMESPACE;
        const spec = asRecord(ks.body.spec) ?? {};
        const input = readInput(ks, ns);
        const targetNamespace = asString(spec.targetNamespace) || undefined;
        const node: KustomizationNode = {
          kind: 'Kustomization',
          applied,
          sourceRef: input.sourceRef,
          source: input.source,
          path: input.path,
          dependsOn: dependsOnOf(ks, ns),
          targetNamespace,
          applies: [],
          children: [],
          helmReleases: [],
          sources: [],
          appliesItself: false,
          problems: input.expansion?.problems ?? [],
          remoteResources: input.expansion?.remote ?? [],
        };
        applied.flux = node;
        this.inputOf.set(node, input);
        cluster.kustomizations.push(node);
        nodes.set(nodeKey(applied), node);
        const vars = inlineSubstitutions(spec);
        for (const e of input.expansion?.objects ?? []) {
          const namespaced = isNamespacedKind(e.object.kind);
          const namespace = !namespaced
            ? undefined
            : substituteInline(targetNamespace ?? e.namespace ?? e.object.namespace ?? DEFAULT_NAMESPACE, vars);
          const name = substituteInline(e.renamedTo ?? e.prefix + e.object.name + e.suffix, vars);
          const childApplied: AppliedObject = {
            object: e.object,
            kind: e.object.kind,
            apiVersion: e.object.apiVersion,
            name,
            namespace,
            cluster,
            appliedBy: node,
            key: objectKey(e.object.kind, namespace, name),
          };
          if (e.object.fluxKind === 'Kustomization') {
            const key = nodeKey(childApplied);
            const seen = nodes.get(key);
            if (seen) {
              if (seen === node) node.appliesItself = true;
              else this.orderDependent.add(node);
              continue;
            }
            const old = previous?.nodes.get(key);
            if (old && reusable(old)) {
              (old.applied as Mutable<AppliedObject>).appliedBy = node;
              node.applies.push(old.applied);
              addApplied(old.applied);
              node.children.push(old);
              adopt(old);
              continue;
            }
          }
          node.applies.push(childApplied);
          addApplied(childApplied);
          switch (e.object.fluxKind) {
            case 'Kustomization':
              node.children.push(visitKs(childApplied));
              break;
            case 'HelmRelease': {
              const hr = helmReleaseNode(childApplied, sha);
              node.helmReleases.push(hr);
              cluster.helmReleases.push(hr);
              break;
            }
            case undefined:
            case 'ArtifactGenerator':
              break;
            default: {
              const src: SourceNode = { kind: e.object.fluxKind as SourceNode['kind'], applied: childApplied };
              childApplied.flux = src;
              node.sources.push(src);
              cluster.sources.push(src);
            }
          }
        }
        return node;
      };

      const rootNamespace = rootObject.namespace ?? DEFAULT_NAMESPACE;
      const rootApplied: AppliedObject = {
        object: rootObject,
        kind: rootObject.kind,
        apiVersion: rootObject.apiVersion,
        name: rootObject.name,
        namespace: rootNamespace,
        cluster,
        appliedBy: undefined,
        key: objectKey(rootObject.kind, rootNamespace, rootObject.name),
      };
      const oldRoot = previous?.nodes.get(nodeKey(rootApplied));
      if (oldRoot && reusable(oldRoot)) {
        addApplied(oldRoot.applied);
        adopt(oldRoot);
        cluster.root = oldRoot;
      } else {
        addApplied(rootApplied);
        cluster.root = visitKs(rootApplied);
      }
      clusters.push(cluster);
    }
    this.previous = current;

    const isUnapplied = (o: KubeObject) => !appliedById.has(o.id) && !patches.has(o.file);
    const unapplied = allObjects.filter((o) => o.fluxKind && o.fluxKind !== 'ArtifactGenerator' && isUnapplied(o));
    const unappliedGenerators = allObjects.filter((o) => o.fluxKind === 'ArtifactGenerator' && isUnapplied(o));
    return {
      workspace: ws,
      version: ws.version,
      clusters,
      unapplied: [...unapplied, ...unappliedGenerators],
      allObjects,
      patchFiles: patches,
      appliedById,
      sourceIndex,
      isNamespaced: (kind) => isNamespacedKind(kind),
    };
  }
}

/** Same source objects (by identity) under the same keys: source resolutions still hold. */
function sameSources(a: SourceIndex, b: SourceIndex): boolean {
  if (a.size !== b.size) return false;
  for (const [key, list] of b) {
    const other = a.get(key);
    if (!other || other.length !== list.length || other.some((o, i) => o !== list[i])) return false;
  }
  return true;
}

/** `postBuild.substitute` values; substituteFrom needs ConfigMap lookups and is the checks' business. */
function inlineSubstitutions(spec: Record<string, any>): Record<string, unknown> | undefined {
  const postBuild = asRecord(spec.postBuild);
  return asRecord(postBuild?.substitute);
}

/**
 * Flux substitutes variables after the kustomize build, so an object named `${APP}` is applied
 * under the value. Only inline values are known here; a name that needs a variable from
 * `substituteFrom` keeps its `${…}` form rather than being guessed.
 */
function substituteInline(text: string, vars: Record<string, unknown> | undefined): string {
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

function dependsOnOf(obj: KubeObject, namespace: string): Reference[] {
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

function helmReleaseNode(applied: AppliedObject, sha: (s: string) => string): HelmReleaseNode {
  const obj = applied.object;
  const ns = applied.namespace ?? DEFAULT_NAMESPACE;
  const spec = asRecord(obj.body.spec) ?? {};
  const chartSpec = asRecord(asRecord(spec.chart)?.spec);
  const chartRef = asRecord(spec.chartRef);
  let chartSourceRef: Reference | undefined;
  if (chartRef) {
    chartSourceRef = {
      kind: asString(chartRef.kind) ?? 'OCIRepository',
      name: asString(chartRef.name) ?? '',
      namespace: asString(chartRef.namespace) || ns,
      path: ['spec', 'chartRef'],
    };
  } else if (chartSpec) {
    const ref = asRecord(chartSpec.sourceRef);
    if (ref)
      chartSourceRef = {
        kind: asString(ref.kind) ?? 'HelmRepository',
        name: asString(ref.name) ?? '',
        namespace: asString(ref.namespace) || ns,
        path: ['spec', 'chart', 'spec', 'sourceRef'],
      };
  }
  const targetNamespace = asString(spec.targetNamespace) || undefined;
  const node: HelmReleaseNode = {
    kind: 'HelmRelease',
    applied,
    chartSourceRef,
    chartRef: !!chartRef,
    chart: asString(chartSpec?.chart),
    dependsOn: dependsOnOf(obj, ns),
    releaseName: helmReleaseName(applied.name, targetNamespace, asString(spec.releaseName) || undefined, sha),
    targetNamespace: targetNamespace ?? ns,
    storageNamespace: asString(spec.storageNamespace) || ns,
  };
  applied.flux = node;
  return node;
}

export { SOURCE_KINDS };
