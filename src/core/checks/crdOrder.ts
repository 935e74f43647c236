import type { ClusterModel, KustomizationNode } from '../model/graph';
import { groupOf } from '../kinds';
import { asArray, asRecord, asString } from '../model/objects';
import type { CheckContext } from './context';
import type { FixHint } from './types';
import { crdProviders, providersFor, type CrdProvider } from './crdProviders';
import { preinstalledCrdGroups } from '../bootstrap/index';

/**
 * `crd-order` and `crd-order-no-wait`. kustomize-controller dry-runs everything a Kustomization
 * applies; a custom resource whose CRD does not exist yet fails it with `no matches for kind`. Within
 * one Kustomization Flux applies CRDs first, so the CRD must come from the same Kustomization or
 * from one it (transitively) depends on; a CRD installed by a HelmRelease additionally needs that
 * Kustomization to wait for the release (`wait: true` or a `healthChecks` entry). An error when the
 * cluster never converges (the installer runs only after X is ready, or in X itself); a warning when
 * X only fails until a retry after the installer has run, as on every fresh cluster.
 */
export function checkCrdOrder(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) checkCluster(ctx, cluster);
}

function checkCluster(ctx: CheckContext, cluster: ClusterModel): void {
  const providers = crdProviders(ctx, cluster);
  if (providers.size === 0) return;
  const deps = dependencyClosure(ctx, cluster);
  const opaque = opaqueBefore(deps);
  const preinstalled = preinstalledCrdGroups(ctx.model, cluster);
  const noWait = new Map<string, { x: KustomizationNode; p: CrdProvider; kinds: Set<string> }>();
  for (const applied of cluster.objects) {
    const x = applied.appliedBy;
    if (!x || applied.object.fluxKind || applied.kind === 'CustomResourceDefinition') continue;
    const group = groupOf(applied.apiVersion);
    if (!group.includes('.')) continue;
    // Installed by the bootstrap (a helmfile, a task runner's kubectl apply), on the cluster Flux runs in.
    if (preinstalled.has(group) && ctx.placement(applied) === cluster.name) continue;
    const candidates = providersFor(providers, ctx.placement(applied), group, applied.kind);
    if (candidates.length === 0) continue;
    const closure = deps(x);
    let satisfied = false;
    let unwaited: CrdProvider | undefined;
    for (const p of candidates) {
      // A CRD applied by X itself or by a Kustomization that (transitively) applies X's definition:
      // Flux applies CRDs before everything else, so it exists before X is even created.
      if (p.preinstalled || (p.via === 'crd' && p.ks && (p.ks === x || appliesTransitively(p.ks, x)))) satisfied = true;
      else if (p.ks && p.ks !== x && closure.has(p.ks)) {
        if (p.via === 'crd' || waitsFor(p.ks, p)) satisfied = true;
        else unwaited ??= p;
      }
      if (satisfied) break;
    }
    // Content the workspace cannot see (another repository, a remote base) is applied before X:
    // it may well install the CRD (a CRDs-only Kustomization of an upstream repository is common).
    if (satisfied || opaque(x)) continue;
    const xLabel = `${x.applied.namespace}/${x.applied.name}`;
    const doc = applied.object.doc;
    const crName = ctx.identity(applied)?.name ?? applied.name;
    if (unwaited) {
      const key = `${xLabel}|${unwaited.ks!.applied.object.id}|${unwaited.applied.object.id}`;
      const entry = noWait.get(key) ?? { x, p: unwaited, kinds: new Set<string>() };
      entry.kinds.add(applied.kind);
      noWait.set(key, entry);
      continue;
    }
    const p = candidates.find((c) => c.ks && c.ks !== x) ?? candidates[0];
    const pKs = p.ks;
    const pLabel = pKs ? `${pKs.applied.namespace}/${pKs.applied.name}` : '?';
    const noMatch = `"no matches for kind \\"${applied.kind}\\" in version \\"${applied.apiVersion}\\""`;
    let message: string;
    let fix: FixHint | undefined;
    // Whether Flux ever gets past it: only when the CRD's installer can run while X keeps failing.
    const deadlock = pKs === x || (pKs !== undefined && blockedBy(pKs, x, deps));
    if (pKs === x) {
      message = `${applied.kind} ${crName} needs a CRD installed by ${p.description}, which this same Kustomization ${xLabel} applies: Flux applies the custom resource before helm-controller installs the chart, and the dry-run fails with ${noMatch} on every retry, so the chart is never installed. Move the custom resources to a Kustomization that dependsOn ${xLabel}, and give ${xLabel} \`wait: true\`.`;
    } else {
      const helm = p.via === 'helm' ? `, and give ${pLabel} \`wait: true\` so the chart's CRDs exist before ${xLabel} runs` : '';
      const outcome = deadlock
        ? `Its CRD is installed only after ${xLabel} is ready (${pLabel} is applied by or waits for ${xLabel}), so the dry-run fails with ${noMatch} on every retry and the cluster never converges.`
        : `On a fresh cluster the dry-run fails with ${noMatch} and ${xLabel} stays not ready until a retry after ${pLabel} has installed the CRD.`;
      message = `${applied.kind} ${crName} is applied by Kustomization ${xLabel}, but its CRD comes from ${p.description} applied by Kustomization ${pLabel}, which ${xLabel} does not depend on. ${outcome} Add dependsOn '${pLabel}' to ${xLabel}${helm}.`;
      if (pKs) {
        const xDoc = x.applied.object.doc;
        fix = {
          kind: 'add-depends-on',
          file: xDoc.file.path,
          docIndex: xDoc.index,
          name: pKs.applied.name,
          namespace: pKs.applied.namespace === x.applied.namespace ? undefined : pKs.applied.namespace,
        };
      }
    }
    const related = [
      ...ctx.related(p.doc, ['metadata', 'name'], p.description),
      ...ctx.related(x.applied.object.doc, ['metadata', 'name'], `Kustomization ${xLabel} applies the custom resource`),
      ...(pKs && pKs !== x ? ctx.related(pKs.applied.object.doc, ['metadata', 'name'], `Kustomization ${pLabel} provides the CRD`) : []),
    ];
    ctx.report('crd-order', doc, ['kind'], message, { related, fix, severity: deadlock ? 'error' : 'warning' });
  }

  for (const { x, p, kinds } of noWait.values()) {
    const pKs = p.ks!;
    const hr = p.helmRelease!;
    const xLabel = `${x.applied.namespace}/${x.applied.name}`;
    const pLabel = `${pKs.applied.namespace}/${pKs.applied.name}`;
    const hrLabel = `${hr.applied.namespace}/${hr.applied.name}`;
    const xDoc = x.applied.object.doc;
    const direct = x.dependsOn.find((r) => ctx.substituteFor(x.applied.appliedBy, r.name) === pKs.applied.name);
    const pDoc = pKs.applied.object.doc;
    ctx.report(
      'crd-order-no-wait',
      xDoc,
      direct ? [...direct.path, 'name'] : ['metadata', 'name'],
      `${xLabel} applies ${[...kinds].sort().join(', ')}, whose CRDs HelmRelease ${hrLabel} installs. ${xLabel} depends on ${pLabel}, but ${pLabel} has neither \`wait: true\` nor a \`healthChecks\` entry for the HelmRelease, so it is ready as soon as the HelmRelease object is applied, before the chart's CRDs exist, and ${xLabel} may fail with "no matches for kind". Add \`wait: true\` (or a healthCheck) to ${pLabel}.`,
      {
        related: [
          ...ctx.related(pDoc, ['spec'], `Kustomization ${pLabel} applies the HelmRelease without waiting`),
          ...ctx.related(hr.applied.object.doc, ['metadata', 'name'], `HelmRelease ${hrLabel} installs the CRDs`),
        ],
        fix: { kind: 'add-wait', file: pDoc.file.path, docIndex: pDoc.index, helmRelease: { name: hr.applied.name, namespace: hr.applied.namespace ?? '' } },
      },
    );
  }
}

