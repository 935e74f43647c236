/**
 * helm-values-invalid / helm-render-failed: what helm-controller does with a HelmRelease whose
 * chart is at hand (its render, core/helm/install.ts). Values its chart's values.schema.json
 * refuses fail the release before anything is installed; each refused value is reported at its
 * own line of `spec.values` (or at `spec.valuesFrom` when it comes from there). Any other failure
 * of helm's render is reported once, at the chart. A render that could not see all its values (a
 * valuesFrom object outside the workspace, masked Secret values) may fail where the cluster's does
 * not: it is a warning then, saying so.
 */
import type { HelmReleaseNode } from '../model/graph';
import type { ValuesViolation } from '../helm/install';
import { asRecord } from '../model/objects';
import { MASK } from '../flux/mask';
import { getOwn } from '../safeRecord';
import type { PathSegment } from '../yaml/document';
import type { CheckContext } from './context';
import { findingMessage } from './message';

/** A path one step past a node: rangeAt resolves it to the node's key (`chart:`, not its whole block). */
const KEY_OF = (path: PathSegment[]): PathSegment[] => [...path, '\u0000'];

/** Lines of helm's own error kept in a finding: the start says what failed, the rest repeats it. */
const MAX_ERROR_LINES = 20;

export function checkHelmReleases(ctx: CheckContext): void {
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
    // The value in spec.values, or where a missing (required) key would go: the nearest key it has.
    at = ['spec', 'values', ...inline.segments];
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
