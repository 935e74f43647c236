/**
 * The Go tests of wasm/ (the WebAssembly modules' own packages), run natively: the helm module's
 * document split held to helm's regular expression (wasm/manifests), the kustomize module's
 * file-set naming (wasm/internal/namefs). Go is what `make build` compiles the modules with.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const wasmDir = path.resolve(__dirname, '../../wasm');

function goBinary(): string {
  const found = spawnSync('bash', ['-c', 'command -v go'], { encoding: 'utf8' }).stdout.trim();
  const go = found || '/usr/local/go/bin/go';
  assert.ok(fs.existsSync(go), 'go is required (as for scripts/build-wasm.sh)');
  return go;
}

test('the Go packages of wasm/ pass their tests', () => {
  const out = execFileSync(goBinary(), ['test', '-count=1', './manifests/', './internal/...'], {
    cwd: wasmDir,
    env: { ...process.env, GOWORK: 'off' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  assert.match(out, /^ok\s+gitops-preview\/wasm\/manifests\b/m, out);
  assert.match(out, /^ok\s+gitops-preview\/wasm\/internal\/namefs\b/m, out);
});
