import type { AppliedObject, ClusterModel, HelmReleaseNode, KustomizationNode, Reference } from '../model/graph';
import type { CheckContext } from './context';
import { closestNames } from './similar';
import { asArray, asRecord, asString } from '../model/objects';

type DependentNode = KustomizationNode | HelmReleaseNode;

/** A dependsOn entry resolved against the cluster it lives in. */
interface Edge {
  readonly from: DependentNode;
  readonly ref: Reference;
  readonly to: AppliedObject;
}

/**
 * `depends-on-not-found`, `depends-on-kind` and `depends-on-cycle`. Flux resolves `dependsOn`
 * against objects of the dependent's own kind in the same cluster, with the namespace defaulting to
 * the dependent's; a missing dependency blocks the dependent forever ("dependency 'ns/name' not
 * found"), and so does a cycle.
 */
export function checkDependsOn(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    const edges: Edge[] = [];
    const dependents: DependentNode[] = [...cluster.kustomizations, ...cluster.helmReleases];
    for (const node of dependents) {
      for (const ref of node.dependsOn) {
        const to = resolveRef(ctx, cluster, node, ref);
        if (to) edges.push({ from: node, ref, to });
      }
    }
    reportCycles(ctx, edges);
  }
}

function label(ctx: CheckContext, a: AppliedObject): string {
  const id = ctx.identity(a);
  return `${id?.namespace ?? a.namespace}/${id?.name ?? a.name}`;
}

function resolveRef(ctx: CheckContext, cluster: ClusterModel, node: DependentNode, ref: Reference): AppliedObject | undefined {
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
    ctx.report('depends-on-kind', doc, entryPath, `dependsOn '${wanted}' names a ${otherKind}, not a ${kind}; Flux looks for ${kind} '${wanted}' and reports "dependency '${wanted}' not found". ${hint}`, {
      related: ctx.related(other[0].object.doc, ['metadata', 'name'], `${otherKind} ${wanted}`),
    });
    return undefined;
  }

  // Candidates: same kind, same placement.
  const sameKind: AppliedObject[] = [];
  for (const [key, list] of index) {
    if (key.startsWith(`${where}#${kind}/`)) sameKind.push(list[0]);
  }
  const sameName = sameKind.filter((a) => ctx.identity(a)?.name === name);
  const opaque = hasOpaqueParts(cluster) || ctx.hasUnknownNames(cluster, kind);
  const severity = opaque ? 'warning' : 'error';
  const uncertain = opaque ? ' (Part of this cluster comes from sources outside the workspace or unknown variables, so it may exist there.)' : '';
  const entry = asRecord(asArray(asRecord(node.applied.object.body.spec)?.dependsOn)[ref.path[ref.path.length - 1] as number]);
  const explicitNs = !!asString(entry?.namespace);
  if (sameName.length) {
    const ns = ctx.identity(sameName[0])!.namespace ?? '';
    const defaulted = explicitNs ? '' : ` Without \`namespace\`, Flux looks in the ${kind}'s own namespace '${namespace}'.`;
    ctx.report(
      'depends-on-not-found',
      doc,
      entryPath,
      `Flux reports "dependency '${wanted}' not found": ${kind} '${name}' exists in namespace '${ns}', not '${namespace}'.${defaulted} Set \`namespace: ${ns}\` on this entry.${uncertain}`,
      {
        severity,
        related: ctx.related(sameName[0].object.doc, ['metadata', 'name'], `${kind} ${ns}/${name}`),
        fix: { kind: 'set-namespace', file: doc.file.path, docIndex: doc.index, path: ref.path, namespace: ns, name },
      },
    );
    return undefined;
  }
  const inNamespace = sameKind.filter((a) => ctx.identity(a)?.namespace === namespace).map((a) => ctx.identity(a)!.name);
  const suggestions = closestNames(name, inNamespace.length ? inNamespace : sameKind.map((a) => ctx.identity(a)!.name));
  const didYouMean = suggestions.length ? ` Did you mean '${suggestions[0]}'?` : '';
  ctx.report(
    'depends-on-not-found',
    doc,
    entryPath,
    `Flux reports "dependency '${wanted}' not found" and never reconciles this ${kind}: no ${kind} '${wanted}' is applied in cluster '${cluster.name}'.${didYouMean}${uncertain}`,
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

/** Tarjan's strongly connected components; every edge inside a component is part of a cycle. */
function reportCycles(ctx: CheckContext, edges: Edge[]): void {
  const out = new Map<AppliedObject, Edge[]>();
  for (const e of edges) {
    const list = out.get(e.from.applied);
    if (list) list.push(e);
    else out.set(e.from.applied, [e]);
  }
  const indexOf = new Map<AppliedObject, number>();
  const low = new Map<AppliedObject, number>();
  const onStack = new Set<AppliedObject>();
  const stack: AppliedObject[] = [];
  const component = new Map<AppliedObject, number>();
  let counter = 0;
  let components = 0;
  // Iterative to survive long dependency chains.
  const strong = (root: AppliedObject) => {
    const work: { v: AppliedObject; i: number }[] = [{ v: root, i: 0 }];
    indexOf.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const next = out.get(frame.v) ?? [];
      if (frame.i < next.length) {
        const w = next[frame.i++].to;
        if (!indexOf.has(w)) {
          indexOf.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, indexOf.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) === indexOf.get(frame.v)) {
        let w: AppliedObject;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.set(w, components);
        } while (w !== frame.v);
        components++;
      }
    }
  };
  for (const v of out.keys()) if (!indexOf.has(v)) strong(v);

  for (const e of edges) {
    const c = component.get(e.from.applied);
    if (c === undefined || component.get(e.to) !== c) continue;
    const path = cyclePath(out, component, e);
    const names = path.map((a) => label(ctx, a));
    const related = path.slice(1, -1).flatMap((a) => ctx.related(a.object.doc, ['metadata', 'name'], `${a.kind} ${label(ctx, a)} is part of the cycle`));
    ctx.report(
      'depends-on-cycle',
      e.from.applied.object.doc,
      [...e.ref.path, 'name'],
      `dependsOn cycle ${names.join(' -> ')}: Flux waits for each of these ${e.from.kind}s to become ready before the next, so none of them is ever reconciled. Remove one of the dependsOn entries.`,
      { related },
    );
  }
}

/** Shortest way back from the edge's target to its source inside the component, as a closed path. */
function cyclePath(out: Map<AppliedObject, Edge[]>, component: Map<AppliedObject, number>, e: Edge): AppliedObject[] {
  const start = e.from.applied;
  const c = component.get(start);
  const prev = new Map<AppliedObject, AppliedObject>();
  const queue = [e.to];
  const seen = new Set([e.to]);
  while (queue.length) {
    const v = queue.shift()!;
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
  return start === e.to ? [start, start] : [start, ...back];
}
