import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { inferBootstrapObjects, isBootstrapSyncFile, isKustomizationFile, patchFiles } from './bootstrap';
import { Expander, type Expansion } from './expand';
import { CLUSTER_SCOPED_KINDS } from './kinds';
import { dependsOnOf, helmReleaseNode, inlineSubstitutions, sourceRefOf, substituteInline } from './nodes';
import { asArray, asRecord, asString, objectsOf, type KubeObject } from './objects';
import { buildSourceIndex, resolveSource, type SourceIndex, type SourceResolution } from './sources';
import {
  DEFAULT_NAMESPACE,
  objectKey,
  type AppliedObject,
  type BuildOptions,
  type ClusterModel,
  type KustomizationNode,
  type Reference,
  type RepoModel,
  type SourceNode,
} from './types';
import { normalizeVirtual } from './view';
import { stronglyConnected } from './scc';
import type { ModelProblem } from './types';

/**
 * Flux Kustomizations applying one another are followed this deep: real fleets nest a handful of
 * levels, and every walk over the tree (checks, tree views) recurses along this chain.
 */
export const MAX_KUSTOMIZATION_NESTING = 100;

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
    const computedBefore = expander.computed;
    const problems: ModelProblem[] = [];
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
      const sourceRef = sourceRefOf(spec, namespace);
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
    const appliesKs = new Map<string, string[]>();
    for (const ks of ksObjects) {
      const others: string[] = [];
      for (const id of ksIdsIn(readInput(ks, ks.namespace ?? DEFAULT_NAMESPACE).expansion)) {
        if (id === ks.id) selfApplying.add(ks.id);
        else {
          appliedByOther.add(id);
          others.push(id);
        }
      }
      appliesKs.set(ks.id, others);
    }

    const clusters: ClusterModel[] = [];
    const current = new Map<string, ClusterState>();
    const appliedById = new Map<string, AppliedObject[]>();
    const roots = ksObjects.filter((o) => !appliedByOther.has(o.id) && !patches.has(o.file));
    roots.push(...cycleRoots(ksObjects.filter((o) => !patches.has(o.file)), roots, appliesKs, selfApplying, ws.root, problems));
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
      /**
       * An old subtree can stand as it is when every Kustomization in it reads the same inputs
       * (answered once per build: each level asks about the subtrees below it) and none of its
       * nodes has been placed elsewhere in this build already (checked right before adopting).
       */
      const unchangedVerdicts = new Map<KustomizationNode, boolean>();
      const unchanged = (old: KustomizationNode): boolean => {
        let verdict = unchangedVerdicts.get(old);
        if (verdict === undefined) {
          const input = this.inputOf.get(old);
          verdict =
            !this.orderDependent.has(old) &&
            currentById.get(old.applied.object.id) === old.applied.object &&
            !!input &&
            input === readInput(old.applied.object, old.applied.namespace ?? DEFAULT_NAMESPACE) &&
            old.children.every(unchanged);
          unchangedVerdicts.set(old, verdict);
        }
        return verdict;
      };
      const unplaced = (old: KustomizationNode): boolean => !nodes.has(nodeKey(old.applied)) && old.children.every(unplaced);
      const reusable = (old: KustomizationNode): boolean => unchanged(old) && unplaced(old);

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

      const visitKs = (applied: AppliedObject, depth: number): KustomizationNode => {
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
        if (depth >= MAX_KUSTOMIZATION_NESTING) {
          problems.push({
            code: 'analysis-limit',
            message: `Kustomizations apply one another more than ${MAX_KUSTOMIZATION_NESTING} levels deep here; what this one applies is not analysed.`,
            doc: ks.doc,
            path: ['spec', 'path'],
            related: [],
          });
          return node;
        }
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
              node.children.push(visitKs(childApplied, depth + 1));
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
        cluster.root = visitKs(rootApplied, 0);
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
      problems,
      expansionsComputed: expander.computed - computedBefore,
    };
  }
}

/**
 * Kustomizations that apply each other in a cycle (a spec.path such as `./` or `..` that includes
 * the file of the Kustomization applying it) are all "applied by another", so none would be a
 * root and the whole cluster would vanish from the tree and the checks. Each such cycle reached
 * from no root gets one: the member with the narrowest (deepest) spec.path, the one that does
 * not reach above its own place; the members applying it are reported as `apply-cycle`.
 */
function cycleRoots(
  ksObjects: KubeObject[],
  roots: KubeObject[],
  appliesKs: Map<string, string[]>,
  selfApplying: Set<string>,
  root: string,
  problems: ModelProblem[],
): KubeObject[] {
  const reached = new Set(roots.map((r) => r.id));
  const queue = [...reached];
  for (let head = 0; head < queue.length; head++) {
    for (const id of appliesKs.get(queue[head]) ?? []) {
      if (!reached.has(id)) {
        reached.add(id);
        queue.push(id);
      }
    }
  }
  const stranded = new Map(ksObjects.filter((o) => !reached.has(o.id)).map((o) => [o.id, o]));
  if (stranded.size === 0) return [];
  const next = (id: string) => (appliesKs.get(id) ?? []).filter((t) => stranded.has(t));
  const component = stronglyConnected(stranded.keys(), next);
  const entered = new Set<number>();
  for (const id of stranded.keys()) for (const t of next(id)) if (component.get(t) !== component.get(id)) entered.add(component.get(t)!);
  const members = new Map<number, KubeObject[]>();
  for (const [id, c] of component) {
    if (entered.has(c)) continue;
    const list = members.get(c);
    if (list) list.push(stranded.get(id)!);
    else members.set(c, [stranded.get(id)!]);
  }
  const depthOf = (o: KubeObject) => {
    const p = normalizeVirtual(asString(asRecord(o.body.spec)?.path) ?? '') ?? '';
    return p === '' ? 0 : p.split('/').length;
  };
  const chosen: KubeObject[] = [];
  for (const list of members.values()) {
    const [first] = [...list].sort(
      (a, b) => depthOf(b) - depthOf(a) || Number(selfApplying.has(b.id)) - Number(selfApplying.has(a.id)) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0),
    );
    chosen.push(first);
    const label = `${first.namespace ?? DEFAULT_NAMESPACE}/${first.name}`;
    for (const m of list) {
      if (m === first || !(appliesKs.get(m.id) ?? []).includes(first.id)) continue;
      const written = asString(asRecord(m.body.spec)?.path) ?? '';
      const ownDir = m.file.slice(root.length + 1, m.file.lastIndexOf('/'));
      const path = normalizeVirtual(written) ?? '';
      const ancestor = path === '' || ownDir === path || ownDir.startsWith(path + '/');
      problems.push({
        code: 'apply-cycle',
        message:
          `spec.path '${written}' includes Kustomization ${label} (${first.file.slice(root.length + 1)}), which applies this one` +
          `${list.length > 2 ? ` (a cycle of ${list.length} Kustomizations)` : ''}: they apply each other, so neither is the root of a cluster, and Flux would have each reconcile the other.` +
          `${ancestor ? ' The path is the folder of this very file or one above it.' : ''} Point spec.path at a folder holding only what this Kustomization should apply.`,
        doc: m.doc,
        path: ['spec', 'path'],
        related: [{ doc: first.doc, path: ['metadata', 'name'], message: `Kustomization ${label}, treated as the cluster root` }],
      });
    }
  }
  return chosen;
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
