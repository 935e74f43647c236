import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The test tools' kustomize and helm (environment first, then test/cluster/tools-env.sh); fails when not built. */
export function renderTools(repoRoot: string): { kustomize: string; helm: string } {
  let k = process.env.KUSTOMIZE_BIN;
  let h = process.env.HELM_BIN;
  if (!k || !h) {
    const out = execFileSync('bash', [path.join(repoRoot, 'test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000 });
    for (const line of out.split('\n')) {
      const [name, value] = line.split('=');
      if (name === 'KUSTOMIZE_BIN') k ??= value;
      if (name === 'HELM_BIN') h ??= value;
    }
  }
  assert.ok(k && fs.existsSync(k), `kustomize binary missing (${k}); run bash test/cluster/build.sh`);
  assert.ok(h && fs.existsSync(h), `helm binary missing (${h}); run bash test/cluster/build.sh`);
  return { kustomize: k, helm: h };
}
