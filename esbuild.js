// One build context for the extension, its workers and the CLI, one for the webview scripts; type-checking is `npm run typecheck`.
const esbuild = require('esbuild');
const fs = require('node:fs');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

async function main() {
  const node = await esbuild.context({
    // engineWorker: the engine's worker thread, started by the extension (src/extension/engineService.ts);
    // wasm-worker: the thread that owns a WebAssembly module's instance (src/engine/wasm/host.ts).
    entryPoints: { extension: 'src/extension/extension.ts', engineWorker: 'src/engine/workerEntry.ts', engineWorkerBundle: 'src/engine/worker.ts', cli: 'src/cli/launch.ts', 'cli-worker': 'src/cli/main.ts', 'wasm-worker': 'src/engine/wasm/worker.ts', kube: 'src/cluster/kubeLibrary.ts' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outdir: 'dist',
    external: ['vscode'],
    sourcemap: !production,
    sourcesContent: false,
    minify: production,
    metafile: true,
    logLevel: 'warning',
    banner: { js: '' },
  });
  // Webview scripts run in the editor's browser sandbox: their own bundle, no Node, no vscode.
  const webview = await esbuild.context({
    entryPoints: { 'webview/graph': 'src/webview/graph/main.ts' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome120',
    outdir: 'dist',
    sourcemap: !production,
    sourcesContent: false,
    minify: production,
    logLevel: 'warning',
  });
  if (watch) {
    await Promise.all([node.watch(), webview.watch()]);
    return;
  }
  const result = await node.rebuild();
  await webview.rebuild();
  fs.writeFileSync('dist/meta.json', JSON.stringify(result.metafile));
  fs.chmodSync('dist/cli.js', 0o755);
  await Promise.all([node.dispose(), webview.dispose()]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
