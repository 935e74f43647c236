/**
 * Child process of build.bench.ts, so each measurement starts cold (fresh process, WebAssembly
 * module not compiled yet). Prints one JSON line.
 *
 *   node --import tsx --expose-gc bench/buildHost.ts cold '{"root":…,"cacheDir":…}'   every Kustomization rendered once through the engine
 *   node --import tsx --expose-gc bench/buildHost.ts memory '{"root":…}'              the engine's memory after opening a repository
 */
import { createHash } from 'node:crypto';
import { nodeEngine } from '../src/engine/node';
import { PersistentBuildCache } from '../src/engine/persistentBuildCache';
import { targetNodes } from '../src/engine/targets';
import { kustomizeInput } from '../src/render/kustomize';
import type { KustomizationNode } from '../src/core/model/graph';
import { reportAndExit } from './childProcess';
import { DEFAULT_FIRST_IDLE_MS, wasmModule } from '../src/engine/wasm/pool';

export interface ColdResult {
  openMs: number;
  /** From the start until the tree's roots were answered. */
  treeMs: number;
  builds: { key: string; ms: number; ok: boolean; error?: string }[];
  /** From the start until every Kustomization was rendered. */
  totalMs: number;
  maxRssMb: number;
  /** Keys written to the cache (when a cacheDir was given). */
  cached: string[];
}

export interface MemoryResult {
  /** This process before the engine was loaded. */
  baselineRssMb: number;
  openMs: number;
  heapUsedMb: number;
  rssMb: number;
  maxRssMb: number;
  externalMb: number;
  /** Linear memory of the running kustomize instances. */
  wasmLinearMb: number;
  /** After the engine stayed idle until its kustomize instances stopped (DEFAULT_FIRST_IDLE_MS). */
  idle: { afterS: number; heapUsedMb: number; rssMb: number; instances: number };
}

const mb = (n: number) => n / 2 ** 20;
const sha256 = (d: string | Uint8Array) => createHash('sha256').update(d).digest('hex');

async function cold(args: { root: string; cacheDir?: string }): Promise<ColdResult> {
  const t0 = performance.now();
  const engine = nodeEngine({ debounceMs: 0 });
  engine.open([args.root]);
  const openMs = performance.now() - t0;
  await engine.request('treeChildren', {});
  const treeMs = performance.now() - t0;
  const targets = (await engine.request('targets', { root: args.root, includeInferred: true })).filter((t) => t.kind === 'Kustomization');
  const builds: ColdResult['builds'] = [];
  const values = new Map<string, unknown>();
  for (const target of targets) {
    const key = `${target.cluster}/${target.namespace}/${target.name}`;
    const t = performance.now();
    const r = await engine.request('render', { target, allowNetwork: false });
    builds.push({ key, ms: performance.now() - t, ok: r.ok, ...(r.ok ? {} : { error: r.error.message.split('\n').slice(0, 2).join(' ').trim() }) });
    if (r.ok) values.set(key, r.value);
  }
  const totalMs = performance.now() - t0;
  const cached: string[] = [];
  if (args.cacheDir) {
    // What a persisted cache holds after this session: every build with the hashes of the files it was given.
    const model = engine.models()[0];
    const cache = PersistentBuildCache.open({ dir: args.cacheDir, version: 'bench', workspaceRoots: [args.root], maxBytes: 256 * 2 ** 20 });
    for (const { ref, node } of targetNodes(model, args.root, true)) {
      const key = `${ref.cluster}/${ref.namespace}/${ref.name}`;
      const input = node.kind === 'Kustomization' ? kustomizeInput(model, node as KustomizationNode) : undefined;
      if (!values.has(key) || !input?.ok) continue;
      cache.set(key, { reads: Object.fromEntries(input.value.files.map((f) => [f.path, sha256(f.data)])), value: values.get(key) });
      cached.push(key);
    }
    cache.dispose();
  }
  engine.dispose();
  return { openMs, treeMs, builds, totalMs, maxRssMb: mb(process.resourceUsage().maxRSS * 1024), cached };
}

async function memory(args: { root: string }): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  gc();
  const baselineRssMb = mb(process.memoryUsage().rss);
  const t0 = performance.now();
  const engine = nodeEngine({ debounceMs: 0 });
  engine.open([args.root]);
  // What the tree, the diagnostics and the status bar ask for first.
  await engine.request('treeChildren', {});
  await engine.request('check', {});
  const openMs = performance.now() - t0;
  gc();
  const m = process.memoryUsage();
  const pool = wasmModule('kustomize');
  const wasmLinearMb = mb(pool.memoryBytes);
  // An idle engine: its kustomize instances stop, and with them their memory and the compiled module's.
  const idleMs = DEFAULT_FIRST_IDLE_MS + 2000;
  await new Promise((r) => setTimeout(r, idleMs));
  gc();
  const idle = { afterS: idleMs / 1000, heapUsedMb: mb(process.memoryUsage().heapUsed), rssMb: mb(process.memoryUsage().rss), instances: pool.alive };
  const result = { baselineRssMb, openMs, heapUsedMb: mb(m.heapUsed), rssMb: mb(m.rss), maxRssMb: mb(process.resourceUsage().maxRSS * 1024), externalMb: mb(m.external + m.arrayBuffers), wasmLinearMb, idle };
  engine.dispose();
  return result;
}

if (require.main === module) {
  const [mode, json] = process.argv.slice(2);
  const args = JSON.parse(json) as { root: string; cacheDir?: string };
  reportAndExit(mode === 'cold' ? cold(args) : memory(args));
}
