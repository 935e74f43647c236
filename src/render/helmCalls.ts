/**
 * The render's calls of the helm WebAssembly module (wasm/cmd/helm): by a key naming the chart's
 * files, first without them (the instance may hold the chart loaded), then with them; the files of
 * chart-cache packages read once per digest; and, when helm refuses the values, each refused value
 * where it is (the module's `helm-values`).
 */
import type { ValuesViolation } from '../core/helm/install';
import { asArray, asRecord } from '../core/model/objects';
import type { WasmModule, WasmResult } from '../engine/wasm/host';
import { wasmModule } from '../engine/wasm/pool';
import type { MemFile } from '../engine/wasm/protocol';

/** How the helm module answers a call without files for a chart it does not hold (wasm/cmd/helm/loaded.go). */
const NOT_LOADED = 'gitops-preview: chart not loaded';

/**
 * A helm module call for the chart `args.chartKey` names: first without its files (the instance
 * may hold it loaded), then with them when it does not.
 */
export async function callHelm(op: string, args: { chartKey: string }, files: readonly MemFile[], opts: { timeoutMs: number; signal?: AbortSignal }): Promise<WasmResult> {
  return wasmModule('helm').lease(
    async (instance) => {
      const first = await instance.call(op, args, [], opts);
      if (first.ok || first.kind !== 'failed' || !first.message.startsWith(NOT_LOADED)) return first;
      const r = await instance.call(op, args, files, opts);
      sentCharts(instance).add(args.chartKey);
      return r;
    },
    (instance) => (sentCharts(instance).has(args.chartKey) ? 1 : 0),
  );
}

/**
 * The charts each instance was sent, since it last started: with two instances, a render goes to
 * the one that holds its chart, so each chart is loaded (and its templates parsed) once.
 */
const sent = new WeakMap<WasmModule, { started: number; keys: Set<string> }>();

function sentCharts(instance: WasmModule): Set<string> {
  let s = sent.get(instance);
  if (!s || s.started !== instance.instances) sent.set(instance, (s = { started: instance.instances, keys: new Set() }));
  return s.keys;
}

/** Chart cache packages' files by digest (their content never changes), so a render reads a chart's folder once. */
const chartFilesByDigest = new Map<string, { files: MemFile[]; bytes: number }>();
const MAX_KEPT_CHART_BYTES = 128 * 1024 * 1024;

export function cachedChartFiles(digest: string, read: () => MemFile[]): MemFile[] {
  const kept = chartFilesByDigest.get(digest);
  if (kept) {
    // Most recently used last.
    chartFilesByDigest.delete(digest);
    chartFilesByDigest.set(digest, kept);
    return kept.files;
  }
  const files = read();
  const bytes = files.reduce((n, f) => n + (typeof f.data === 'string' ? Buffer.byteLength(f.data) : f.data.byteLength), 0);
  let total = bytes;
  for (const v of chartFilesByDigest.values()) total += v.bytes;
  for (const [k, v] of chartFilesByDigest) {
    if (total <= MAX_KEPT_CHART_BYTES) break;
    chartFilesByDigest.delete(k);
    total -= v.bytes;
  }
  if (bytes <= MAX_KEPT_CHART_BYTES) chartFilesByDigest.set(digest, { files, bytes });
  return files;
}

/** How helm's values validation failure starts (chartutil, and the helm module's copy of it). */
export const SCHEMA_FAILURE = "values don't meet the specifications of the schema(s)";

/**
 * Each value behind a schema failure, where it is in the merged values (the helm module's
 * `helm-values`: helm's own validator, walked leaf by leaf). Undefined when that answer cannot
 * be had: the failure's message still says it all, only not at each value's line.
 */
export async function valuesViolations(args: { chartKey: string }, files: MemFile[], opts: { timeoutMs: number; signal?: AbortSignal }): Promise<ValuesViolation[] | undefined> {
  const r = await callHelm('helm-values', args, files, opts);
  if (!r.ok) return undefined;
  try {
    const got = asRecord(JSON.parse(r.output))?.violations;
    if (!Array.isArray(got)) return undefined;
    return got.flatMap((v) => {
      const o = asRecord(v);
      const path = asArray(o?.path);
      if (!o || typeof o.chart !== 'string' || typeof o.message !== 'string' || !path.every((p) => typeof p === 'string')) return [];
      const value = ['string', 'number', 'boolean'].includes(typeof o.value) ? { value: o.value as string | number | boolean } : {};
      return [{ path: path as string[], chart: o.chart, message: o.message, ...value }];
    });
  } catch {
    return undefined;
  }
}
