/**
 * `.gitops-preview.yaml` `clusters`: roots declared for layouts no reader recognises. Declared
 * clusters replace the ones found; mistakes in the entries are config-invalid warnings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { checkModel } from '../../../src/core/checks';

const ROOT = '/repo';
const repo = (files: Record<string, string>) => new Repo(ROOT, memoryHost(ROOT, files), {});
const KS = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;

// Two Kustomizations in one folder with nothing applying them and no dependsOn between them:
// without a declaration each is a cluster of its own.
const LAYOUT = {
  'deploy/edge/infra.yaml': KS('infra', './infra'),
  'deploy/edge/apps.yaml': KS('apps', './apps'),
  'deploy/core/root.yaml': KS('core', './deploy/core/ks'),
  'deploy/core/ks/app.yaml': KS('core-app', './apps'),
  'infra/cm.yaml': CM('infra'),
  'apps/cm.yaml': CM('apps'),
};

test('declared clusters replace the ones found: a folder root is synced as flux bootstrap --path would, a file root is its Kustomization', () => {
  const found = repo(LAYOUT).model();
  assert.notDeepEqual(found.clusters.map((c) => c.name).sort(), ['core', 'edge']);
  const model = repo({
    ...LAYOUT,
    '.gitops-preview.yaml': 'clusters:\n  - name: edge\n    root: deploy/edge\n  - name: core\n    root: ./deploy/core/root.yaml\n',
  }).model();
  assert.deepEqual(model.clusters.map((c) => c.name).sort(), ['core', 'edge']);
  const edge = model.clusters.find((c) => c.name === 'edge')!;
  assert.equal(edge.root.path, 'deploy/edge');
  assert.deepEqual(edge.kustomizations.map((k) => k.applied.name).sort(), ['apps', 'flux-system', 'infra']);
  const core = model.clusters.find((c) => c.name === 'core')!;
  assert.equal(core.root.applied.name, 'core');
  assert.deepEqual(core.kustomizations.map((k) => k.applied.name).sort(), ['core', 'core-app']);
  assert.deepEqual(checkModel(model).diagnostics.filter((d) => d.rule === 'config-invalid'), []);
});

test('clusters entries that cannot be used are config-invalid at their line, and the others still count', () => {
  const model = repo({
    ...LAYOUT,
    '.gitops-preview.yaml': [
      'clusters:',
      '  - name: edge',
      '    root: deploy/edge',
      '  - name: edge',
      '    root: deploy/core',
      '  - name: gone',
      '    root: deploy/nowhere',
      '  - name: out',
      '    root: ../elsewhere',
      '  - root: deploy/core',
      '',
    ].join('\n'),
  }).model();
  assert.deepEqual(model.clusters.map((c) => c.name), ['edge']);
  const problems = checkModel(model).diagnostics.filter((d) => d.rule === 'config-invalid');
  assert.deepEqual(
    problems.map((d) => `${d.range.start.line + 1} ${d.message.split('\n')[0]}`),
    [
      "4 Cluster 'edge' is declared twice. This entry is ignored.",
      "7 The root 'deploy/nowhere' of cluster 'gone' is not a file or folder of this repository. This entry is ignored.",
      "9 The root '../elsewhere' of cluster 'out' points outside the repository. This entry is ignored.",
      '10 A `clusters` entry needs a `name` (a string). This entry is ignored.',
    ],
  );
});
