import * as esbuild from 'esbuild';
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';

/**
 * src/engine/worker.ts (or another worker entry) bundled as esbuild.js bundles it for the extension
 * (a worker cannot load .ts), with what the bundle finds beside it in dist/: the WebAssembly
 * modules' own worker (wasm-worker.js) and the modules (wasm/, a link to dist/wasm). Without them
 * every render in the bundle fails and an edit's timing measures no build at all.
 */
export function bundleWorker(entry = path.resolve(__dirname, '../src/engine/worker.ts')): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-engine-worker-'));
  const wasm = path.resolve(__dirname, '../dist/wasm');
  if (!fs.existsSync(path.join(wasm, 'kustomize.wasm'))) throw new Error(`${wasm}/kustomize.wasm is missing: run \`make build\` first`);
  esbuild.buildSync({
    entryPoints: { engineWorker: entry, 'wasm-worker': path.resolve(__dirname, '../src/engine/wasm/worker.ts') },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outdir: dir,
    logLevel: 'warning',
  });
  fs.symlinkSync(wasm, path.join(dir, 'wasm'));
  return path.join(dir, 'engineWorker.js');
}
