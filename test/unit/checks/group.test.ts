import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';
import { buildDependencyGraph } from '../../../src/core/graph/index';

const ks = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;

/** Three apps include one component whose ConfigMap uses a variable none of them defines. */
function componentRepo(apps: string[]) {
  const files: Record<string, string> = {
    'clusters/c/root.yaml': ks('root', './clusters/c/apps'),
    'components/common/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n',
    'components/common/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: common\ndata:\n  domain: ${DOMAIN}\n',
  };
  for (const app of apps) {
    files[`clusters/c/apps/${app}.yaml`] = ks(app, `./apps/${app}`, `  targetNamespace: ${app}\n  postBuild:\n    substitute:\n      OTHER: x\n`);
    files[`apps/${app}/kustomization.yaml`] = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncomponents:\n  - ../../components/common\n';
  }
  return memoryRepo(files);
}

test('one finding per cause: a component used by three Kustomizations is reported once, with the other two as related locations', () => {
  const repo = componentRepo(['alpha', 'beta', 'gamma']);
  const found = check(repo).diagnostics.filter((d) => d.rule === 'substitution-undefined');
  assert.equal(found.length, 1, found.map((d) => d.message).join('\n---\n'));
  const [d] = found;
  assert.equal(d.file, '/repo/components/common/cm.yaml');
  assert.match(d.message, /\nAlso in 2 other Kustomizations \(see the related locations\)\.$/);
  // Each Kustomization's postBuild is a related location: the first's and the two others'.
  const places = d.related.map((r) => `${r.file.slice('/repo/'.length)}:${r.range.start.line + 1}`).sort();
  assert.deepEqual(places, ['clusters/c/apps/alpha.yaml:13', 'clusters/c/apps/beta.yaml:13', 'clusters/c/apps/gamma.yaml:13']);
  assert.equal(d.places?.length, 3);
});

test('one finding per cause: a single place keeps its message as it is', () => {
  const [d] = check(componentRepo(['alpha'])).diagnostics.filter((x) => x.rule === 'substitution-undefined');
  assert.ok(d);
  assert.doesNotMatch(d.message, /Also in/);
  assert.equal(d.places, undefined);
});

test('one finding per cause: the dependency graph still draws the missing dependsOn of every place', () => {
  const crd = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.acme.io\nspec:\n  group: acme.io\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n';
  const files: Record<string, string> = {
    'clusters/c/root.yaml': ks('root', './clusters/c/apps'),
    'clusters/c/apps/operator.yaml': ks('operator', './operator', '  wait: true\n'),
    'operator/crd.yaml': crd,
    'components/widget/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - widget.yaml\n',
    'components/widget/widget.yaml': 'apiVersion: acme.io/v1\nkind: Widget\nmetadata:\n  name: w\n',
  };
  for (const app of ['alpha', 'beta']) {
    files[`clusters/c/apps/${app}.yaml`] = ks(app, `./apps/${app}`, `  targetNamespace: ${app}\n`);
    files[`apps/${app}/kustomization.yaml`] = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncomponents:\n  - ../../components/widget\n';
  }
  const repo = memoryRepo(files);
  const result = check(repo);
  const crdOrder = result.diagnostics.filter((d) => d.rule === 'crd-order');
  assert.equal(crdOrder.length, 1, crdOrder.map((d) => d.message).join('\n---\n'));
  const graph = buildDependencyGraph(repo.model(), result.diagnostics);
  const absent = graph.clusters.flatMap((c) => c.edges.filter((e) => e.absent).map((e) => `${e.from} -> ${e.to}`)).sort();
  assert.deepEqual(absent, ['Kustomization/flux-system/alpha -> Kustomization/flux-system/operator', 'Kustomization/flux-system/beta -> Kustomization/flux-system/operator']);
});
