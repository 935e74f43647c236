/**
 * "Before Flux" in the tree: per cluster, each fact of the bootstrap with its reader and file:line,
 * in the view model (editor), `tree --format json` and the text output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childrenOf, GROUP_BOOTSTRAP_LABEL, present, rootNodes } from '../../../src/core/tree/viewModel';
import { treeJson, treeText } from '../../../src/core/tree/treeData';
import { memoryRepo } from '../helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

const files = {
  'clusters/main/root.yaml': ks('flux-system', './clusters/main'),
  'bootstrap/helmfile.yaml': 'releases:\n  - name: prometheus-operator-crds\n    namespace: observability\n    chart: oci://ghcr.io/prometheus-community/charts/prometheus-operator-crds\n',
  justfile: 'crds:\n    kubectl apply -f https://example.com/crds.yaml\n',
};

test('the cluster node lists "Before Flux" first, each fact with its reader and file:line, clicking opens that line', () => {
  const model = memoryRepo(files).model();
  const [clusterNode] = rootNodes(model);
  const [before, root] = childrenOf(clusterNode);
  assert.equal(root.type, 'flux');
  const group = present(before, model);
  assert.equal(group.label, GROUP_BOOTSTRAP_LABEL);
  assert.equal(group.description, '2 facts');
  assert.equal(group.collapsible, 'collapsed');
  const facts = childrenOf(before).map((n) => present(n, model));
  assert.deepEqual(
    facts.map((p) => [p.label, p.description, p.contextValue, p.location?.file, p.location?.range.start.line]),
    [
      ['prometheus-operator-crds', 'chart · helmfile · bootstrap/helmfile.yaml:2', 'bootstrap:chart', '/repo/bootstrap/helmfile.yaml', 1],
      ['https://example.com/crds.yaml', 'manifest · justfile · justfile:2', 'bootstrap:manifest', '/repo/justfile', 1],
    ],
  );
  assert.match(facts[0].tooltip ?? '', /monitoring\.coreos\.com/);
  assert.match(facts[1].tooltip ?? '', /unknown/);
  // Without bootstrap files the cluster shows its root only.
  const bare = memoryRepo({ 'clusters/main/root.yaml': files['clusters/main/root.yaml'] }).model();
  assert.deepEqual(childrenOf(rootNodes(bare)[0]).map((n) => n.type), ['flux']);
});

test('tree --format json lists each cluster\'s bootstrap facts; the text output a "Before Flux:" block', () => {
  const model = memoryRepo(files).model();
  assert.deepEqual(treeJson(model).clusters[0].bootstrap, [
    { what: 'chart', name: 'prometheus-operator-crds', groups: ['monitoring.coreos.com'], reader: 'helmfile', file: 'bootstrap/helmfile.yaml', line: 2, via: 'release observability/prometheus-operator-crds' },
    { what: 'manifest', name: 'https://example.com/crds.yaml', groups: [], reader: 'justfile', file: 'justfile', line: 2, via: 'kubectl apply -f https://example.com/crds.yaml' },
  ]);
  const text = treeText(model);
  assert.match(
    text,
    /Cluster: main\nBefore Flux:\n {2}chart prometheus-operator-crds \[monitoring\.coreos\.com\] {2}\(helmfile, bootstrap\/helmfile\.yaml:2\)\n {2}manifest "https:\/\/example\.com\/crds\.yaml" \[CRDs unknown\] {2}\(justfile, justfile:2\)\nKustomization\/flux-system\/flux-system/,
  );
});
