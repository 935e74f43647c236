/**
 * helm-values-invalid / helm-render-failed: what helm-controller does with a HelmRelease whose
 * chart is at hand (its render, core/helm/install.ts). Values its chart's values.schema.json
 * refuses fail the release before anything is installed; each refused value is reported at its
 * own line of `spec.values` (or at `spec.valuesFrom` when it comes from there). Any other failure
 * of helm's render is reported once, at the chart. A render that could not see all its values (a
 * valuesFrom object outside the workspace, masked Secret values) may fail where the cluster's does
 * not: it is a warning then, saying so.
 */
import type { AppliedObject, ClusterModel, HelmReleaseNode } from '../model/graph';
import type { ValuesViolation } from '../helm/install';
import type { BuiltObject } from '../model/rendered';
import { asRecord, asString } from '../model/objects';
import { yieldsToOthers } from '../flux/ssaPolicy';
import { MASK } from '../flux/mask';
import { getOwn } from '../safeRecord';
import type { PathSegment } from '../yaml/document';
import type { CheckContext } from './context';
import { findingMessage } from './message';
import { closestNames } from './similar';

/** A path one step past a node: rangeAt resolves it to the node's key (`chart:`, not its whole block). */
const KEY_OF = (path: PathSegment[]): PathSegment[] => [...path, '\u0000'];

/** Lines of helm's own error kept in a finding: the start says what failed, the rest repeats it. */
const MAX_ERROR_LINES = 20;

export function checkHelmReleases(ctx: CheckContext): void {
  checkRenders(ctx);
  checkUnread(ctx);
  for (const cluster of ctx.model.clusters) checkConflicts(ctx, cluster);
}

function checkRenders(ctx: CheckContext): void {
  const seen = new Set<HelmReleaseNode['applied']['object']>();
  for (const cluster of ctx.model.clusters) {
    for (const hr of cluster.helmReleases) {
      const install = hr.install;
      if (!install || install.ok || !install.atHand) continue;
      // One HelmRelease document placed in several clusters renders alike: report it once.
      if (seen.has(hr.applied.object)) continue;
      seen.add(hr.applied.object);
      const label = `HelmRelease ${hr.applied.namespace ?? 'default'}/${hr.applied.name}`;
      const incomplete = install.incomplete ?? [];
      const severity = incomplete.length ? 'warning' : 'error';
      const unseen = incomplete.length ? `The render did not see all values, so the cluster's may differ: ${incomplete.join(' ')}` : undefined;
      if (install.violations?.length) {
        // A violation the workspace cannot judge (a masked or substituted value) is left out.
        for (const v of install.violations) reportViolation(ctx, hr, label, v, severity, unseen);
        continue;
      }
      const error = errorOf(install.message, label);
      ctx.report(
        'helm-render-failed',
        hr.applied.object.doc,
        KEY_OF(['spec', 'chart']),
        findingMessage(`${label} fails to render: ${error.split('\n')[0]}`, `helm-controller fails the release with: ${truncateLines(error)}`, unseen),
        { severity },
      );
    }
  }
}

/** Reports one refused value, unless it is not the workspace's to judge. */
function reportViolation(ctx: CheckContext, hr: HelmReleaseNode, label: string, v: ValuesViolation, severity: 'error' | 'warning', unseen: string | undefined): void {
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  // A masked Secret value or an unsubstituted variable is not what the cluster sees.
  if (typeof v.value === 'string' && (v.value === MASK || v.value.includes('${'))) return;
  const inline = valueAt(spec.values, v.path);
  const where = v.path.length ? `values.${v.path.join('.')}` : 'values';
  const valuesFrom = Array.isArray(spec.valuesFrom) && spec.valuesFrom.length > 0;
  // spec.values is merged over valuesFrom, except a targetPath entry, which sets its path after it.
  const inlineHolds = inline.found && (v.value === undefined || inline.value === v.value);
  let at: PathSegment[];
  let from = '';
  if (spec.values !== undefined && (inlineHolds || (!inline.found && !valuesFrom))) {
    // The value in spec.values, or where a missing (required) key would go: the nearest key it has;
    // for keys the schema does not allow, the first of them.
    at = ['spec', 'values', ...inline.segments];
    const extra = /^additional propert(?:y|ies) '([^']+)'/.exec(v.message)?.[1];
    if (inline.found && extra !== undefined && asRecord(inline.value) && Object.prototype.hasOwnProperty.call(asRecord(inline.value), extra)) at = KEY_OF([...at, extra]);
  } else if (valuesFrom) {
    at = KEY_OF(['spec', 'valuesFrom']);
    from = ' (from valuesFrom)';
  } else {
    at = KEY_OF(['spec', 'chart']);
    from = " (the chart's default)";
  }
  ctx.report(
    'helm-values-invalid',
    hr.applied.object.doc,
    at,
    findingMessage(
      `${label}: ${where}${from}: ${v.message}`,
      `The ${v.chart} chart's values.schema.json refuses this value, so helm-controller fails the release ("values don't meet the specifications of the schema(s)") and installs nothing.`,
      unseen,
    ),
    { severity },
  );
}

