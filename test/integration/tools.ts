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

/** The CNCF distribution registry built by test/cluster/build.sh (REGISTRY_BIN first); fails when not built. */
export function registryTool(repoRoot: string): string {
  let r = process.env.REGISTRY_BIN;
  if (!r) {
    const out = execFileSync('bash', [path.join(repoRoot, 'test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000 });
    r = out.split('\n').find((l) => l.startsWith('REGISTRY_BIN='))?.slice('REGISTRY_BIN='.length);
  }
  assert.ok(r && fs.existsSync(r), `registry binary missing (${r}); run bash test/cluster/build.sh registry`);
  return r;
}

/**
 * The shared corpora the integration comparisons (render vs model, WebAssembly vs native kustomize)
 * were reviewed on. The second batch (issue #24) is pinned, built as `check` builds it, by
 * test/unit/corpora/snapshots.test.ts.
 */
export const REVIEWED_CORPORA: readonly string[] = [
  'allenporter-k8s-gitops',
  'billimek-k8s-gitops',
  'bjw-s-labs-home-ops',
  'controlplaneio-fluxcd-d2-fleet',
  'flux2-hub-spoke-example',
  'flux2-kustomize-helm-example',
  'flux2-monitoring-example',
  'flux2-multi-tenancy',
  'joryirving-home-ops',
];
