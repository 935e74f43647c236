import { crdGroupsOfUrl } from '../bootstrap/crdBundles';
import type { AppliedObject, ClusterModel, KustomizationNode } from '../model/graph';
import { groupOf } from '../kinds';
import type { CheckContext } from './context';
import { Readiness, type Guarantees } from './readiness';
import type { FixHint } from './types';
import { crdProviders, providersFor, type CrdProvider } from './crdProviders';
import { preinstalledCrdGroups } from '../bootstrap/index';

/**
 * `crd-order` and `crd-order-no-wait`. kustomize-controller dry-runs everything a Kustomization X
 * applies; a custom resource whose CRD does not exist yet fails it with `no matches for kind`. Within
 * one Kustomization Flux applies CRDs first, so the CRD must come from X, from what applies X, or from
 * something Flux has made ready before X runs (readiness.ts: X's and its parents' dependsOn, what
 * those wait for and health-check); a CRD installed by a HelmRelease needs that HelmRelease to be
 * Ready before X runs. An error when the cluster never converges (the installer runs only after X is
 * ready, or in X itself); a warning when X only fails until a retry after the installer has run, as
 * on every fresh cluster.
 */
export function checkCrdOrder(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) checkCluster(ctx, cluster);
}

function checkCluster(ctx: CheckContext, cluster: ClusterModel): void {
  const providers = crdProviders(ctx, cluster);
  if (providers.size === 0) return;
  const readiness = new Readiness(ctx, cluster);
  const opaque = opaqueBefore();
  const preinstalled = preinstalledCrdGroups(ctx.model, cluster);
  const noWait = new Map<string, { x: KustomizationNode; p: CrdProvider; kinds: Set<string> }>();
  const found: Finding[] = [];
  for (const applied of cluster.objects) {
    const x = applied.appliedBy;
    if (!x || applied.object.fluxKind || applied.kind === 'CustomResourceDefinition') continue;
    const group = groupOf(applied.apiVersion);
    if (!group.includes('.')) continue;
    // Installed by the bootstrap (a helmfile, a task runner's kubectl apply), on the cluster Flux runs in.
    if (preinstalled.has(group) && ctx.placement(applied) === cluster.name) continue;
    const candidates = providersFor(providers, ctx.placement(applied), group, applied.kind);
    if (candidates.length === 0) continue;
    const before = readiness.beforeApply(x);
    // Past the check's work limit nothing is known: no finding rather than a guess.
    if (!before) continue;
    let unwaited: CrdProvider | undefined;
    // Something that has applied before X applied a resource of this kind: its CRD was there.
    if (before.kinds.has(`${ctx.placement(applied)}#${group}/${applied.kind}`)) continue;
    if (candidates.some((p) => ordered(p, x, before))) continue;
    for (const p of candidates) if (p.helmRelease && p.ks && p.ks !== x && before.ready.has(p.ks)) unwaited ??= p;
    // Content the workspace cannot see (another repository, a remote base) is applied before X:
    // it may well install the CRD (a CRDs-only Kustomization of an upstream repository is common).
    if (opaque(x, before, group)) continue;
    if (unwaited) {
      const key = `${x.applied.object.id}|${unwaited.ks!.applied.object.id}|${unwaited.applied.object.id}`;
      const entry = noWait.get(key) ?? { x, p: unwaited, kinds: new Set<string>() };
      entry.kinds.add(applied.kind);
      noWait.set(key, entry);
      continue;
    }
    const p = candidates.find((c) => c.ks && c.ks !== x) ?? candidates[0];
    found.push(outcomeOf(readiness, applied, x, p, before));
  }
  spreadNeverApplied(found);
  for (const f of found) reportOrder(ctx, f);
  for (const { x, p, kinds } of noWait.values()) reportNoWait(ctx, x, p, kinds);
}