/**
 * How far `path` goes into `values`: the YAML path segments it matched (list indexes as numbers),
 * and the value at its end when it matched all of it.
 */
function valueAt(values: unknown, path: readonly string[]): { found: boolean; segments: PathSegment[]; value?: unknown } {
  let node = values;
  const segments: PathSegment[] = [];
  for (const key of path) {
    let next: unknown;
    let seg: PathSegment = key;
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      seg = Number(key);
      next = node[seg];
    } else {
      const map = asRecord(node);
      next = map ? getOwn(map, key) : undefined;
    }
    if (next === undefined) return { found: false, segments };
    segments.push(seg);
    node = next;
  }
  return { found: values !== undefined, segments, value: node };
}

/** helm's error without the label the render put before it. */
function errorOf(message: string, label: string): string {
  const own = message.startsWith(`${label}: `) ? message.slice(label.length + 2) : message;
  return own.replace(/^helm template failed: /, '');
}

function truncateLines(text: string): string {
  const lines = text.split('\n');
  return lines.length <= MAX_ERROR_LINES ? text : `${lines.slice(0, MAX_ERROR_LINES).join('\n')}\n… (${lines.length - MAX_ERROR_LINES} more lines)`;
}

/**
 * duplicate-object over what charts install: an object a HelmRelease's chart renders that a
 * Kustomization of the same cluster applies too, or another HelmRelease's chart renders.
 * helm-controller takes ownership of an object that exists (unless install.disableTakeOwnership,
 * then the install fails with "invalid ownership metadata"), and the two then overwrite each
 * other's copy at every reconcile; either's uninstall or prune deletes it. The chart's
 * `crds/` folder is left out: helm skips a CRD of that folder that exists. A Kustomization's copy
 * that carries the release's ownership (meta.helm.sh/release-name and -namespace) is adopted, and
 * one marked `kustomize.toolkit.fluxcd.io/ssa: IfNotPresent` or `Ignore` fights no one.
 */
