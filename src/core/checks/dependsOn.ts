import { findingMessage, FIRST_LINE_MAX } from './message';
import type { AppliedObject, ClusterModel, HelmReleaseNode, KustomizationNode, Reference } from '../model/graph';
import type { CheckContext } from './context';
import { closestNames } from './similar';
import { asArray, asRecord, asString } from '../model/objects';
import { stronglyConnected } from '../model/scc';

type DependentNode = KustomizationNode | HelmReleaseNode;

/** A dependsOn entry resolved against the cluster it lives in. */
interface Edge {
  readonly from: DependentNode;
  readonly ref: Reference;
  readonly to: AppliedObject;
}

/**
 * `depends-on-not-found`, `depends-on-kind`, `depends-on-cycle` and `depends-on-descendant`. Flux resolves `dependsOn`
 * against objects of the dependent's own kind in the same cluster, with the namespace defaulting to
 * the dependent's; a missing dependency blocks the dependent forever ("dependency 'ns/name' not
 * found"), and so does a cycle.
 */
export function checkDependsOn(ctx: CheckContext): void {
  const budget = { suggestions: SUGGESTION_BUDGET };
  for (const cluster of ctx.model.clusters) {
    const edges: Edge[] = [];
    const dependents: DependentNode[] = [...cluster.kustomizations, ...cluster.helmReleases];
    const lookup = new ClusterLookup(ctx, cluster);
    for (const node of dependents) {
      for (const ref of node.dependsOn) {
        const to = resolveRef(ctx, lookup, node, ref, budget);
        if (to) edges.push({ from: node, ref, to });
      }
    }
    reportCycles(ctx, edges);
    reportDescendants(ctx, edges);
  }
}

/**
 * `depends-on-descendant`: a Kustomization that depends on one it applies (directly or through the
 * Kustomizations it applies). Flux reconciles it only once the dependency is ready, and the
 * dependency is created only when it reconciles: it never becomes ready.
 */
function reportDescendants(ctx: CheckContext, edges: readonly Edge[]): void {
  for (const { from, ref, to } of edges) {
    if (from.kind !== 'Kustomization' || to.flux === from || createdWithRoot(from, to)) continue;
    const chain: KustomizationNode[] = [];
    let found = false;
    for (let k = to.appliedBy; k && chain.length <= 100; k = k.applied.appliedBy) {
      if (k === from) {
        found = true;
        break;
      }
      chain.push(k);
    }
    if (!found) continue;
    const self = label(ctx, from.applied);
    const dep = label(ctx, to);
    const via = chain.length ? ` (through ${chain.map((k) => label(ctx, k.applied)).reverse().join(' -> ')})` : '';
    ctx.report(
      'depends-on-descendant',
      from.applied.object.doc,
      [...ref.path, 'name'],
      findingMessage(
        `${self} depends on ${dep}, which it applies itself: remove this dependsOn entry.`,
        `Flux reconciles ${self} only once ${dep} is ready, and ${dep}${via} is created only when ${self} reconciles, so on a fresh cluster neither ever becomes ready (it works only where an earlier reconcile already created ${dep}). What ${self} applies comes after it anyway; or move ${dep} out of ${self}.`,
      ),
      { related: ctx.related(to.object.doc, ['metadata', 'name'], `${dep}, applied by ${self}`) },
    );
  }
}

/**
 * A root that applies itself is bootstrapped by applying its own folder (`kubectl apply -k`,
 * `flux bootstrap`): what that folder holds beside it exists before the root first reconciles, so
 * the root waiting for it is ordering, not a deadlock.
 */
function createdWithRoot(root: KustomizationNode, to: AppliedObject): boolean {
  if (root.applied.appliedBy || !root.appliesItself || to.appliedBy !== root) return false;
  const file = root.applied.object.file;
  const other = to.object.file;
  return other.slice(0, other.lastIndexOf('/')) === file.slice(0, file.lastIndexOf('/'));
}

/**
 * Edit-distance work ("Did you mean") one check may do, in candidate name × entry name characters.
 * A real repository uses a small part of it; 50,000 missing entries against 50,000 names would
 * otherwise compare every pair. Past it, entries are still reported, without a suggestion.
 */
const SUGGESTION_BUDGET = 50_000_000;

/** Objects of one placement and kind: what a missing entry is compared with. */
interface Candidates {
  readonly byName: Map<string, AppliedObject>;
  readonly namesByNamespace: Map<string, string[]>;
  readonly names: string[];
  longest: number;
}

