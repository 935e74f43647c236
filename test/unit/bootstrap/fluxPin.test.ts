/**
 * A bootstrap helmfile that installs the flux-instance chart pins the Flux release the cluster runs
 * (`instance.distribution.version` in the release's values, inline or in a values file, also in
 * `.gotmpl` templates read without executing them): API-version severity and post-build strictness
 * follow it as they follow a pin in the manifests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryRepo } from '../helpers';
import { check } from '../checks/helpers';
import { repoBootstrapFacts } from '../../../src/core/bootstrap/index';
import { strictPostBuild } from '../../../src/core/flux/featureGates';

const cluster: Record<string, string> = {
  'clusters/main/root.yaml':
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./clusters/main\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n',
  'clusters/main/repo.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1beta2\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://charts.example.com\n',
};

const GOTMPL = [
  '---',
  '{{- $root := requiredEnv "ROOT_DIR" }}',
  'releases:',
  '  - name: flux-operator',
  '    namespace: flux-system',
  '    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-operator',
  '    version: 0.58.1',
  '  - name: flux-instance',
  '    namespace: flux-system',
  '    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance',
  '    version: 0.58.1',
  '    values:',
  '      - instance:',
  '          distribution:',
  '            version: "2.5.x"',
  '          sync:',
  '            path: "{{ $root }}/clusters/main"',
  '',
].join('\n');

const unserved = (files: Record<string, string>) =>
  check(memoryRepo({ ...cluster, ...files }))
    .diagnostics.filter((d) => d.rule === 'api-version-unserved')
    .map((d) => `${d.severity} ${d.message.split('\n')[0]}`);

test('without a pin an unserved version is an error', () => {
  assert.deepEqual(unserved({}), ['error HelmRepository source.toolkit.fluxcd.io/v1beta2 is no longer served by Flux 2.8+: use source.toolkit.fluxcd.io/v1.']);
});

test('a .gotmpl helmfile installing flux-instance with inline values pins Flux: the unserved version is an upgrade warning, strictness off', () => {
  const files = { 'bootstrap/helmfile.yaml.gotmpl': GOTMPL };
  const facts = repoBootstrapFacts(memoryRepo({ ...cluster, ...files }).model()).filter((f) => f.fluxVersion);
  assert.deepEqual(facts.map((f) => `${f.name} ${f.fluxVersion} ${f.file.slice(6)}:${f.line}`), ['flux-instance 2.5.x bootstrap/helmfile.yaml.gotmpl:8']);
  assert.deepEqual(unserved(files), ['warning HelmRepository source.toolkit.fluxcd.io/v1beta2 is no longer served from Flux 2.8: move to source.toolkit.fluxcd.io/v1 before upgrading Flux.']);
  const ws = memoryRepo({ ...cluster, ...files }).model().workspace;
  assert.equal(strictPostBuild(ws), false);
});

test('a helmfile naming a values file (YAML or template) reads the pin there; a templated version pins nothing', () => {
  const helmfile = 'releases:\n  - name: flux-instance\n    namespace: flux-system\n    chart: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance\n    values:\n      - ./values/flux-instance.yaml.gotmpl\n';
  const pinned = { 'bootstrap/helmfile.yaml': helmfile, 'bootstrap/values/flux-instance.yaml.gotmpl': 'instance:\n  distribution:\n    version: 2.6.2\n    registry: ghcr.io/fluxcd\n' };
  assert.match(unserved(pinned)[0], /^warning .* from Flux 2\.8/);
  const templated = { ...pinned, 'bootstrap/values/flux-instance.yaml.gotmpl': 'instance:\n  distribution:\n    version: "{{ .Values.flux }}"\n' };
  assert.match(unserved(templated)[0], /^error /);
  const yamlValues = { 'bootstrap/helmfile.yaml': helmfile.replace('flux-instance.yaml.gotmpl', 'flux-instance.yaml'), 'bootstrap/values/flux-instance.yaml': 'instance:\n  distribution:\n    version: 2.6.2\n' };
  assert.match(unserved(yamlValues)[0], /^warning /);
});
