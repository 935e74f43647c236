/**
 * kustomize as WebAssembly (src/engine/wasm): module compile time, then every buildable
 * Kustomization of bjw-s-labs-home-ops through one long-lived instance, first pass (cold instance)
 * and second pass (warm), the process's peak RSS, and the .vsix size when one was built.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Repo } from '../src/core/repo';
import { diskHost } from '../src/node/fsHost';
import { WasmModule, wasmDir } from '../src/engine/wasm/host';
import { kustomizeInput } from '../src/render/kustomize';

const corpus = path.resolve(__dirname, '../../shared/corpora/bjw-s-labs-home-ops');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const mb = (n: number) => (n / 2 ** 20).toFixed(1);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))];

export async function run(): Promise<string> {
  const lines = ['## kustomize and helm as WebAssembly', ''];
  lines.push('Command: `npm run bench -- wasm`. Compile = `WebAssembly.compile` of the module (once per process);');
  lines.push('builds = every Kustomization of bjw-s-labs-home-ops whose inputs are in the repository, through one');
  lines.push('long-lived instance in a worker thread (first pass starts the instance; second pass is warm).');
  lines.push('Cold module build (`bash scripts/build-wasm.sh`, empty Go build cache) is measured separately, see below.');
  lines.push('');
  const sizes = ['kustomize', 'helm'].map((m) => {
    const f = path.join(wasmDir(), `${m}.wasm`);
    return `${m}.wasm ${fs.existsSync(f) ? mb(fs.statSync(f).size) : 'missing'} MB`;
  });
  const compiles: string[] = [];
  for (const name of ['kustomize', 'helm'] as const) {
    const m = new WasmModule(name);
    const c = await m.compile();
    if (!c.ok) throw new Error(c.message);
    compiles.push(`${name} ${Number(c.output).toFixed(0)} ms`);
  }
  const model = new Repo(corpus.split(path.sep).join('/'), diskHost, { sha256 }).model();
  const inputs = model.clusters.flatMap((c) => c.kustomizations).map((ks) => kustomizeInput(model, ks)).flatMap((i) => (i.ok ? [i.value] : []));
  const m = new WasmModule('kustomize');
  const passes: { total: number; each: number[]; failed: number }[] = [];
  for (let pass = 0; pass < 2; pass++) {
    const each: number[] = [];
    let failed = 0;
    const t0 = performance.now();
    for (const input of inputs) {
      const t = performance.now();
      const r = await m.call('kustomize', { dir: input.dir }, input.files, { timeoutMs: 300_000 });
      each.push(performance.now() - t);
      if (!r.ok) failed++;
    }
    passes.push({ total: performance.now() - t0, each, failed });
  }
  await m.dispose();
  lines.push(`Module sizes: ${sizes.join(', ')}. Compile: ${compiles.join(', ')}.`);
  lines.push('');
  lines.push('| pass | builds | failed | total s | p50 ms | p95 ms | max ms |');
  lines.push('|---|---|---|---|---|---|---|');
  passes.forEach((p, i) => lines.push(`| ${i === 0 ? 'first (fresh instance)' : 'second (warm)'} | ${p.each.length} | ${p.failed} | ${(p.total / 1000).toFixed(2)} | ${pct(p.each, 0.5).toFixed(1)} | ${pct(p.each, 0.95).toFixed(1)} | ${Math.max(...p.each).toFixed(1)} |`));
  lines.push('');
  lines.push(`Peak RSS of the benchmark process (model + instance): ${mb(process.resourceUsage().maxRSS * 1024)} MB; instance linear memory after the builds: ${mb(m.memoryBytes)} MB.`);
  const vsix = path.resolve(__dirname, '../dist/gitops-preview.vsix');
  lines.push(fs.existsSync(vsix) ? `.vsix (\`make package\`): ${mb(fs.statSync(vsix).size)} MB.` : '.vsix: not built (run `make package` first to include its size).');
  lines.push('');
  return lines.join('\n');
}