/** A cluster's dependsOn targets indexed once, so that each missing entry costs lookups, not scans. */
class ClusterLookup {
  private readonly candidates = new Map<string, Candidates>();
  private opaqueParts: boolean | undefined;
  private readonly unknownNames = new Map<string, boolean>();

  constructor(
    private readonly ctx: CheckContext,
    readonly cluster: ClusterModel,
  ) {}

  /** Same kind, same placement: the first object of each identity. */
  of(where: string, kind: string): Candidates {
    const key = `${where}#${kind}/`;
    let found = this.candidates.get(key);
    if (found) return found;
    found = { byName: new Map(), namesByNamespace: new Map(), names: [], longest: 0 };
    for (const [k, list] of this.ctx.fluxIndex(this.cluster)) {
      if (!k.startsWith(key)) continue;
      const id = this.ctx.identity(list[0])!;
      if (!found.byName.has(id.name)) found.byName.set(id.name, list[0]);
      const inNs = id.namespace === undefined ? undefined : found.namesByNamespace.get(id.namespace);
      if (inNs) inNs.push(id.name);
      else if (id.namespace !== undefined) found.namesByNamespace.set(id.namespace, [id.name]);
      found.names.push(id.name);
      found.longest = Math.max(found.longest, id.name.length);
    }
    this.candidates.set(key, found);
    return found;
  }

  /** Whether a missing entry may exist where we cannot see (computed once per cluster and kind). */
  opaque(kind: string): boolean {
    this.opaqueParts ??= hasOpaqueParts(this.cluster);
    let unknown = this.unknownNames.get(kind);
    if (unknown === undefined) this.unknownNames.set(kind, (unknown = this.ctx.hasUnknownNames(this.cluster, kind)));
    return this.opaqueParts || unknown;
  }
}

function label(ctx: CheckContext, a: AppliedObject): string {
  const id = ctx.identity(a);
  return `${id?.namespace ?? a.namespace}/${id?.name ?? a.name}`;
}

function resolveRef(ctx: CheckContext, lookup: ClusterLookup, node: DependentNode, ref: Reference, budget: { suggestions: number }): AppliedObject | undefined {
  const { cluster } = lookup;
  const parent = node.applied.appliedBy;
  const name = ctx.substituteFor(parent, ref.name);
  const namespace = ctx.substituteFor(parent, ref.namespace);
  if (name === undefined || namespace === undefined) return undefined;
  const index = ctx.fluxIndex(cluster);
  const where = ctx.placement(node.applied);
  const kind = node.kind;
  const found = index.get(`${where}#${kind}/${namespace}/${name}`);
  if (found?.length) return found[0];

  const doc = node.applied.object.doc;
  const entryPath = [...ref.path, 'name'];
  const wanted = `${namespace}/${name}`;
  const otherKind = kind === 'Kustomization' ? 'HelmRelease' : 'Kustomization';
  const other = index.get(`${where}#${otherKind}/${namespace}/${name}`);
  if (other?.length) {
    const hint =
      kind === 'Kustomization'
        ? `A Kustomization can only depend on Kustomizations: depend on the Kustomization that applies it (${label(ctx, other[0].appliedBy?.applied ?? other[0])}) and give that one \`wait: true\` or a \`healthChecks\` entry for the HelmRelease.`
        : `A HelmRelease can only depend on HelmReleases: move the dependency to the Kustomizations (the one applying this HelmRelease dependsOn '${wanted}', with \`wait: true\`), or list it in that Kustomization's \`healthChecks\`.`;
    const fix = kind === 'Kustomization' ? `depend on the Kustomization that applies it` : 'move the dependency to the Kustomizations';
    const message = findingMessage(`dependsOn '${wanted}' names a ${otherKind}, not a ${kind}: ${fix}.`, `Flux looks for ${kind} '${wanted}' and reports "dependency '${wanted}' not found". ${hint}`);
    ctx.report('depends-on-kind', doc, entryPath, message, {
      related: ctx.related(other[0].object.doc, ['metadata', 'name'], `${otherKind} ${wanted}`),
    });
    return undefined;
  }

  const candidates = lookup.of(where, kind);
  const sameName = candidates.byName.get(name);
  const opaque = lookup.opaque(kind);
  const severity = opaque ? 'warning' : 'error';
  const uncertain = opaque ? ' (Part of this cluster comes from sources outside the workspace or unknown variables, so it may exist there.)' : '';
  const entry = asRecord(asArray(asRecord(node.applied.object.body.spec)?.dependsOn)[ref.path[ref.path.length - 1] as number]);
  const explicitNs = !!asString(entry?.namespace);
  if (sameName) {
    const ns = ctx.identity(sameName)!.namespace ?? '';
    const defaulted = explicitNs ? '' : ` Without \`namespace\`, Flux looks in the ${kind}'s own namespace '${namespace}'.`;
    ctx.report(
      'depends-on-not-found',
      doc,
      entryPath,
      findingMessage(
        `dependsOn '${wanted}' is not found: ${kind} '${name}' is in namespace '${ns}'; set \`namespace: ${ns}\` on this entry.`,
        `Flux reports "dependency '${wanted}' not found".${defaulted}${uncertain}`,
      ),
      {
        severity,
        related: ctx.related(sameName.object.doc, ['metadata', 'name'], `${kind} ${ns}/${name}`),
        fix: { kind: 'set-namespace', file: doc.file.path, docIndex: doc.index, path: ref.path, namespace: ns, name },
      },
    );
    return undefined;
  }
  const inNamespace = candidates.namesByNamespace.get(namespace);
  const pool = inNamespace?.length ? inNamespace : candidates.names;
  const work = pool.length * (name.length + 1) * (candidates.longest + 1);
  const suggestions = work <= budget.suggestions ? closestNames(name, pool) : [];
  budget.suggestions -= Math.min(work, budget.suggestions);
  const fix = suggestions.length ? `did you mean '${suggestions[0]}'?` : 'fix the name or remove the entry.';
  ctx.report(
    'depends-on-not-found',
    doc,
    entryPath,
    findingMessage(
      `dependsOn '${wanted}': no ${kind} of that name in cluster '${cluster.name}'; ${fix}`,
      `Flux reports "dependency '${wanted}' not found" and never reconciles this ${kind}.${uncertain}`,
    ),
    {
      severity,
      fix: suggestions.length
        ? { kind: 'replace-scalar', file: doc.file.path, docIndex: doc.index, path: entryPath, candidates: suggestions.map((s) => ({ title: `Change to '${s}'`, value: s })) }
        : undefined,
    },
  );
  return undefined;
}

