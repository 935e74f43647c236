import { rangeAt, type PathSegment, type YamlDoc } from '../yaml/document';
import type { Range } from '../yaml/lines';
import type { AppliedObject, ClusterModel, KustomizationNode, RepoModel } from '../model/graph';
import { asRecord, asString } from '../model/objects';
import { resolveSubstituteVars, type SubstituteVars } from '../substitution/resolve';
import { substitute } from '../substitution/evaluate';
import { MASK } from '../flux/mask';
import type { ClusterCrds } from '../schema/clusterCrds';
import { RULES, type Diagnostic, type FixHint, type RelatedLocation, type RuleId, type Severity } from './types';

/** What a check run knows beside the model. */
export interface CheckOptions {
  /** The connected context's CRDs (or the last known ones): schemas of custom resources the workspace does not define. */
  readonly clusterCrds?: ClusterCrds;
}

/**
 * Shared state of one check run: the model, memoised derived facts (where objects land, names after
 * variable substitution) and the diagnostics collected so far.
 */
export class CheckContext {
  readonly diagnostics: Diagnostic[] = [];
  private readonly placements = new Map<AppliedObject, string>();
  private readonly names = new Map<AppliedObject, { name: string; namespace: string | undefined } | null>();

  constructor(
    readonly model: RepoModel,
    readonly options: CheckOptions = {},
  ) {}

  /** A document the workspace really holds (not one the model inferred, like a bootstrap placeholder). */
  isReal(doc: YamlDoc): boolean {
    return this.model.workspace.files.get(doc.file.path) === doc.file;
  }

  report(
    rule: RuleId,
    doc: YamlDoc,
    at: readonly PathSegment[] | Range,
    message: string,
    options: { related?: RelatedLocation[]; fix?: FixHint; severity?: Severity } = {},
  ): void {
    if (!this.isReal(doc)) return;
    const range = Array.isArray(at) ? rangeAt(doc, at as PathSegment[]) : (at as Range);
    this.diagnostics.push({
      rule,
      severity: options.severity ?? RULES[rule],
      file: doc.file.path,
      range,
      message,
      related: (options.related ?? []).filter((r) => r.file),
      fix: options.fix,
    });
  }

  /** A related location at a YAML path, or undefined for inferred documents. */
  related(doc: YamlDoc, path: readonly PathSegment[], message: string): RelatedLocation[] {
    if (!this.isReal(doc)) return [];
    return [{ file: doc.file.path, range: rangeAt(doc, path as PathSegment[]), message }];
  }

  vars(ks: KustomizationNode): SubstituteVars {
    return resolveSubstituteVars(ks, this.model);
  }

  /**
   * Which API server an object lands on. Objects go where their Kustomization applies: the cluster
   * running Flux, or the remote cluster of the nearest `spec.kubeConfig` up the chain (hub-and-spoke).
   */
  placement(applied: AppliedObject): string {
    const by = applied.appliedBy;
    return by ? this.targetOf(by) : applied.cluster.name;
  }

  /** Where a Kustomization's (or HelmRelease's) own `spec.kubeConfig` sends what it applies. */
  targetOf(node: { applied: AppliedObject }): string {
    let p = this.placements.get(node.applied);
    if (p !== undefined) return p;
    const kc = asRecord(asRecord(node.applied.object.body.spec)?.kubeConfig);
    if (kc) {
      const secret = asString(asRecord(kc.secretRef)?.name);
      const cm = asString(asRecord(kc.configMapRef)?.name);
      p = `${node.applied.cluster.name}|kubeconfig:${node.applied.namespace}/${secret ?? ''}/${cm ?? ''}`;
    } else p = this.placement(node.applied);
    this.placements.set(node.applied, p);
    return p;
  }

  /**
   * Name and namespace after the applying Kustomization's variable substitution; null when they hold
   * variables whose values the workspace does not know.
   */
  identity(applied: AppliedObject): { name: string; namespace: string | undefined } | null {
    // Built with a masked Secret value substituted (`***`, which no Kubernetes name holds): unknown.
    if (applied.name.includes(MASK) || applied.namespace?.includes(MASK)) return null;
    if (!applied.name.includes('$') && !applied.namespace?.includes('$')) return applied;
    if (this.names.has(applied)) return this.names.get(applied)!;
    let result: { name: string; namespace: string | undefined } | null = { name: applied.name, namespace: applied.namespace };
    if (applied.name.includes('${') || applied.namespace?.includes('${')) {
      const name = this.substituteFor(applied.appliedBy, applied.name);
      const namespace = applied.namespace === undefined ? undefined : this.substituteFor(applied.appliedBy, applied.namespace);
      result = name === undefined || (applied.namespace !== undefined && namespace === undefined) ? null : { name, namespace };
    }
    this.names.set(applied, result);
    return result;
  }

  /** A string as the Kustomization's post-build substitution leaves it; undefined when unknown. */
  substituteFor(ks: KustomizationNode | undefined, text: string): string | undefined {
    if (!text.includes('${')) return text;
    if (!ks) return text;
    const vars = this.vars(ks);
    if (!vars.enabled || !vars.active) return text;
    const result = substitute(text, (n) => vars.vars.get(n)?.value);
    if (result.value === undefined) return undefined;
    if (result.missing.length && !vars.complete) return undefined;
    // Secret values are masked: a name built from one is unknown.
    if ([...vars.vars.values()].some((v) => v.masked && text.includes(v.name))) return undefined;
    return result.value;
  }

  /** Kustomizations and HelmReleases of a cluster by placement and `Kind/namespace/name` (after substitution). */
  fluxIndex(cluster: ClusterModel): Map<string, AppliedObject[]> {
    let index = this.fluxIndexes.get(cluster);
    if (index) return index;
    index = new Map();
    const add = (applied: AppliedObject) => {
      const id = this.identity(applied);
      if (!id) return;
      const key = `${this.placement(applied)}#${applied.kind}/${id.namespace ?? ''}/${id.name}`;
      const list = index!.get(key);
      if (list) list.push(applied);
      else index!.set(key, [applied]);
    };
    for (const ks of cluster.kustomizations) add(ks.applied);
    for (const hr of cluster.helmReleases) add(hr.applied);
    this.fluxIndexes.set(cluster, index);
    return index;
  }
  private readonly fluxIndexes = new Map<ClusterModel, Map<string, AppliedObject[]>>();

  /** Flux objects whose names hold unknown variables: a reference might name one of them. */
  hasUnknownNames(cluster: ClusterModel, kind: string): boolean {
    const list = kind === 'HelmRelease' ? cluster.helmReleases : cluster.kustomizations;
    return list.some((n) => this.identity(n.applied) === null);
  }
}
