import type { AppliedObject, ClusterModel, HelmReleaseNode, KustomizationNode, Reference } from '../model/graph';
import { groupOf } from '../kinds';
import { asArray, asRecord, asString } from '../model/objects';
import type { CheckContext } from './context';
import { additiveCelDependencyCheck } from '../flux/featureGates';

/**
 * What Flux guarantees has happened before something runs, counted as kustomize-controller v1.9 and
 * helm-controller v1.6 count readiness:
 *
 * - a Kustomization applies only once every `dependsOn` Kustomization is Ready, and it exists only
 *   once the Kustomization applying it has applied (a dry-run that fails applies nothing), so what
 *   its parents wait for it waits for too;
 * - a Kustomization that has applied has passed its dry-run, so the kinds of its custom resources
 *   are served;
 * - a Kustomization is Ready after its apply and, with `wait: true`, every object it applied being
 *   ready (its HelmReleases installed, its child Kustomizations Ready), or else the objects its
 *   `healthChecks` name (a HelmRelease, a Kustomization, a CustomResourceDefinition, or an object a
 *   chart creates, which exists only once that chart is installed); `healthCheckExprs` only change
 *   how those objects are assessed, they add none;
 * - a HelmRelease is Ready once its chart is installed (the chart's CRDs first), which helm-controller
 *   does only after its `dependsOn` HelmReleases are Ready;
 * - a `dependsOn[].readyExpr` replaces the dependency's Ready check (unless the controllers run with
 *   `AdditiveCELDependencyCheck`): an expression on the dependency's Ready condition still waits for
 *   it, any other orders nothing.
 */
export interface Guarantees {
  /** Kustomizations whose apply has succeeded: their objects exist, their CRDs are established. */
  readonly applied: ReadonlySet<KustomizationNode>;
  /** Kustomizations that are Ready. */
  readonly ready: ReadonlySet<KustomizationNode>;
  /** HelmReleases that are Ready: their chart is installed, CRDs included. */
  readonly releases: ReadonlySet<HelmReleaseNode>;
  /** CustomResourceDefinitions a health check waits for, by name (`plural.group`). */
  readonly crds: ReadonlySet<string>;
  /**
   * Kinds served, `placement#group/Kind`: an applied Kustomization's apply passed, so the kinds of
   * the custom resources it applies had their CRDs.
   */
  readonly kinds: ReadonlySet<string>;
}

/**
 * Facts visited by all the closures of one check run. Each closure is linear in the facts it reaches;
 * a repository built to make every closure reach everything stops here, and what is not known then
 * counts as ordered (no finding) rather than costing quadratic time.
 */
const WORK_LIMIT = 20_000_000;

const BEFORE = 0;
const APPLIED = 1;
const READY = 2;

/** A fact: `[BEFORE|APPLIED|READY, Kustomization]` or a HelmRelease being Ready. */
type Fact = readonly [number, KustomizationNode] | HelmReleaseNode;

export class Readiness {
  private readonly ksIds = new Map<KustomizationNode, number>();
  private readonly hrIds = new Map<HelmReleaseNode, number>();
  private readonly next = new Map<number, { facts: Fact[]; crds: string[] }>();
  private readonly memo = new Map<string, Guarantees | undefined>();
  private chartOwners: Map<string, HelmReleaseNode[]> | undefined;
  private readonly appliedKinds = new Map<KustomizationNode, string[]>();
  private work = 0;
  private readonly additive: boolean;

  constructor(
    private readonly ctx: CheckContext,
    private readonly cluster: ClusterModel,
  ) {
    this.additive = additiveCelDependencyCheck(ctx.model.workspace);
  }

  /**
   * What holds when `ks` applies: its dependencies (and its parents' dependencies) are Ready, and the
   * Kustomizations above it have applied. Undefined once the check's work limit is spent.
   */
  beforeApply(ks: KustomizationNode): Guarantees | undefined {
    const parent = ks.applied.appliedBy;
    return this.closure(`b${this.id([BEFORE, ks])}`, parent && parent !== ks ? [[BEFORE, ks], [APPLIED, parent]] : [[BEFORE, ks]]);
  }

  /** What must have happened for `ks` to have applied. */
  toApply(ks: KustomizationNode): Guarantees | undefined {
    return this.closure(`a${this.id([APPLIED, ks])}`, [[APPLIED, ks]]);
  }

