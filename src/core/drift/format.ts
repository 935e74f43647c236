/** Text and JSON renderings of a drift report (the CLI output; the editor shows the same YAML). */
import { createTwoFilesPatch } from 'diff';
import { formatPointer } from './jsonPointer';
import { terminalText } from '../escape/terminal';
import { yamlDocument } from '../escape/yaml';
import type { KubeJson } from '../kubeJson';
import { counts, type DriftEntry, type DriftReport } from './types';

/** YAML of an object for showing (no control character raw, no line starting with `::`). */
export function toYaml(obj: KubeJson | undefined): string {
  return obj ? yamlDocument(obj) : '';
}

/** Unified diff live → desired of one entry ('' when there is nothing to compare). */
export function entryDiff(e: DriftEntry, context = 3): string {
  if (!e.live && !e.desired) return '';
  const patch = createTwoFilesPatch(`live/${terminalText(e.subject)}`, `desired/${terminalText(e.subject)}`, toYaml(e.live), toYaml(e.desired), undefined, undefined, { context });
  // Drop the "====" banner line createTwoFilesPatch starts with.
  return patch.split('\n').filter((l, i) => !(i === 0 && l.startsWith('='))).join('\n');
}

const SHOWN: Record<string, boolean> = { created: true, drifted: true, deleted: true, skipped: true, error: true, cancelled: false, unchanged: false };

/** flux diff's lines (`► Kind/namespace/name drifted`), a diff under each drifted object, errors with their message; terminal text. */
export function reportText(report: DriftReport, opts: { diffs?: boolean } = {}): string {
  const out: string[] = [];
  for (const e of report.entries) {
    if (!SHOWN[e.verdict]) continue;
    if (e.verdict === 'error') {
      out.push(`✗ ${terminalText(e.reason ?? `${e.subject} error`)}`);
      continue;
    }
    out.push(`► ${terminalText(`${e.subject} ${e.verdict}${e.reason && e.verdict !== 'drifted' ? ` (${e.reason})` : ''}`)}`);
    if (e.verdict === 'drifted' && opts.diffs !== false) {
      const d = entryDiff(e);
      if (d) out.push(indent(d.trimEnd()));
    }
  }
  const c = counts(report.entries);
  if (report.cancelled) out.push(`⚠ cancelled: ${c.cancelled} object(s) not checked`);
  for (const n of report.notes) out.push(`ℹ ${terminalText(n)}`);
  out.push(terminalText(summaryLine(report)));
  return out.join('\n') + '\n';
}

export function summaryLine(report: DriftReport): string {
  const c = counts(report.entries);
  const parts = (['drifted', 'created', 'deleted', 'error', 'skipped', 'unchanged', 'cancelled'] as const)
    .filter((v) => c[v] > 0)
    .map((v) => `${c[v]} ${v}`);
  const what = report.mode === 'helm-desired' ? 'desired vs deployed' : 'drift';
  return `${what} of ${report.target.kind} ${report.target.namespace}/${report.target.name}: ${parts.join(', ') || 'no objects'}`;
}

/** CodeLens text: `drift: 2 drifted, 1 deleted` (or `drift: none`). */
export function lensSummary(report: DriftReport): string {
  const c = counts(report.entries);
  const parts = (['drifted', 'created', 'deleted', 'error', 'cancelled'] as const).filter((v) => c[v] > 0).map((v) => `${c[v]} ${v}`);
  return `drift: ${parts.join(', ') || 'none'}`;
}

export function reportJson(report: DriftReport): unknown {
  return {
    target: report.target,
    mode: report.mode,
    cancelled: report.cancelled,
    counts: counts(report.entries),
    requests: report.requests,
    notes: report.notes,
    entries: report.entries.map((e) => ({
      subject: e.subject,
      apiVersion: e.id.apiVersion,
      kind: e.id.kind,
      name: e.id.name,
      ...(e.id.namespace ? { namespace: e.id.namespace } : {}),
      verdict: e.verdict,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.changes.length
        ? { changes: e.changes.map((c) => ({ path: formatPointer(c.path), op: c.op, ...('live' in c ? { live: c.live } : {}), ...('desired' in c ? { desired: c.desired } : {}) })) }
        : {}),
      ...(e.verdict === 'drifted' ? { diff: entryDiff(e) } : {}),
    })),
  };
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => '  ' + l)
    .join('\n');
}