function checkConflicts(ctx: CheckContext, cluster: ClusterModel): void {
  const rendered = new Map<string, { hr: HelmReleaseNode; object: BuiltObject }[]>();
  for (const hr of cluster.helmReleases) {
    const install = hr.install;
    if (!install?.ok || asRecord(hr.applied.object.body.spec)?.kubeConfig) continue;
    const where = ctx.placement(hr.applied);
    for (const object of install.objects) {
      const key = keyOf(ctx, where, object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name);
      const list = rendered.get(key);
      // One HelmRelease reached twice (applied by two Kustomizations: its own duplicate-object) is one release.
      const same = (e: { hr: HelmReleaseNode }) => e.hr.applied.name === hr.applied.name && e.hr.applied.namespace === hr.applied.namespace;
      if (list) {
        if (!list.some(same)) list.push({ hr, object });
      } else rendered.set(key, [{ hr, object }]);
    }
  }
  if (!rendered.size) return;
  const applied = new Map<string, AppliedObject[]>();
  for (const ks of cluster.kustomizations) {
    for (const a of ks.applies) {
      const id = ctx.identity(a);
      if (!id) continue;
      const key = keyOf(ctx, ctx.placement(a), a.apiVersion, a.kind, id.namespace, id.name);
      if (!rendered.has(key)) continue;
      const list = applied.get(key);
      if (list) list.push(a);
      else applied.set(key, [a]);
    }
  }
  const reported = new Set<string>();
  for (const [key, charts] of rendered) {
    const objects = (applied.get(key) ?? []).filter((a) => !yieldsToOthers(a.object.body) && !charts.every((c) => ownedBy(a, c.hr)));
    if (charts.length + objects.length < 2) continue;
    const { object } = charts[0];
    const ns = ctx.model.isNamespaced(object.kind, object.apiVersion) ? object.metadata.namespace : undefined;
    const what = `${object.kind} ${ns ? `${ns}/` : ''}${object.metadata.name}`;
    const hrLabel = (hr: HelmReleaseNode) => `HelmRelease ${hr.applied.namespace ?? 'default'}/${hr.applied.name}`;
    const ksLabel = (a: AppliedObject) => `Kustomization ${a.appliedBy!.applied.namespace}/${a.appliedBy!.applied.name}`;
    const others = [...charts.map((c) => hrLabel(c.hr)), ...new Set(objects.map(ksLabel))];
    for (const { hr } of charts) {
      const mine = `${hr.applied.object.doc.file.path}#${hr.applied.object.doc.index}#${key}`;
      if (reported.has(mine)) continue;
      reported.add(mine);
      const rest = others.filter((o) => o !== hrLabel(hr));
      const related = [
        ...objects.flatMap((a) => ctx.related(a.object.doc, ['metadata', 'name'], `also applied here (by ${ksLabel(a)})`)),
        ...charts.filter((c) => c.hr !== hr).flatMap((c) => ctx.related(c.hr.applied.object.doc, ['spec', 'chart'], `${hrLabel(c.hr)}'s chart renders it too`)),
      ];
      ctx.report(
        'duplicate-object',
        hr.applied.object.doc,
        ['spec', 'chart', '\u0000'],
        findingMessage(
          `${what}, which ${hrLabel(hr)}'s chart renders, is also ${objects.length ? 'applied' : 'rendered'} by ${rest.join(', ')} in cluster '${cluster.name}': define it once.`,
          asRecord(asRecord(hr.applied.object.body.spec)?.install)?.disableTakeOwnership === true
            ? 'With install.disableTakeOwnership, helm refuses to install over an object its release does not own ("exists and cannot be imported into the current release: invalid ownership metadata"), so the release fails.'
            : "helm-controller takes ownership of an object that exists (install.disableTakeOwnership is not set), and from then on each overwrites the other's copy at every reconcile; uninstalling the release, or pruning it from the other, deletes it.",
        ),
        { related },
      );
    }
  }
}

function keyOf(ctx: CheckContext, where: string, apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  const group = apiVersion.slice(0, apiVersion.lastIndexOf('/') + 1);
  const ns = ctx.model.isNamespaced(kind, apiVersion) ? (namespace ?? '') : '';
  return `${where}\u0000${group}\u0000${kind}\u0000${ns}\u0000${name}`;
}

/** A Kustomization's copy that the release adopts: helm's ownership annotations name it. */
function ownedBy(a: AppliedObject, hr: HelmReleaseNode): boolean {
  const annotations = asRecord(asRecord(a.object.body.metadata)?.annotations);
  return asString(annotations?.['meta.helm.sh/release-name']) === hr.releaseName && asString(annotations?.['meta.helm.sh/release-namespace']) === hr.targetNamespace;
}

/**
 * helm-values-unread: a top-level key of spec.values that the rendered chart never reads (not in
 * its values.yaml or schema, not a subchart's, named in none of its templates; render/helm.ts).
 * helm accepts it and nothing uses it: most often a typo of a key the chart has.
 */
function checkUnread(ctx: CheckContext): void {
  const seen = new Set<object>();
  for (const cluster of ctx.model.clusters) {
    for (const hr of cluster.helmReleases) {
      const install = hr.install;
      if (!install?.ok || !install.unread || seen.has(hr.applied.object)) continue;
      seen.add(hr.applied.object);
      const chart = `${install.chart.name} ${install.chart.version}`;
      for (const key of install.unread.keys) {
        const near = closestNames(key, [...install.unread.known]);
        ctx.report(
          'helm-values-unread',
          hr.applied.object.doc,
          KEY_OF(['spec', 'values', key]),
          findingMessage(
            `HelmRelease ${hr.applied.namespace ?? 'default'}/${hr.applied.name}: values.${key} is not a value of chart ${chart}, and no template of it reads it${near.length ? `: did you mean '${near[0]}'?` : '.'}`,
            'helm accepts values the chart does not know, and nothing uses them: the setting never takes effect.',
          ),
        );
      }
    }
  }
}
