/** Values a HelmRelease sets that its chart never reads (the helm-values-unread finding's input). */
import type { MemFile } from '../engine/wasm/protocol';
import { asArray, asRecord } from '../core/model/objects';
import { parseYaml } from '../core/yaml/document';

/**
 * Top-level keys of spec.values the chart never reads: not in its values.yaml, not a subchart's
 * (or `global`), not in its schema's top-level properties, and named in none of its templates
 * (the chart's and its subcharts'). helm accepts them and nothing uses them: a typo, most often.
 * A chart that passes its whole values on (`toYaml .Values`, `.Values | …`) may read any key:
 * nothing is said for it. `known` is what the chart does know at the top (for a suggestion).
 */
export function unreadTopLevelValues(inline: Record<string, unknown>, files: readonly MemFile[]): { keys: string[]; known: string[] } {
  const keys = Object.keys(inline).filter((k) => k !== 'global');
  if (!keys.length) return { keys: [], known: [] };
  const chart = chartKnowledge(files);
  if (!chart) return { keys: [], known: [] };
  if (chart.readsAll) return { keys: [], known: [...chart.known] };
  const known = new Set(chart.known);
  const unread = keys.filter((k) => {
    if (known.has(k)) return false;
    const named = new RegExp(`(?<![A-Za-z0-9_])${k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`);
    return !chart.templates.some((t) => named.test(t));
  });
  return { keys: unread, known: [...chart.known] };
}

/** What a chart knows at the top of its values, and its templates' text. */
interface ChartKnowledge {
  known: string[];
  /** A template passes its whole values on: any key may be read. */
  readsAll: boolean;
  templates: string[];
}

/**
 * By chart file set: a chart-cache package's files are one array per digest (cachedChartFiles),
 * so its values.yaml is parsed and its templates decoded once, not on every render of it.
 */
const knowledge = new WeakMap<readonly MemFile[], ChartKnowledge | undefined>();

function chartKnowledge(files: readonly MemFile[]): ChartKnowledge | undefined {
  if (knowledge.has(files)) return knowledge.get(files);
  const k = readChartKnowledge(files);
  knowledge.set(files, k);
  return k;
}

function readChartKnowledge(files: readonly MemFile[]): ChartKnowledge | undefined {
  const text = (f: MemFile) => (typeof f.data === 'string' ? f.data : Buffer.from(f.data).toString('utf8'));
  const known = new Set<string>(['global']);
  const valuesFile = files.find((f) => f.path === 'values.yaml');
  try {
    for (const k of Object.keys(asRecord(valuesFile ? parseYaml(text(valuesFile)) : {}) ?? {})) known.add(k);
    const schema = files.find((f) => f.path === 'values.schema.json');
    for (const k of Object.keys(asRecord(asRecord(schema ? JSON.parse(text(schema)) : {})?.properties) ?? {})) known.add(k);
    const chart = asRecord(parseYaml(text(files.find((f) => f.path === 'Chart.yaml') ?? { path: '', data: '' })));
    for (const d of asArray(chart?.dependencies)) {
      const dep = asRecord(d);
      for (const n of [dep?.name, dep?.alias]) if (typeof n === 'string') known.add(n);
    }
  } catch {
    return undefined;
  }
  for (const f of files) {
    const sub = /^charts\/([^/]+)\//.exec(f.path);
    if (sub) known.add(sub[1]);
  }
  const templates = files.filter((f) => /(^|\/)templates\//.test(f.path)).map(text);
  const readsAll = templates.some((t) => /\.Values\s*(\||\}\}|\)|$)|toYaml\s+\.Values(?![.\w])|\$\.Values\s*(\||\}\}|\))/m.test(t));
  return { known: [...known], readsAll, templates: readsAll ? [] : templates };
}
