import * as esbuild from 'esbuild';
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';

/** src/engine/worker.ts (or another worker entry) bundled as esbuild.js bundles it for the extension (a worker cannot load .ts). */
export function bundleWorker(entry = path.resolve(__dirname, '../src/engine/worker.ts')): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-engine-worker-'));
  const outfile = path.join(dir, 'engineWorker.js');
  esbuild.buildSync({
    entryPoints: [entry],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}