  /** What must have happened for a HelmRelease to be Ready (its chart installed). */
  toInstall(hr: HelmReleaseNode): Guarantees | undefined {
    return this.closure(`h${this.id(hr)}`, [hr]);
  }

  /** What holds once `ks` is Ready. */
  whenReady(ks: KustomizationNode): Guarantees | undefined {
    return this.closure(`r${this.id([READY, ks])}`, [[READY, ks]]);
  }

  /** Odd ids for HelmReleases, even ones for the three facts of each Kustomization. */
  private id(f: Fact): number {
    if (isRelease(f)) return 2 * indexOf(this.hrIds, f) + 1;
    return 2 * (3 * indexOf(this.ksIds, f[1]) + f[0]);
  }

  private closure(key: string, starts: Fact[]): Guarantees | undefined {
    if (this.memo.has(key)) return this.memo.get(key);
    const applied = new Set<KustomizationNode>();
    const ready = new Set<KustomizationNode>();
    const releases = new Set<HelmReleaseNode>();
    const crds = new Set<string>();
    const kinds = new Set<string>();
    const seen = new Set<number>();
    const stack = [...starts];
    let result: Guarantees | undefined = { applied, ready, releases, crds, kinds };
    while (stack.length) {
      const f = stack.pop()!;
      const id = this.id(f);
      if (seen.has(id)) continue;
      seen.add(id);
      if (++this.work > WORK_LIMIT) {
        result = undefined;
        break;
      }
      if (isRelease(f)) releases.add(f);
      else if (f[0] === APPLIED) {
        applied.add(f[1]);
        for (const k of this.kindsOf(f[1])) kinds.add(k);
      }
      else if (f[0] === READY) ready.add(f[1]);
      const out = this.successors(f);
      for (const c of out.crds) crds.add(c);
      stack.push(...out.facts);
    }
    this.memo.set(key, result);
    return result;
  }

  /** The custom kinds a Kustomization applies itself, where they land (computed once per Kustomization). */
  private kindsOf(ks: KustomizationNode): string[] {
    let list = this.appliedKinds.get(ks);
    if (list) return list;
    const set = new Set<string>();
    for (const a of ks.applies) {
      const group = groupOf(a.apiVersion);
      if (!group.includes('.') || a.object.fluxKind || skipped(a)) continue;
      set.add(`${this.ctx.placement(a)}#${group}/${a.kind}`);
    }
    list = [...set];
    this.appliedKinds.set(ks, list);
    return list;
  }

  /** What one fact implies directly (computed once per fact). */
  private successors(f: Fact): { facts: Fact[]; crds: string[] } {
    const id = this.id(f);
    let out = this.next.get(id);
    if (out) return out;
    out = { facts: [], crds: [] };
    this.next.set(id, out);
    if (isRelease(f)) {
      const by = f.applied.appliedBy;
      // The HelmRelease exists, so what applied it has applied.
      if (by) out.facts.push([APPLIED, by]);
      for (const dep of this.dependencies(f, f.dependsOn, 'HelmRelease')) out.facts.push(dep as HelmReleaseNode);
      return out;
    }
    const [stage, ks] = f;
    if (stage === BEFORE) {
      for (const dep of this.dependencies(ks, ks.dependsOn, 'Kustomization')) out.facts.push([READY, dep as KustomizationNode]);
    } else if (stage === APPLIED) {
      out.facts.push([BEFORE, ks]);
      const parent = ks.applied.appliedBy;
      if (parent && parent !== ks) out.facts.push([APPLIED, parent]);
    } else {
      out.facts.push([APPLIED, ks]);
      this.healthChecked(ks, out);
    }
    return out;
  }