/** A custom resource applied before its CRD, and what Flux then does. */
interface Finding {
  readonly applied: AppliedObject;
  readonly x: KustomizationNode;
  readonly p: CrdProvider;
  /** What holds when X applies. */
  readonly before: Guarantees;
  /** What must have happened for the CRD to exist (undefined past the work limit). */
  readonly required: Guarantees | undefined;
  /**
   * `same`: the installer is in X's own apply; `waits`: it runs only after X; `never`: it is applied by
   * a Kustomization whose dry-run never passes; `parent`: it comes with X from X's parent; `retry`:
   * X passes on a retry once the installer has run.
   */
  outcome: 'same' | 'waits' | 'never' | 'parent' | 'retry';
  /** For `never`: the Kustomization that never applies. */
  neverApplied?: KustomizationNode;
  /** Whether the installer's Kustomization waits for its HelmRelease once it is a dependency. */
  readonly waited: boolean;
}

function outcomeOf(readiness: Readiness, applied: AppliedObject, x: KustomizationNode, p: CrdProvider, before: Guarantees): Finding {
  const pKs = p.ks;
  // Whether Flux ever gets past it: only when the CRD's installer can run while X keeps failing.
  const required = p.helmRelease ? readiness.toInstall(p.helmRelease) : pKs && readiness.toApply(pKs);
  const outcome = pKs === x ? 'same' : required?.applied.has(x) ? 'waits' : pKs && before.applied.has(pKs) ? 'parent' : 'retry';
  const waited = p.helmRelease && pKs ? !!readiness.whenReady(pKs)?.releases.has(p.helmRelease) : true;
  return { applied, x, p, before, required, outcome, waited };
}

/**
 * Rounds of spreading: a chain of Kustomizations each waiting for a CRD from the next one's that never
 * applies is this long at most before the rest stays a warning (real chains are one or two long).
 */
const MAX_NEVER_ROUNDS = 100;

/**
 * A Kustomization whose dry-run fails on every retry applies nothing, so CRDs its HelmReleases would
 * install never come: what waits for them never converges either. Unless X itself comes after that
 * Kustomization (it applies X, or X depends on it): then X never runs at all, which is that
 * Kustomization's finding, not one more here.
 */
function spreadNeverApplied(found: Finding[]): void {
  const never = new Set(found.filter((f) => f.outcome === 'same' || f.outcome === 'waits').map((f) => f.x));
  for (let round = 0, changed = true; changed && round < MAX_NEVER_ROUNDS; round++) {
    changed = false;
    for (const f of found) {
      if (f.outcome !== 'retry' || !f.required) continue;
      for (const k of f.required.applied) {
        if (!never.has(k) || f.before.applied.has(k)) continue;
        f.outcome = 'never';
        f.neverApplied = k;
        never.add(f.x);
        changed = true;
        break;
      }
    }
  }
}

/** Whether Flux has made the provider's CRD exist by the time X applies. */
function ordered(p: CrdProvider, x: KustomizationNode, before: Guarantees): boolean {
  if (p.preinstalled) return true;
  // Flux applies a Kustomization's CRDs before the rest of it, so a CRD applied by X itself, by what
  // applied X, or by anything that has applied before X exists.
  if (p.via === 'crd') return (p.ks !== undefined && (p.ks === x || before.applied.has(p.ks))) || before.crds.has(p.applied.name);
  if (p.helmRelease && before.releases.has(p.helmRelease)) return true;
  // A health check on one CRD of the group: a chart installs its CRDs together.
  for (const name of before.crds) if (name.slice(name.indexOf('.') + 1) === p.group) return true;
  return false;
}