/**
 * Whether content from outside the workspace is applied before X: by X, by what applies X, or by
 * what X depends on (transitively) and the Kustomizations that applies.
 */
function opaqueBefore(deps: (ks: KustomizationNode) => Set<KustomizationNode>): (x: KustomizationNode) => boolean {
  const own = (k: KustomizationNode) => k.source.kind !== 'view' || k.remoteResources.length > 0;
  const subtree = new Map<KustomizationNode, boolean>();
  const hidden = (k: KustomizationNode): boolean => {
    let v = subtree.get(k);
    if (v !== undefined) return v;
    subtree.set(k, false); // a cycle of applies adds nothing
    v = own(k) || k.children.some((c) => c !== k && hidden(c));
    subtree.set(k, v);
    return v;
  };
  return (x) => {
    if (own(x)) return true;
    for (let a = x.applied.appliedBy; a; a = a.applied.appliedBy) if (own(a)) return true;
    // A dependency that applies X (the cluster's root, say) counts for its own content only: the rest
    // of its tree is no more before X than X's siblings are.
    for (const d of deps(x)) if (appliesTransitively(d, x) ? own(d) : hidden(d)) return true;
    return false;
  };
}

/**
 * Whether `installer` cannot run until `x` is ready: `x` applies it (transitively), or it or one of
 * its appliers depends (transitively) on `x`. Then a custom resource of `x` that needs the
 * installer's CRD fails `x` forever.
 */
