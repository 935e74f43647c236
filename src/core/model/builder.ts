import type { Workspace } from '../workspace/workspace';
import type { SourceFile } from '../yaml/document';
import { inferBootstrapObjects, isBootstrapSyncFile, isKustomizationFile, patchFiles } from './bootstrap';
import { clusterRoots, type Root } from './roots';
import { pushedArtifacts } from '../bootstrap/artifacts';
import { configuredSourceRoots } from './config';
import { Expander, type ExpandedObject, type Expansion, type ExpandProblem } from './expand';
import { workspaceValues } from './chartValues';
import { strictPostBuild } from '../flux/featureGates';
import { fluxInstanceSyncs, isResourceSet, resourceSetObjects, syncObjects, type FluxInstanceSync } from './fluxOperator';
import { resolvedSyncs } from './syncPath';
import { CLUSTER_SCOPED_KINDS } from '../kinds';
import { dependsOnOf, helmReleaseNode, patchedChildSubstitute, postBuildVars, sourceRefOf, substituteInline, substitutionDisabled } from './nodes';
import { asArray, asRecord, asString, objectsOf, type KubeObject } from './objects';
import { buildSourceIndex, closest, resolveSource, workingTreeRef, type SourceIndex, type SourceOptions, type SourceResolution } from './sources';
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
import { buildKey, builtExpansion, substituteFromSignature, type BuildSlot, type KustomizationBuild } from './rendered';
import type { ModelProblem } from './types';
import { outOfFocus } from './focus';

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
  /** Nodes whose objects come or may come from a build: their subtrees are reused only as builtWith allows. */
  private readonly fromBuild = new WeakSet<KustomizationNode>();
  /**
   * Nodes whose objects came from a finished build, with its key and slot: such a subtree is reused
   * while the node's key asks for the very same build (and, for a node its parent's build applies,
   * while that build gives the very same object).
   */
  private readonly builtWith = new WeakMap<KustomizationNode, { key: string; build: KustomizationBuild; slot: BuildSlot }>();
  /** Nodes whose subtree depended on which of two applications of one Kustomization came first. */
  private readonly orderDependent = new WeakSet<KustomizationNode>();
  private previous = new Map<string, ClusterState>();
  private previousSources: SourceIndex | undefined;
  private readonly ksIdsIn = new WeakMap<Expansion, string[]>();
  private readonly keys = new WeakMap<KustomizationNode, { substituteFrom: string; strict: boolean; key: string }>();
  private readonly unparsable = new WeakMap<Expansion, { version: number; value: boolean }>();
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
    // What the Flux Operator creates: the objects of ResourceSets whose inputs are written in the
    // repository, and each FluxInstance's sync source and root Kustomization (a ResourceSet may
    // hold the flux-instance chart's HelmRelease).
    const generatedBy = new Map<string, KubeObject[]>();
    for (const o of allObjects) {
      if (!isResourceSet(o)) continue;
      const generated = resourceSetObjects(o);
      if (generated.length) generatedBy.set(o.id, generated);
    }
    for (const list of generatedBy.values()) allObjects.push(...list);
    const syncs = resolvedSyncs(
      fluxInstanceSyncs(
        allObjects.filter((o) => o.kind === 'FluxInstance' || o.fluxKind === 'HelmRelease'),
        (hr) => workspaceValues(ws, allObjects, hr),
      ),
      allObjects,
      ws,
    );
    const syncOf = new Map<string, FluxInstanceSync>();
    const syncSources = new Map<string, KubeObject>();
    for (const sync of syncs) {
      const [source, ks] = syncObjects(sync);
      syncOf.set(ks.id, sync);
      syncSources.set(ks.id, source);
      allObjects.push(source, ks);
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
    const ksObjects = allObjects.filter((o) => o.fluxKind === 'Kustomization');
    const sourceOptions: SourceOptions = {
      remotes: this.options.remotes ?? [],
      checkout: this.options.checkout,
      sourceRoots: configuredSourceRoots(ws, this.options.sourceRoots),
      pathsBySource: pathsBySource(ksObjects),
      workingRef: workingTreeRef(sourceIndex, { remotes: this.options.remotes ?? [], checkout: this.options.checkout }, ksObjects),
      artifacts: pushedArtifacts(ws),
    };
    const configMaps = new Map<string, KubeObject[]>();
    for (const o of allObjects) {
      if (o.kind !== 'ConfigMap') continue;
      const list = configMaps.get(o.name);
      if (list) list.push(o);
      else configMaps.set(o.name, [o]);
    }
    const lookupConfigMap = (name: string, namespace: string, near: string) =>
      closest((configMaps.get(name) ?? []).filter((o) => o.namespace === namespace || o.namespace === undefined), near);
    const sourcesKey =
      [...sourceOptions.sourceRoots!].join(',') + '|' + JSON.stringify(this.options.checkout ?? {}) + '|' + sourceOptions.artifacts!.map((a) => `${a.repository}:${a.tag ?? ''}=${a.root}`).join(',');

    /** A Kustomization document as its applier's post-build substitution leaves it (path, source, namespace). */
    const readInput = (ks: KubeObject, namespace: string, parentVars?: Record<string, string>): KsInput => {
      const spec = asRecord(ks.body.spec) ?? {};
      const vars = parentVars && !substitutionDisabled(ks) ? parentVars : undefined;
      const rawRef = sourceRefOf(spec, namespace);
      const sourceRef = rawRef && { ...rawRef, name: substituteInline(rawRef.name, vars), namespace: substituteInline(rawRef.namespace, vars) };
      const path = normalizeVirtual(substituteInline(asString(spec.path) ?? '', vars)) ?? '';
      const components = asArray(spec.components).filter((c): c is string => typeof c === 'string');
      const key = `${ks.id}|${namespace}|${path}|${sourceRef ? `${sourceRef.kind}/${sourceRef.namespace}/${sourceRef.name}` : ''}|${sourcesKey}`;
      const cached = this.inputs.get(key);
      if (cached && cached.object === ks && (!cached.expansion || expander.isLive(cached.expansion))) return cached;
      const source = resolveSource(ws, sourceIndex, sourceRef, sourceOptions, ks.doc.file.path);
      const expansion = source.kind === 'view' && source.view.hasDir(path) ? expander.expandFluxPath(source.view, path, components) : undefined;
      const input: KsInput = { object: ks, sourceRef, source, path, expansion };
      this.inputs.set(key, input);
      return input;
    };
    /** The variables a Kustomization substitutes in what it applies, memoised for this build. */
    const varsMemo = new Map<string, Record<string, string> | undefined>();
    const varsOf = (node: KustomizationNode): Record<string, string> | undefined => {
      const parent = node.applied.appliedBy;
      // A Kustomization taken from its parent's build already carries what the parent's patches add.
      const inherited = parent && !node.applied.object.rendered ? patchedChildSubstitute(parent.applied.object, varsOf(parent)) : undefined;
      const key = `${node.applied.object.id}|${node.applied.namespace}|${JSON.stringify(inherited ?? null)}`;
      if (varsMemo.has(key)) return varsMemo.get(key);
      const vars = postBuildVars(node.applied.object, node.applied.namespace ?? DEFAULT_NAMESPACE, lookupConfigMap, inherited);
      varsMemo.set(key, vars);
      return vars;
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

    /** A gotk-sync.yaml Kustomization syncing a folder other than its own that its workspace source does not hold (a template). */
    const unbootstrapped = (ks: KubeObject): boolean => {
      const input = readInput(ks, ks.namespace ?? DEFAULT_NAMESPACE);
      if (input.source.kind !== 'view' || input.source.root === undefined || input.path.includes('${') || input.source.view.hasDir(input.path)) return false;
      const own = ks.file.slice(ws.root.length + 1, ks.file.length - '/flux-system/gotk-sync.yaml'.length);
      return [input.source.root, input.path].filter(Boolean).join('/') !== own;
    };
    const { roots, inferred: folderRoots } = clusterRoots(
      ksObjects,
      patches,
      syncOf,
      ws,
      problems,
      (ks) => ksIdsIn(readInput(ks, ks.namespace ?? DEFAULT_NAMESPACE).expansion),
      unbootstrapped,
      (ks) => readInput(ks, ks.namespace ?? DEFAULT_NAMESPACE).expansion?.objects.map((e) => e.object.id) ?? [],
    );
    allObjects.push(...folderRoots);

    const builds = this.options.builds;
    const slots: BuildSlot[] = [];
    const byKindName = new Map<string, KubeObject[]>();
    if (builds) {
      for (const o of allObjects) {
        if (o.kind !== 'ConfigMap' && o.kind !== 'Secret') continue;
        const list = byKindName.get(`${o.kind}/${o.name}`);
        if (list) list.push(o);
        else byKindName.set(`${o.kind}/${o.name}`, [o]);
      }
    }
    const substituteFromCandidates = (kind: string, name: string) => byKindName.get(`${kind}/${name}`) ?? [];

    const clusters: ClusterModel[] = [];
    const current = new Map<string, ClusterState>();
    const appliedById = new Map<string, AppliedObject[]>();
    const usedNames = new Set<string>();
    const replacedTargetNamespace = new WeakMap<AppliedObject, string>();
    const rootNames = clusterNames(roots, (object) => {
      const source = readInput(object, object.namespace ?? DEFAULT_NAMESPACE).source;
      return source.kind === 'view' ? source.root : undefined;
    });
    for (const [i, { object: rootObject }] of roots.entries()) {
      let name = rootNames[i];
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
            // A built node is reused when its key depends on its own object only: one its parent's
            // build gives (already substituted), or a root.
            (this.fromBuild.has(old)
              ? (old.applied.object.rendered || !old.applied.appliedBy) && this.sameBuild(old, input, builds, substituteFromCandidates, sha)
              : !old.applied.object.rendered) &&
            !this.orderDependent.has(old) &&
            // A built object is its parent's build's: the same while that build is (checked above for
            // the parent, or by the caller for a parent visited anew).
            (old.applied.object.rendered || currentById.get(old.applied.object.id) === old.applied.object) &&
            !!input &&
            input === readInput(old.applied.object, old.applied.namespace ?? DEFAULT_NAMESPACE, old.applied.appliedBy && varsOf(old.applied.appliedBy)) &&
            old.children.every(unchanged);
          unchangedVerdicts.set(old, verdict);
        }
        return verdict;
      };
      const unplaced = (old: KustomizationNode): boolean => !nodes.has(nodeKey(old.applied)) && old.children.every(unplaced);
      const reusable = (old: KustomizationNode): boolean => unchanged(old) && unplaced(old);

      /** Puts a reused subtree's nodes and objects into this build's indexes, in visiting order. */
      const adopt = (node: KustomizationNode) => {
        const built = this.builtWith.get(node);
        if (built) slots.push(built.slot);
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
        const parent = applied.appliedBy;
        // Taken from the parent's build, the spec is already patched and substituted.
        const parentVars = parent && !ks.rendered && !substitutionDisabled(ks) ? varsOf(parent) : undefined;
        const input = withoutApplyCycle(readInput(ks, ns, parentVars), applied);
        const targetNamespace = replacedTargetNamespace.get(applied) ?? (substituteInline(asString(spec.targetNamespace) ?? '', parentVars) || undefined);
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
          files: input.expansion?.files ?? NO_FILES,
          inheritedSubstitute: parent && !ks.rendered ? patchedChildSubstitute(parent.applied.object, varsOf(parent)) : undefined,
        };
        applied.flux = node;
        const expansion = outOfFocus(this.options.focus, node, input.expansion, (o) => generatedBy.has(o.id)) ? undefined : this.buildOf(node, input, builds, slots, substituteFromCandidates, sha, objectsFor);
        this.inputOf.set(node, input);
        cluster.kustomizations.push(node);
        nodes.set(nodeKey(applied), node);
        const vars = varsOf(node);
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
        // The cluster's sync source is created with its root Kustomization (FluxInstance sync).
        const syncSource = !parent ? syncSources.get(ks.id) : undefined;
        const expanded: ExpandedObject[] = syncSource ? [{ object: syncSource, namespace: undefined, prefix: '', suffix: '' }] : [];
        for (const e of expansion?.objects ?? []) {
          expanded.push(e);
          for (const g of generatedBy.get(e.object.id) ?? []) expanded.push({ object: g, namespace: undefined, prefix: '', suffix: '' });
        }
        for (const e of expanded) {
          const namespaced = isNamespacedKind(e.object.kind);
          // A built object has its final namespace and name (Flux's targetNamespace and substitution included).
          const built = e.object.rendered === true;
          const namespace = !namespaced
            ? undefined
            : built
              ? (e.object.namespace ?? DEFAULT_NAMESPACE)
              : substituteInline(targetNamespace ?? e.namespace ?? e.object.namespace ?? DEFAULT_NAMESPACE, vars);
          const name = built ? e.object.name : substituteInline(e.renamedTo ?? e.prefix + e.object.name + e.suffix, vars);
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
          if (e.targetNamespace) replacedTargetNamespace.set(childApplied, e.targetNamespace);
          if (e.object.fluxKind === 'Kustomization') {
            const key = nodeKey(childApplied);
            const seen = nodes.get(key);
            if (seen) {
              if (seen === node) node.appliesItself = true;
              else {
                this.orderDependent.add(node);
                if (isAncestor(seen, node)) (node as Mutable<KustomizationNode>).problems = [...node.problems, applyCycleProblem(node, seen, ws.root)];
              }
              continue;
            }
            const old = previous?.nodes.get(key);
            if (old && old.applied.object === e.object && reusable(old)) {
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

    // The model's own inferences (a bootstrap's GitRepository) are no document to list; objects
    // a ResourceSet generates stand for its template.
    const isUnapplied = (o: KubeObject) => !appliedById.has(o.id) && !patches.has(o.file) && (!o.synthetic || o.origin?.kind === 'ResourceSet');
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
      builds: slots,
    };
  }

  /**
   * A node's build key. What it digests of the node is fixed when the node is made (a reused node
   * keeps its object, path, source and cluster), so only its substituteFrom objects and the
   * repository's strict substitution can move it: an edit's two model builds then digest only the
   * nodes visited anew.
   */
  private keyOf(node: KustomizationNode, candidates: (kind: string, name: string) => readonly KubeObject[], sha: (s: string) => string): string {
    const strict = strictPostBuild(this.ws);
    const substituteFrom = substituteFromSignature(node.applied.object, candidates);
    const memo = this.keys.get(node);
    if (memo?.substituteFrom === substituteFrom && memo.strict === strict) return memo.key;
    const key = buildKey(node, substituteFrom, sha, strict);
    this.keys.set(node, { substituteFrom, strict, key });
    return key;
  }

  /** Whether a file the static reading of an expansion took has a document that does not parse; once per workspace version. */
  private readsUnparsable(expansion: Expansion): boolean {
    const memo = this.unparsable.get(expansion);
    if (memo?.version === this.ws.version) return memo.value;
    const value = readsUnparsable(this.ws, expansion);
    this.unparsable.set(expansion, { version: this.ws.version, value });
    return value;
  }

  /** Whether a node built last time asks for the same build now (same key, the very same build). */
  private sameBuild(
    old: KustomizationNode,
    input: KsInput | undefined,
    builds: BuildOptions['builds'],
    candidates: (kind: string, name: string) => readonly KubeObject[],
    sha: (s: string) => string,
  ): boolean {
    const used = this.builtWith.get(old);
    if (!used || !builds || !input?.expansion || this.readsUnparsable(input.expansion)) return false;
    const key = this.keyOf(old, candidates, sha);
    return key === used.key && builds(key, old) === used.build;
  }

  /**
   * What `node` applies: its build when the engine has it (a failed build falls back to the static
   * reading, with the failure as a problem when Flux would fail the same way), else the static
   * reading, and the node is recorded as pending.
   */
  private buildOf(
    node: KustomizationNode,
    input: KsInput,
    builds: BuildOptions['builds'],
    slots: BuildSlot[],
    candidates: (kind: string, name: string) => readonly KubeObject[],
    sha: (s: string) => string,
    objectsFor: (file: SourceFile) => KubeObject[],
  ): Expansion | undefined {
    if (!builds || input.source.kind !== 'view' || !input.expansion) return input.expansion;
    // A document that does not parse (an alias bomb among them) fails kustomize too, and parsing it
    // there could exhaust the engine: such a Kustomization keeps its static reading and the
    // yaml-syntax finding.
    if (this.readsUnparsable(input.expansion)) return input.expansion;
    // Its objects may come from a build: the subtree is reused only while it asks for the same build (builtWith).
    this.fromBuild.add(node);
    const ks = node.applied.object;
    const key = this.keyOf(node, candidates, sha);
    const build = builds(key, node);
    if (!build) {
      slots.push({ node, key, state: 'pending' });
      return input.expansion;
    }
    if (!build.ok) {
      slots.push({ node, key, state: 'failed' });
      if (build.reportable) {
        (node as Mutable<KustomizationNode>).problems = [...node.problems, { code: build.limit ? 'analysis-limit' : 'build-failed', message: build.message, doc: ks.doc, path: ['spec', 'path'] }];
      }
      return input.expansion;
    }
    const slot: BuildSlot = { node, key, state: build.stale ? 'pending' : 'built' };
    slots.push(slot);
    if (!build.stale) this.builtWith.set(node, { key, build, slot });
    // kustomize built it, so the static reading's complaints about its kustomization files do not hold.
    (node as Mutable<KustomizationNode>).problems = [];
    return builtExpansion(build, this.ws, ks, (file) => {
      const f = this.ws.files.get(file);
      return f ? objectsFor(f) : [];
    });
  }
}

function isAncestor(candidate: KustomizationNode, node: KustomizationNode): boolean {
  for (let a = node.applied.appliedBy; a; a = a.applied.appliedBy) if (a === candidate) return true;
  return false;
}

/**
 * A Kustomization below the root whose spec.path also holds one of the Kustomizations applying it
 * (`./`, `..`): Flux would have both reconcile the same objects, each pruning what the other adds.
 */
function applyCycleProblem(node: KustomizationNode, ancestor: KustomizationNode, root: string): ExpandProblem {
  const written = asString(asRecord(node.applied.object.body.spec)?.path) ?? '';
  const label = `${ancestor.applied.namespace ?? DEFAULT_NAMESPACE}/${ancestor.applied.name}`;
  return {
    code: 'apply-cycle',
    message:
      `spec.path '${written}' includes Kustomization ${label}, which applies this one: point spec.path at a folder of only what this one applies.\n` +
      `${label} is in ${ancestor.applied.object.file.slice(root.length + 1)}; they apply each other, so both reconcile the same objects and prune each other's changes.`,
    doc: node.applied.object.doc,
    path: ['spec', 'path'],
    related: [{ doc: ancestor.applied.object.doc, path: ['metadata', 'name'], message: `Kustomization ${label}, which applies this one` }],
  };
}

const cycleInputs = new WeakMap<KsInput, KsInput>();

/** A source description without its closing ` (…)` remark; by index, as a regex would rescan each ` (`. */
function withoutRemark(description: string): string {
  const open = description.indexOf(' (');
  return open !== -1 && description.endsWith(')') ? description.slice(0, open) : description;
}

/**
 * A Git URL of this workspace taken at another ref can look like the workspace itself; if reading
 * it so makes a Kustomization below a root apply itself or one of its appliers,
 * it is another branch or folder: shown as external, never followed into a cycle.
 */
function withoutApplyCycle(input: KsInput, applied: AppliedObject): KsInput {
  if (input.source.kind !== 'view' || !input.expansion || input.source.rootOrigin === 'bootstrap' || input.source.rootOrigin === 'configured' || !input.source.rootOrigin) return input;
  // A cluster's root applying itself is the bootstrap pattern, whatever its source is named.
  if (!applied.appliedBy) return input;
  const ancestors = new Set<string>();
  for (let a: AppliedObject | undefined = applied; a; a = a.appliedBy?.applied) ancestors.add(a.object.id);
  if (!input.expansion.objects.some((e) => ancestors.has(e.object.id))) return input;
  let external = cycleInputs.get(input);
  if (!external) {
    const description = `${withoutRemark(input.source.description)} (the same URL as this workspace, but reading it as this checkout would make it apply its own Kustomization: another branch or folder)`;
    external = { ...input, source: { kind: 'external', object: input.source.object, description }, expansion: undefined };
    cycleInputs.set(input, external);
  }
  return external;
}

/** `Kind/name` of a Kustomization's sourceRef → the spec.paths read from it, for source-root inference. */
function pathsBySource(kustomizations: readonly KubeObject[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const ks of kustomizations) {
    const spec = asRecord(ks.body.spec);
    const ref = asRecord(spec?.sourceRef);
    const name = asString(ref?.name);
    const path = normalizeVirtual(asString(spec?.path) ?? '');
    if (!name || path === undefined || path.includes('${')) continue;
    const key = `${asString(ref?.kind) ?? 'GitRepository'}/${name}`;
    const list = out.get(key);
    if (list) list.push(path);
    else out.set(key, [path]);
  }
  return out;
}

const NO_FILES: ReadonlySet<string> = new Set();

/** Same source objects (by identity) under the same keys: source resolutions still hold. */
function sameSources(a: SourceIndex, b: SourceIndex): boolean {
  if (a.size !== b.size) return false;
  for (const [key, list] of b) {
    const other = a.get(key);
    if (!other || other.length !== list.length || other.some((o, i) => o !== list[i])) return false;
  }
  return true;
}

/** Whether a file the static reading of an expansion took has a document that does not parse. */
function readsUnparsable(ws: Workspace, expansion: Expansion): boolean {
  for (const path of expansion.files) {
    const file = ws.files.get(path);
    if (file && (file.problems.length || file.docs.some((d) => d.problems.length))) return true;
  }
  return false;
}

/**
 * Each root's cluster name: the last folder of its path (`clusters/production`; for the root of a
 * source read from a workspace folder, that folder), else its name.
 * Roots whose paths end alike (`kubernetes/main/cluster/config`, `kubernetes/staging/cluster/config`)
 * are named by the first folder where their paths differ (`main`, `staging`).
 */
function clusterNames(roots: readonly Root[], sourceRoot: (object: KubeObject) => string | undefined): string[] {
  const paths = roots.map(({ object, pathNamed }) => {
    const path = normalizeVirtual(asString(asRecord(object.body.spec)?.path) ?? '') ?? '';
    const folder = path || (pathNamed ? sourceRoot(object) : undefined);
    return pathNamed && folder ? folder.split('/') : undefined;
  });
  const names = roots.map(({ object, name }, i) => name ?? paths[i]?.[paths[i]!.length - 1] ?? object.name);
  if (roots.every((r) => r.name !== undefined)) return names;
  const byName = new Map<string, number[]>();
  names.forEach((n, i) => byName.set(n, [...(byName.get(n) ?? []), i]));
  for (const group of byName.values()) {
    const split = group.map((i) => paths[i]);
    if (group.length < 2 || split.some((p) => !p)) continue;
    const depth = Math.min(...split.map((p) => p!.length));
    let at = 0;
    while (at < depth && split.every((p) => p![at] === split[0]![at])) at++;
    if (at >= depth) continue;
    const distinct = split.map((p) => p![at]);
    if (new Set(distinct).size !== distinct.length || distinct.some((d) => names.includes(d))) continue;
    group.forEach((i, k) => (names[i] = distinct[k]));
  }
  return names;
}
