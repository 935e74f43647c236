/**
 * A bootstrap that pushes folders as OCI artifacts to a local registry (`flux push artifact … --path`)
 * and OCIRepositories pulling them (stefanprodan/flux-local-dev): the artifact is the folder, as a
 * GitRepository with the repository's URL is the working tree. Shell variables and function calls
 * are read to tell the artifact and the folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandShellVariables } from '../../../src/core/bootstrap/shellVars';
import { commandsOf } from '../../../src/core/bootstrap/commands';
import { repoBootstrapFacts } from '../../../src/core/bootstrap/index';
import { treeJson } from '../../../src/core/tree/treeData';
import { memoryRepo } from '../helpers';

const PUSH_SH = `#!/usr/bin/env bash
set -o errexit

kubernetes_path='kubernetes'
cluster_name='local'
registry='localhost:5050'

diff_push() {
  artifact_name=$1
  artifact_path=$2

  flux_output=$(flux push artifact oci://\${artifact_name} \\
    --path="\${artifact_path}" \\
    --revision="$(git rev-parse HEAD)" 2>&1) || exit_code=$?
}

diff_push "\${registry}/flux-cluster-sync:local" "\${kubernetes_path}/clusters/\${cluster_name}"
diff_push "\${registry}/flux-apps-sync:local" "\${kubernetes_path}/apps"
`;

const UP_SH = `#!/usr/bin/env bash
cluster_path='kubernetes/clusters/local/flux-system'
flux install --components=source-controller,kustomize-controller
kubectl apply -k "\${cluster_path}"
`;

const oci = (name: string, repo: string, tag = 'local') =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1m\n  insecure: true\n  ref:\n    tag: ${tag}\n  url: oci://kind-registry:5000/${repo}\n`;
const ks = (name: string, source: string, path = './') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: OCIRepository\n    name: ${source}\n`;
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: podinfo\n  namespace: apps\n';

const repo = (tag = 'local') => ({
  'scripts/flux/push.sh': PUSH_SH,
  'scripts/flux/up.sh': UP_SH,
  'kubernetes/clusters/local/flux-system/kustomization.yaml': 'resources:\n  - cluster-sync.yaml\n',
  'kubernetes/clusters/local/flux-system/cluster-sync.yaml': `${oci('cluster-source', 'flux-cluster-sync')}---\n${ks('cluster-sync', 'cluster-source')}`,
  'kubernetes/clusters/local/apps.yaml': `${oci('apps-source', 'flux-apps-sync', tag)}---\n${ks('apps-sync', 'apps-source')}`,
  'kubernetes/apps/podinfo.yaml': CM,
});

test('shell variables: assignments and function calls are put into the commands a function body runs, once per call', () => {
  const commands = expandShellVariables(PUSH_SH, commandsOf(PUSH_SH)).filter((c) => c.words.includes('push'));
  assert.deepEqual(
    commands.map((c) => `${c.line} ${c.words.slice(0, 5).join(' ')}`),
    ['17 flux push artifact oci://localhost:5050/flux-cluster-sync:local --path=kubernetes/clusters/local', '18 flux push artifact oci://localhost:5050/flux-apps-sync:local --path=kubernetes/apps'],
  );
  const up = expandShellVariables(UP_SH, commandsOf(UP_SH)).find((c) => c.words.includes('apply'));
  assert.deepEqual(up?.words, ['kubectl', 'apply', '-k', 'kubernetes/clusters/local/flux-system']);
});

test('an OCIRepository pulling an artifact the repository pushes reads the pushed folder: one cluster, nothing left unapplied (flux-local-dev)', () => {
  const model = memoryRepo(repo()).model();
  const json = treeJson(model);
  assert.deepEqual(json.clusters.map((c) => `${c.name} ${c.root.name}`), ['local cluster-sync']);
  assert.deepEqual(json.unapplied, []);
  const apps = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps-sync')!;
  assert.equal(apps.source.kind === 'view' ? apps.source.root : apps.source.kind, 'kubernetes/apps');
  assert.deepEqual(apps.applies.map((a) => a.name), ['podinfo']);
  const pushed = repoBootstrapFacts(model).filter((f) => f.what === 'artifact');
  assert.deepEqual(pushed.map((f) => `${f.name} ${f.via} ${f.file.slice(6)}:${f.line}`), [
    'oci://localhost:5050/flux-cluster-sync:local flux push artifact --path=kubernetes/clusters/local scripts/flux/push.sh:17',
    'oci://localhost:5050/flux-apps-sync:local flux push artifact --path=kubernetes/apps scripts/flux/push.sh:18',
  ]);
});

test('an OCIRepository asking for another tag than the one pushed is another artifact', () => {
  const model = memoryRepo(repo('v1.0.0')).model();
  const apps = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps-sync')!;
  assert.equal(apps.source.kind, 'external');
  assert.deepEqual(apps.applies, []);
});

test('hostile input: many functions, calls and assignments stay bounded', () => {
  const body = Array.from({ length: 40 }, (_, i) => `  v${i}=$1`).join('\n');
  const fns = Array.from({ length: 2000 }, (_, i) => `f${i}() {\n${body}\n  flux push artifact oci://r/x:$1 --path=$2\n}`).join('\n');
  const calls = Array.from({ length: 20000 }, (_, i) => `f${i % 50} a${i} b`).join('\n');
  const text = `${fns}\n${calls}\n`;
  const started = Date.now();
  const out = expandShellVariables(text, commandsOf(text));
  assert.ok(out.length <= 20_000);
  assert.equal(out.filter((c) => c.words[3]?.startsWith('oci://r/x:a')).length, 5000, 'commands read once per call, up to the per-file limit');
  // Linear in the input (about a second here); a quadratic reading would take minutes.
  assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
});