function blockedBy(installer: KustomizationNode, x: KustomizationNode, deps: (ks: KustomizationNode) => Set<KustomizationNode>): boolean {
  for (let k: KustomizationNode | undefined = installer; k; k = k.applied.appliedBy) {
    if (k === x || deps(k).has(x)) return true;
  }
  return false;
}

function appliesTransitively(ancestor: KustomizationNode, ks: KustomizationNode): boolean {
  for (let k = ks.applied.appliedBy; k; k = k.applied.appliedBy) if (k === ancestor) return true;
  return false;
}

/** Whether a Kustomization waits for the provider's HelmRelease to be ready. */
function waitsFor(ks: KustomizationNode, p: CrdProvider): boolean {
  const spec = asRecord(ks.applied.object.body.spec) ?? {};
  if (spec.wait === true) return true;
  return asArray(spec.healthChecks).some((h) => {
    const hc = asRecord(h);
    if (!hc || asString(hc.kind) !== 'HelmRelease' || asString(hc.name) !== p.applied.name) return false;
    const ns = asString(hc.namespace);
    return !ns || ns === p.applied.namespace;
  });
}

/** Transitive `dependsOn` of each Kustomization, resolved in its own placement. */
function dependencyClosure(ctx: CheckContext, cluster: ClusterModel): (ks: KustomizationNode) => Set<KustomizationNode> {
  const index = ctx.fluxIndex(cluster);
  const direct = new Map<KustomizationNode, KustomizationNode[]>();
  for (const ks of cluster.kustomizations) {
    const where = ctx.placement(ks.applied);
    const list: KustomizationNode[] = [];
    for (const ref of ks.dependsOn) {
      const name = ctx.substituteFor(ks.applied.appliedBy, ref.name);
      const namespace = ctx.substituteFor(ks.applied.appliedBy, ref.namespace);
      if (name === undefined || namespace === undefined) continue;
      for (const a of index.get(`${where}#Kustomization/${namespace}/${name}`) ?? []) {
        if (a.flux?.kind === 'Kustomization') list.push(a.flux);
      }
    }
    direct.set(ks, list);
  }
  const memo = new Map<KustomizationNode, Set<KustomizationNode>>();
  return (start) => {
    const cached = memo.get(start);
    if (cached) return cached;
    const seen = new Set<KustomizationNode>();
    const stack = [...(direct.get(start) ?? [])];
    while (stack.length) {
      const k = stack.pop()!;
      if (seen.has(k)) continue;
      seen.add(k);
      const done = memo.get(k);
      if (done) for (const d of done) seen.add(d);
      else stack.push(...(direct.get(k) ?? []));
    }
    memo.set(start, seen);
    return seen;
  };
}