/** Whether some of the cluster's Kustomizations read sources we cannot see (their objects are unknown). */
function hasOpaqueParts(cluster: ClusterModel): boolean {
  return cluster.kustomizations.some((k) => k.source.kind !== 'view' || k.remoteResources.length > 0);
}

/** Longest cycle path a message spells out; the rest is counted ("… and 1,995 more"). */
const MAX_CYCLE_NAMES = 8;

/**
 * Every edge inside a strongly connected component is part of a cycle. Each member is told once,
 * with a bounded path: a ring of thousands must not put thousands of names in every message.
 */
function reportCycles(ctx: CheckContext, edges: Edge[]): void {
  const out = new Map<AppliedObject, Edge[]>();
  for (const e of edges) {
    const list = out.get(e.from.applied);
    if (list) list.push(e);
    else out.set(e.from.applied, [e]);
  }
  const component = stronglyConnected(out.keys(), (v) => (out.get(v) ?? []).map((e) => e.to));
  const members = new Map<number, AppliedObject[]>();
  for (const [v, c] of component) {
    const list = members.get(c);
    if (list) list.push(v);
    else members.set(c, [v]);
  }
  const viaHub = new Map<number, HubPaths>();
  const shortest = new Map<string, AppliedObject[]>();
  const ids = new Map<AppliedObject, number>();
  for (const v of component.keys()) ids.set(v, ids.size);

  for (const e of edges) {
    const c = component.get(e.from.applied);
    if (c === undefined || component.get(e.to) !== c) continue;
    const all = members.get(c)!;
    // In a small component the shortest cycle through the edge; in a large one (where a search per
    // edge would be quadratic) a cycle through one hub member, found once for the component.
    let path: AppliedObject[];
    if (all.length <= EXACT_CYCLE_LIMIT) {
      // Once per pair: one Kustomization may list the same dependency thousands of times.
      const key = `${ids.get(e.from.applied)}>${ids.get(e.to)}`;
      path = shortest.get(key) ?? cyclePath(out, component, e);
      shortest.set(key, path);
    }
    else {
      let hub = viaHub.get(c);
      if (!hub) viaHub.set(c, (hub = hubPaths(out, component, all[0])));
      path = [e.from.applied, ...hub.toHub(e.to), ...hub.fromHub(e.from.applied).slice(1)];
    }
    const names =
      path.length > MAX_CYCLE_NAMES + 1
        ? [...path.slice(0, MAX_CYCLE_NAMES).map((a) => label(ctx, a)), `… ${(path.length - 1 - MAX_CYCLE_NAMES).toLocaleString('en-US')} more`, label(ctx, path[0])]
        : path.map((a) => label(ctx, a));
    const related = path
      .slice(1, Math.min(path.length - 1, MAX_CYCLE_NAMES))
      .flatMap((a) => ctx.related(a.object.doc, ['metadata', 'name'], `${a.kind} ${label(ctx, a)} is part of the cycle`));
    const count = all.length > 2 ? ` (${all.length.toLocaleString('en-US')} ${e.from.kind}s depend on each other here)` : '';
    ctx.report(
      'depends-on-cycle',
      e.from.applied.object.doc,
      [...e.ref.path, 'name'],
      findingMessage(
        cycleLine(names.join(' -> ')),
        `The cycle: ${names.join(' -> ')}${count}. Flux waits for each of these ${e.from.kind}s to become ready before the next, so none of them is ever reconciled.`,
      ),
      { related },
    );
  }
}

