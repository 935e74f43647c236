/**
 * The WebAssembly host's memory maximum, with the real kustomize module (dist/wasm), in a process
 * of its own (a file of its own): its 48 MB input and the module's 96 MB stay out of the other
 * tests' process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { WasmModule, wasmDir } from '../../../src/engine/wasm/host';
import type { MemFile } from '../../../src/engine/wasm/protocol';

const kustomizeFile = path.join(wasmDir(), 'kustomize.wasm');
const app: MemFile[] = [
  { path: 'app/kustomization.yaml', data: 'resources: [cm.yaml]\n' },
  { path: 'app/cm.yaml', data: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n' },
];

test('memory is bounded: a build beyond the maximum crashes its instance, the next one builds', async () => {
  const m = new WasmModule('kustomize', kustomizeFile, 96 * 1024 * 1024);
  try {
    const big = 'x'.repeat(48 * 1024 * 1024);
    const r = await m.call('kustomize', { dir: 'app' }, [
      { path: 'app/kustomization.yaml', data: 'configMapGenerator: [{name: big, files: [big.txt]}]\n' },
      { path: 'app/big.txt', data: big },
    ]);
    assert.ok(!r.ok && r.kind === 'crashed', JSON.stringify(r).slice(0, 300));
    // Go's own reason, from the module's stderr (which never reaches the host's).
    assert.match(r.message, /crashed and will be restarted: runtime: out of memory: cannot allocate/);
    assert.ok(m.memoryBytes <= 96 * 1024 * 1024);
    const again = await m.call('kustomize', { dir: 'app' }, app);
    assert.ok(again.ok, again.ok ? '' : again.message);
  } finally {
    await m.dispose();
  }
});
