import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { checkModel } from '../../../src/core/checks';
import { strictPostBuild } from '../../../src/core/flux/featureGates';

const ROOT = '/repo';

/** repro-A/fluxpin: the flux-instance chart's values, and its Flux pin, come through valuesFrom a generated ConfigMap. */
const FILES: Record<string, string> = {
  'kubernetes/flux-instance/helmrelease.yaml':
    'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\nspec:\n  interval: 1h\n  chartRef:\n    kind: OCIRepository\n    name: flux-instance\n  valuesFrom:\n    - kind: ConfigMap\n      name: flux-instance-values\n',
  'kubernetes/flux-instance/kustomization.yaml':
    'resources:\n  - ./helmrelease.yaml\nconfigMapGenerator:\n  - name: flux-instance-values\n    namespace: flux-system\n    files:\n      - values.yaml=./values.yaml\ngeneratorOptions:\n  disableNameSuffixHash: true\n',
  'kubernetes/flux-instance/values.yaml':
    'instance:\n  distribution:\n    version: 2.5.1\n  sync:\n    kind: GitRepository\n    url: https://github.com/example/repro.git\n    ref: refs/heads/main\n    path: kubernetes/cluster\n',
  'kubernetes/cluster/oci.yaml':
    'apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: OCIRepository\nmetadata:\n  name: podinfo\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: oci://ghcr.io/stefanprodan/manifests/podinfo\n  ref:\n    tag: latest\n',
};

test('a Flux pin in flux-instance values read through valuesFrom a generated ConfigMap sets the served API versions', () => {
  const model = new Repo(ROOT, memoryHost(ROOT, FILES)).model();
  const unserved = checkModel(model).diagnostics.filter((d) => d.rule === 'api-version-unserved');
  assert.deepEqual(
    unserved.map((d) => d.severity),
    ['warning'],
  );
  assert.match(unserved[0].message, /The Flux 2\.5\.1 this repository runs \(HelmRelease flux-system\/flux-instance distribution\.version\) still serves it/);
});

test('a Flux pin older than 2.9 in a flux-instance values file turns strict post-build substitution off', () => {
  assert.equal(strictPostBuild(new Repo(ROOT, memoryHost(ROOT, FILES)).workspace), false);
  const later = { ...FILES, 'kubernetes/flux-instance/values.yaml': FILES['kubernetes/flux-instance/values.yaml'].replace('2.5.1', '2.9.0') };
  assert.equal(strictPostBuild(new Repo(ROOT, memoryHost(ROOT, later)).workspace), true);
});