function reportOrder(ctx: CheckContext, f: Finding): void {
  const { applied, x, p } = f;
  const pKs = p.ks;
  const xLabel = label(x);
  const pLabel = pKs ? label(pKs) : '?';
  const crName = ctx.identity(applied)?.name ?? applied.name;
  const installer = p.helmRelease ? `HelmRelease ${label(p.helmRelease)}` : `Kustomization ${pLabel}`;
  // The first line in three lengths, for long names: in full, without the resource's name, without the installer.
  const needs = (level: number) => `${applied.kind}${level === 0 ? ` ${crName}` : ''} needs CRD ${p.group}${level < 2 ? ` from ${installer}` : ''}`;
  const noMatch = `"no matches for kind \\"${applied.kind}\\" in version \\"${applied.apiVersion}\\""`;
  // The namespace only where the dependsOn entry needs one.
  const entry = pKs && pKs.applied.namespace !== x.applied.namespace ? `${pKs.applied.name} (${pLabel})` : (pKs?.applied.name ?? '?');
  let first: (level: number) => string;
  let detail: string;
  let fix: FixHint | undefined;
  if (f.outcome === 'same') {
    first = (level) => `${needs(level)} in the same Kustomization, which never converges: move it to one that dependsOn ${xLabel}`;
    detail = `${applied.kind} ${crName} needs a CRD installed by ${p.description}, which this same Kustomization ${xLabel} applies: Flux applies the custom resource before helm-controller installs the chart, and the dry-run fails with ${noMatch} on every retry, so the chart is never installed. Move the custom resources to a Kustomization that dependsOn ${xLabel}, and give ${xLabel} \`wait: true\`.`;
  } else if (f.outcome === 'waits') {
    first = (level) => `${needs(level)}, which runs only after ${xLabel} is ready, so it never converges: move it to a Kustomization that dependsOn ${pLabel}`;
    detail = `${applied.kind} ${crName} is applied by Kustomization ${xLabel}, but its CRD comes from ${p.description} applied by Kustomization ${pLabel}. Its CRD is installed only after ${xLabel} is ready (${pLabel} is applied by or waits for ${xLabel}), so the dry-run fails with ${noMatch} on every retry and the cluster never converges. Move the custom resource to a Kustomization that dependsOn ${pLabel}${p.helmRelease ? ', and give that one `wait: true`' : ''}.`;
  } else if (f.outcome === 'parent') {
    const above = x.applied.appliedBy === pKs ? 'parent' : 'ancestor';
    first = (level) => `${needs(level)}, applied by ${above} ${pLabel}: move the HelmRelease to a Kustomization with wait: true, then dependsOn it`;
    detail = `${applied.kind} ${crName} is applied by Kustomization ${xLabel}, which ${pLabel} creates in the same apply as ${p.description}: ${xLabel} runs at once, and on a fresh cluster the dry-run fails with ${noMatch} until a retry after helm-controller has installed the chart. Move the HelmRelease to its own Kustomization with \`wait: true\` and add dependsOn on it to ${xLabel}.`;
  } else {
    const wait = p.helmRelease && !f.waited ? ` and wait: true on ${pKs?.applied.name ?? '?'}` : '';
    const helm = wait ? `, and give ${pLabel} \`wait: true\` so the chart's CRDs exist before ${xLabel} runs` : '';
    const missing = `${applied.kind} ${crName} is applied by Kustomization ${xLabel}, but its CRD comes from ${p.description} applied by Kustomization ${pLabel}, which ${xLabel} does not depend on.`;
    if (f.outcome === 'never') {
      const stuck = label(f.neverApplied!);
      first = (level) => `${needs(level)}: never installed, as ${stuck} never applies; ${level < 2 ? `fix that, then add dependsOn ${entry}` : 'see its crd-order error'}`;
      detail = `${missing} ${stuck} never gets past its own dry-run (its crd-order error), so ${p.description} is never installed and the dry-run of ${xLabel} fails with ${noMatch} on every retry: the cluster never converges. Fix ${stuck} first, then add dependsOn '${pLabel}' to ${xLabel}${helm}.`;
    } else {
      first = (level) => `${needs(level)}: add dependsOn ${entry}${level === 0 ? ` to ${xLabel}` : ''}${wait}`;
      detail = `${missing} On a fresh cluster the dry-run fails with ${noMatch} and ${xLabel} stays not ready until a retry after ${pLabel} has installed the CRD. Add dependsOn '${pLabel}' to ${xLabel}${helm}.`;
    }
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
  ctx.report('crd-order', applied.object.doc, ['kind'], `${firstLine([first(0), first(1), first(2)])}\n${detail}`, { related, fix, severity: f.outcome === 'parent' || f.outcome === 'retry' ? 'warning' : 'error' });
}

function reportNoWait(ctx: CheckContext, x: KustomizationNode, p: CrdProvider, kinds: Set<string>): void {
  const pKs = p.ks!;
  const hr = p.helmRelease!;
  const xLabel = label(x);
  const pLabel = label(pKs);
  const hrLabel = label(hr);
  const xDoc = x.applied.object.doc;
  const direct = x.dependsOn.find((r) => ctx.substituteFor(x.applied.appliedBy, r.name) === pKs.applied.name);
  const pDoc = pKs.applied.object.doc;
  const first = firstLine([
    `${xLabel} can run before HelmRelease ${hrLabel} has installed its CRDs: add wait: true or a healthCheck on HelmRelease ${hrLabel} to ${pLabel}`,
    `${xLabel} can run before HelmRelease ${hrLabel} has installed its CRDs: add wait: true to ${pLabel}`,
  ]);
  ctx.report(
    'crd-order-no-wait',
    xDoc,
    direct ? [...direct.path, 'name'] : ['metadata', 'name'],
    `${first}\n${xLabel} applies ${[...kinds].sort().join(', ')}, whose CRDs HelmRelease ${hrLabel} installs. ${pLabel} is ready before ${xLabel} runs, but ${pLabel} has neither \`wait: true\` nor a \`healthChecks\` entry for the HelmRelease, so it is ready as soon as the HelmRelease object is applied, before the chart's CRDs exist, and ${xLabel} may fail with "no matches for kind" until a retry. Add \`wait: true\` (or a healthCheck) to ${pLabel}.`,
    {
      related: [
        ...ctx.related(pDoc, ['spec'], `Kustomization ${pLabel} applies the HelmRelease without waiting`),
        ...ctx.related(hr.applied.object.doc, ['metadata', 'name'], `HelmRelease ${hrLabel} installs the CRDs`),
      ],
      fix: { kind: 'add-wait', file: pDoc.file.path, docIndex: pDoc.index, helmRelease: { name: hr.applied.name, namespace: hr.applied.namespace ?? '' } },
    },
  );
}

/** A message's first line: the first candidate under 160 characters, else the last one cut. */
function firstLine(candidates: string[]): string {
  for (const c of candidates) if (c.length < MAX_FIRST_LINE) return c;
  const last = candidates[candidates.length - 1];
  return `${last.slice(0, MAX_FIRST_LINE - 2)}…`;
}

const MAX_FIRST_LINE = 160;

function label(node: { applied: AppliedObject }): string {
  return `${node.applied.namespace}/${node.applied.name}`;
}

/**
 * Whether content from outside the workspace is applied before X: by X, by what has applied before X
 * (what applies X among it), or by what is ready before X and the Kustomizations that applies.
 */
function opaqueBefore(): (x: KustomizationNode, before: Guarantees, group: string) => boolean {
  // A remote resource whose URL names its CRD groups (gateway-api's standard-install.yaml, a
  // `<group>_<plural>.yaml` file) hides only those groups; any other remote resource may hold anything.
  const own = (k: KustomizationNode, group: string) =>
    k.source.kind !== 'view' ||
    k.remoteResources.some((url) => {
      const groups = crdGroupsOfUrl(url);
      return groups.length === 0 || groups.includes(group);
    });
  const subtree = new Map<string, boolean>();
  const hidden = (k: KustomizationNode, group: string): boolean => {
    const key = `${k.applied.object.id}|${k.applied.cluster.name}|${group}`;
    let v = subtree.get(key);
    if (v !== undefined) return v;
    subtree.set(key, false); // a cycle of applies adds nothing
    v = own(k, group) || k.children.some((c) => c !== k && hidden(c, group));
    subtree.set(key, v);
    return v;
  };
  return (x, before, group) => {
    if (own(x, group)) return true;
    for (const a of before.applied) if (own(a, group)) return true;
    // A ready Kustomization that applies X (the cluster's root, say) counts for its own content only:
    // the rest of its tree is no more before X than X's siblings are.
    for (const d of before.ready) if (!appliesTransitively(d, x) && hidden(d, group)) return true;
    return false;
  };
}

function appliesTransitively(ancestor: KustomizationNode, ks: KustomizationNode): boolean {
  for (let k = ks.applied.appliedBy; k; k = k.applied.appliedBy) if (k === ancestor) return true;
  return false;
}