/** Components up to this size get the shortest cycle per edge (a search each). */
const EXACT_CYCLE_LIMIT = 64;

interface HubPaths {
  /** Path from a member to the hub, both included. */
  toHub(v: AppliedObject): AppliedObject[];
  /** Path from the hub to a member, both included. */
  fromHub(v: AppliedObject): AppliedObject[];
}

/** Breadth-first trees into and out of one member of a component (linear in its edges). */
function hubPaths(out: Map<AppliedObject, Edge[]>, component: Map<AppliedObject, number>, hub: AppliedObject): HubPaths {
  const c = component.get(hub);
  const incoming = new Map<AppliedObject, AppliedObject[]>();
  for (const [from, list] of out) {
    if (component.get(from) !== c) continue;
    for (const e of list) {
      if (component.get(e.to) !== c) continue;
      const l = incoming.get(e.to);
      if (l) l.push(from);
      else incoming.set(e.to, [from]);
    }
  }
  const tree = (next: (v: AppliedObject) => AppliedObject[]) => {
    const parent = new Map<AppliedObject, AppliedObject>();
    const queue = [hub];
    const seen = new Set([hub]);
    for (let head = 0; head < queue.length; head++) {
      for (const w of next(queue[head])) {
        if (seen.has(w)) continue;
        seen.add(w);
        parent.set(w, queue[head]);
        queue.push(w);
      }
    }
    return (v: AppliedObject) => {
      const path = [v];
      for (let p = parent.get(v); p; p = parent.get(p)) path.push(p);
      return path;
    };
  };
  const forward = tree((v) => (out.get(v) ?? []).filter((e) => component.get(e.to) === c).map((e) => e.to));
  const backward = tree((v) => incoming.get(v) ?? []);
  return { toHub: (v) => backward(v), fromHub: (v) => forward(v).reverse() };
}

/**
 * Shortest way back from the edge's target to its source inside the component, as a closed path
 * `source -> target -> … -> source`.
 */
function cyclePath(out: Map<AppliedObject, Edge[]>, component: Map<AppliedObject, number>, e: Edge): AppliedObject[] {
  const start = e.from.applied;
  if (start === e.to) return [start, start];
  const c = component.get(start);
  const prev = new Map<AppliedObject, AppliedObject>();
  const queue = [e.to];
  const seen = new Set([e.to]);
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    if (v === start) break;
    for (const n of out.get(v) ?? []) {
      if (component.get(n.to) !== c || seen.has(n.to)) continue;
      seen.add(n.to);
      prev.set(n.to, v);
      queue.push(n.to);
    }
  }
  const back: AppliedObject[] = [];
  for (let v: AppliedObject | undefined = start; v && v !== e.to; v = prev.get(v)) back.push(v);
  back.push(e.to);
  back.reverse();
  // back = [e.to, …, start]; the cycle reads start -> e.to -> … -> start.
  return [start, ...back];
}

/** The cycle and the fix on the first line; a cycle too long for it comes after the fix, cut. */
function cycleLine(cycle: string): string {
  const line = `dependsOn cycle ${cycle}: remove one of its entries.`;
  return line.length <= FIRST_LINE_MAX ? line : `dependsOn cycle (remove one of its entries): ${cycle}`;
}