  /** What a Ready Kustomization's health assessment waited for. */
  private healthChecked(ks: KustomizationNode, out: { facts: Fact[]; crds: string[] }): void {
    const spec = asRecord(ks.applied.object.body.spec) ?? {};
    if (spec.wait === true) {
      for (const hr of ks.helmReleases) out.facts.push(hr);
      for (const child of ks.children) if (child !== ks) out.facts.push([READY, child]);
      return;
    }
    // Health checks run where the Kustomization applies (its spec.kubeConfig), with its applier's substitution.
    const where = this.ctx.targetOf(ks);
    const index = this.ctx.fluxIndex(this.cluster);
    for (const entry of asArray(spec.healthChecks)) {
      const hc = asRecord(entry);
      const kind = asString(hc?.kind);
      const rawName = asString(hc?.name);
      if (!hc || !kind || !rawName) continue;
      const name = this.ctx.substituteFor(ks.applied.appliedBy, rawName);
      const rawNs = asString(hc.namespace);
      const namespace = rawNs === undefined ? undefined : this.ctx.substituteFor(ks.applied.appliedBy, rawNs);
      if (name === undefined || (rawNs !== undefined && namespace === undefined)) continue;
      if (kind === 'CustomResourceDefinition') {
        out.crds.push(name);
        continue;
      }
      if (kind === 'Kustomization' || kind === 'HelmRelease') {
        // kustomize-controller skips a health check on the Kustomization itself.
        const found = index.get(`${where}#${kind}/${namespace ?? ''}/${name}`) ?? [];
        for (const a of found) {
          if (a.flux?.kind === 'Kustomization' && a.flux !== ks) out.facts.push([READY, a.flux]);
          else if (a.flux?.kind === 'HelmRelease') out.facts.push(a.flux);
        }
        continue;
      }
      for (const hr of this.chartsCreating(where, kind, namespace, name)) out.facts.push(hr);
    }
  }

  /**
   * The HelmReleases whose chart creates an object no Kustomization applies (a chart's Deployment):
   * those releasing into its namespace on that cluster, by release name when there are several.
   */
  private chartsCreating(where: string, kind: string, namespace: string | undefined, name: string): HelmReleaseNode[] {
    if (namespace === undefined) return [];
    for (const a of this.cluster.byKey.get(`${kind}/${namespace}/${name}`) ?? []) if (this.ctx.placement(a) === where) return [];
    if (!this.chartOwners) {
      this.chartOwners = new Map();
      for (const hr of this.cluster.helmReleases) {
        const key = `${this.ctx.targetOf(hr)}|${hr.targetNamespace}`;
        const list = this.chartOwners.get(key);
        if (list) list.push(hr);
        else this.chartOwners.set(key, [hr]);
      }
    }
    const owners = this.chartOwners.get(`${where}|${namespace}`) ?? [];
    if (owners.length <= 1) return owners;
    // Charts name their objects after the release (`cert-manager-webhook` of release `cert-manager`).
    return owners.filter((hr) => [hr.releaseName, hr.applied.name].some((r) => name === r || name.startsWith(`${r}-`)));
  }

  /** The dependencies Flux waits to be Ready; a `readyExpr` that does not test readiness orders nothing. */
  private dependencies(node: KustomizationNode | HelmReleaseNode, refs: readonly Reference[], kind: 'Kustomization' | 'HelmRelease') {
    const index = this.ctx.fluxIndex(this.cluster);
    const where = this.ctx.placement(node.applied);
    const entries = asArray(asRecord(node.applied.object.body.spec)?.dependsOn);
    const out: (KustomizationNode | HelmReleaseNode)[] = [];
    for (const ref of refs) {
      const readyExpr = asString(asRecord(entries[ref.path[ref.path.length - 1] as number])?.readyExpr);
      if (readyExpr && !this.additive && !testsReady(readyExpr)) continue;
      const name = this.ctx.substituteFor(node.applied.appliedBy, ref.name);
      const namespace = this.ctx.substituteFor(node.applied.appliedBy, ref.namespace);
      if (name === undefined || namespace === undefined) continue;
      for (const a of index.get(`${where}#${kind}/${namespace}/${name}`) ?? []) if (a.flux?.kind === kind) out.push(a.flux);
    }
    return out;
  }
}

function indexOf<T>(ids: Map<T, number>, item: T): number {
  let i = ids.get(item);
  if (i === undefined) ids.set(item, (i = ids.size));
  return i;
}

/** Objects kustomize-controller does not apply (`reconcile: disabled`, `ssa: Ignore`), which prove nothing about their kind. */
function skipped(a: AppliedObject): boolean {
  const annotations = asRecord(asRecord(a.object.body.metadata)?.annotations);
  return asString(annotations?.['kustomize.toolkit.fluxcd.io/reconcile'])?.toLowerCase() === 'disabled' || asString(annotations?.['kustomize.toolkit.fluxcd.io/ssa'])?.toLowerCase() === 'ignore';
}

function isRelease(f: Fact): f is HelmReleaseNode {
  return !Array.isArray(f);
}

/** Whether a CEL `readyExpr` looks at the dependency's Ready condition (Flux's documented form). */
export function testsReady(expr: string): boolean {
  return expr.includes("'Ready'") || expr.includes('"Ready"');
}
