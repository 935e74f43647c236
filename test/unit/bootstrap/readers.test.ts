/**
 * Each reader of the cluster before Flux, on small in-memory repositories: the facts it records
 * (what, reader, file and line) and what they change for crd-order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { repoBootstrapFacts, preinstalledCrdGroups } from '../../../src/core/bootstrap/index';
import { memoryRepo } from '../helpers';
import { check } from '../checks/helpers';

const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

/** One cluster: the external-secrets chart in one Kustomization, a store needing its CRD in another that does not depend on it. */
const cluster: Record<string, string> = {
  'clusters/main/root.yaml': ks('flux-system', './clusters/main'),
  'clusters/main/es.yaml': ks('es', './apps/es'),
  'clusters/main/stores.yaml': ks('stores', './apps/stores'),
  'apps/es/hr.yaml':
    'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: external-secrets\n  namespace: external-secrets\nspec:\n  chart:\n    spec:\n      chart: external-secrets\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n',
  'apps/es/repo.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n',
  'apps/stores/store.yaml': 'apiVersion: external-secrets.io/v1\nkind: ClusterSecretStore\nmetadata:\n  name: vault\n',
};

const facts = (files: Record<string, string>) =>
  repoBootstrapFacts(memoryRepo({ ...cluster, ...files }).model()).map((f) => `${f.reader} ${f.what} ${f.name} [${f.groups.join(',')}] ${f.file.slice(6)}:${f.line}`);
const crdOrder = (files: Record<string, string>) => check(memoryRepo({ ...cluster, ...files })).diagnostics.filter((d) => d.rule === 'crd-order').map((d) => d.file.slice(6));

const ES_CRD_URL = 'https://raw.githubusercontent.com/external-secrets/external-secrets/v0.9.0/config/crds/bases/external-secrets.io_clustersecretstores.yaml';

test('without a bootstrap the store waits for a retry (the baseline the readers change)', () => {
  assert.deepEqual(crdOrder({}), ['apps/stores/store.yaml']);
  assert.deepEqual(facts({}), []);
});

test('justfile module in a .sourceignored folder: kubectl apply -k of a folder behind {{ source_directory() }}, read though Flux never sees it', () => {
  const files = {
    '.sourceignore': 'bootstrap/\n',
    'bootstrap/mod.just': `crds:\n    kubectl apply --server-side \\\n      -k "{{ source_directory() }}/crds"\n`,
    'bootstrap/crds/kustomization.yaml': `resources:\n  - ${ES_CRD_URL}\n`,
  };
  assert.deepEqual(facts(files), ['justfile crd-group external-secrets.io [external-secrets.io] bootstrap/mod.just:2']);
  assert.deepEqual(crdOrder(files), []);
});

test('Makefile: kubectl apply -f of a known upstream bundle names its groups; an unknown URL is a manifest whose CRDs are unknown', () => {
  const files = {
    Makefile: 'bootstrap:\n\tkubectl apply -f https://raw.githubusercontent.com/external-secrets/external-secrets/v0.9.0/deploy/crds/bundle.yaml\n\tkubectl apply -f https://example.com/operator.yaml\n',
  };
  assert.deepEqual(facts(files), [
    'makefile crd-group external-secrets.io [external-secrets.io] Makefile:2',
    'makefile crd-group generators.external-secrets.io [generators.external-secrets.io] Makefile:2',
    'makefile manifest https://example.com/operator.yaml [] Makefile:3',
  ]);
  assert.deepEqual(crdOrder(files), []);
  // The unknown URL alone provides nothing: the store still waits for a retry (unknown, never absent: no new finding either).
  assert.deepEqual(crdOrder({ Makefile: 'b:\n\tkubectl apply -f https://example.com/operator.yaml\n' }), ['apps/stores/store.yaml']);
});

test('shell scripts: *.sh anywhere and shebang files in scripts folders; helm install gives the chart its known CRD groups and its release', () => {
  const files = {
    'scripts/bootstrap': '#!/usr/bin/env bash\nset -e\nhelm upgrade --install external-secrets external-secrets/external-secrets -n external-secrets --wait\n',
    'scripts/notes': 'helm install other other/other\n',
    'hack/crds.sh': 'kubectl apply -f ./local-crds.yaml\n',
    'hack/local-crds.yaml':
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.io\nspec:\n  group: example.io\n  names:\n    kind: Widget\n    plural: widgets\n',
  };
  assert.deepEqual(facts(files), [
    'shell crd widgets.example.io [example.io] hack/crds.sh:1',
    'shell chart external-secrets [external-secrets.io,generators.external-secrets.io] scripts/bootstrap:3',
  ]);
  const model = memoryRepo({ ...cluster, ...files }).model();
  assert.equal(repoBootstrapFacts(model).find((f) => f.what === 'chart')?.release, 'external-secrets/external-secrets');
  assert.deepEqual(crdOrder(files), []);
});

test('helmfile .gotmpl: releases read line by line without executing templates; a templated chart is known by the release name', () => {
  const files = {
    'bootstrap/helmfile.yaml.gotmpl': [
      '---',
      'helmDefaults:',
      '  args: ["--include-crds"]',
      'releases:',
      '  {{- if eq .Environment.Name "default" }}',
      '  - name: external-secrets',
      '    namespace: {{ .Values.ns }}',
      '    chart: "{{ .Values.repo }}/external-secrets"',
      '    values: ["{{ requiredEnv "X" }}"]',
      '  {{- end }}',
      '  - name: cilium   # the CNI',
      '    chart: oci://ghcr.io/cilium/charts/cilium',
      '',
    ].join('\n'),
  };
  assert.deepEqual(facts(files), ['helmfile chart external-secrets [external-secrets.io,generators.external-secrets.io] bootstrap/helmfile.yaml.gotmpl:6', 'helmfile chart cilium [] bootstrap/helmfile.yaml.gotmpl:11']);
  assert.deepEqual(crdOrder(files), []);
});

test('a helmfile a step runs is read whatever its name; --skip-crds installs no CRDs', () => {
  const crds = 'releases:\n  - name: external-secrets\n    namespace: es\n';
  const step = { 'scripts/boot.sh': 'helmfile --file "${ROOT}/bootstrap/crds.yaml" template -q | kubectl apply -f -\n' };
  assert.deepEqual(facts({ 'bootstrap/crds.yaml': crds }), [], 'releases without charts, in a file not named helmfile: not a helmfile by itself');
  assert.deepEqual(facts({ 'bootstrap/crds.yaml': crds, ...step }), ['helmfile chart external-secrets [external-secrets.io,generators.external-secrets.io] bootstrap/crds.yaml:2']);
  const skip = 'helmDefaults:\n  args: [--skip-crds]\nreleases:\n  - name: external-secrets\n    namespace: es\n';
  assert.deepEqual(facts({ 'bootstrap/crds.yaml': skip, ...step }), ['helmfile chart external-secrets [] bootstrap/crds.yaml:4']);
});

test('Talos: extraManifests URLs and inlineManifests CRDs of talconfig.yaml and machine config patches', () => {
  const files = {
    'talos/talconfig.yaml': [
      'clusterName: home',
      'controlPlane:',
      '  extraManifests:',
      '    - https://github.com/kubernetes-sigs/gateway-api/releases/download/v1.2.0/standard-install.yaml',
      '  inlineManifests:',
      '    - name: es-crds',
      '      contents: |',
      '        apiVersion: apiextensions.k8s.io/v1',
      '        kind: CustomResourceDefinition',
      '        metadata:',
      '          name: clustersecretstores.external-secrets.io',
      '        spec:',
      '          group: external-secrets.io',
      '          names:',
      '            kind: ClusterSecretStore',
      '            plural: clustersecretstores',
      'nodes:',
      '  - hostname: n1',
      '    inlinePatch:',
      '      cluster:',
      '        extraManifests:',
      '          - https://example.com/node-only.yaml',
      '',
    ].join('\n'),
    'talos/patches/cluster.yaml': 'cluster:\n  extraManifests:\n    - https://example.com/approver.yaml\n  inlineManifests:\n    - name: ns\n      contents: "apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: x\\n"\n',
  };
  assert.deepEqual(facts(files), [
    'talos manifest https://example.com/approver.yaml [] talos/patches/cluster.yaml:3',
    'talos manifest ns [] talos/patches/cluster.yaml:5',
    'talos crd-group gateway.networking.k8s.io [gateway.networking.k8s.io] talos/talconfig.yaml:4',
    'talos crd clustersecretstores.external-secrets.io [external-secrets.io] talos/talconfig.yaml:6',
    'talos manifest https://example.com/node-only.yaml [] talos/talconfig.yaml:22',
  ]);
  assert.deepEqual(crdOrder(files), []);
});

test('roots: flux bootstrap --path and kubectl apply -k of a folder holding flux-system/gotk-sync.yaml are recorded with their line', () => {
  const files = {
    'Taskfile.yaml': 'version: "3"\ntasks:\n  flux:\n    cmds:\n      - flux bootstrap github --owner=me --repository=home --path=clusters/main\n      - kubectl apply -k clusters/main/flux-system\n',
    'clusters/main/flux-system/gotk-sync.yaml': '# placeholder\n',
    'clusters/main/flux-system/kustomization.yaml': 'resources:\n  - gotk-sync.yaml\n',
  };
  assert.deepEqual(facts(files), ['taskfile root clusters/main [] Taskfile.yaml:5', 'taskfile root clusters/main/flux-system [] Taskfile.yaml:6']);
});

test('a step behind a variable counts for the cluster rooted where the variable pointed; per-cluster bootstrap folders named like clusters count for theirs', () => {
  const two = (name: string) => ({
    [`kubernetes/${name}/flux/root.yaml`]: ks('flux-system', `./kubernetes/${name}/flux`),
    [`kubernetes/${name}/flux/es.yaml`]: ks('es', `./kubernetes/${name}/es`),
  });
  const files = {
    ...two('main'),
    ...two('staging'),
    'bootstrap/staging/helmfile.yaml': 'releases:\n  - name: external-secrets\n    chart: oci://ghcr.io/external-secrets/charts/external-secrets\n',
  };
  const model = memoryRepo(files).model();
  const groups = Object.fromEntries(model.clusters.map((c) => [c.name, [...preinstalledCrdGroups(model, c)].sort()]));
  assert.deepEqual(groups, { main: [], staging: ['external-secrets.io', 'generators.external-secrets.io'] });
});

test('hostile input: many steps, a huge helmfile template and many inline manifests stay bounded', () => {
  const files = {
    justfile: `x:\n${'    kubectl apply -f https://e.x/a.yaml\n'.repeat(25_000)}`,
    'helmfile.yaml.gotmpl': `releases:\n${'  - name: r\n    chart: c/c\n'.repeat(20_000)}  - name: ${'x'.repeat(500_000)}\n`,
    'talconfig.yaml': `clusterName: x\ninlineManifests:\n${'  - name: m\n    contents: "a: 1"\n'.repeat(500)}`,
  };
  const all = repoBootstrapFacts(memoryRepo({ ...cluster, ...files }).model());
  assert.equal(all.filter((f) => f.reader === 'justfile').length, 20_000, 'commands past the per-file limit are not read');
  assert.equal(all.filter((f) => f.reader === 'helmfile').length, 20_001);
  assert.equal(all.filter((f) => f.reader === 'talos').length, 200, 'inline manifests past the limit are not read');
});

test('Talos: talhelper patches written as YAML strings are machine config patches too (their facts at the entry)', () => {
  const talconfig = [
    'clusterName: home',
    'controlPlane:',
    '  patches:',
    '    - |-',
    '      machine:',
    '        kubelet:',
    '          extraArgs:',
    '            max-pods: "200"',
    '    - |-',
    '      cluster:',
    '        extraManifests:',
    `          - ${ES_CRD_URL}`,
    '    - "@./patches/other.yaml"',
    '',
  ].join('\n');
  assert.deepEqual(facts({ 'talos/talconfig.yaml': talconfig }), ['talos crd-group external-secrets.io [external-secrets.io] talos/talconfig.yaml:9']);
  assert.deepEqual(crdOrder({ 'talos/talconfig.yaml': talconfig }), []);
});

test('Talos: a machine config template (machineconfig.yaml.j2) is read with its template markup neutralised', () => {
  const template = [
    'version: v1alpha1',
    'machine:',
    '  install:',
    '    image: factory.talos.dev/installer:{{ ENV.TALOS_VERSION }}',
    '{% if ENV.GPU %}',
    '  kernel: {modules: [{name: i915}]}',
    '{% endif %}',
    'cluster:',
    '  extraManifests:',
    `    - ${ES_CRD_URL}`,
    '',
  ].join('\n');
  assert.deepEqual(facts({ 'talos/machineconfig.yaml.j2': template }), ['talos crd-group external-secrets.io [external-secrets.io] talos/machineconfig.yaml.j2:10']);
  assert.deepEqual(crdOrder({ 'talos/machineconfig.yaml.j2': template }), []);
});

test('shell: kubectl apply -f over a loop variable applies every item of the array the loop walks', () => {
  const script = [
    '#!/usr/bin/env bash',
    'function apply_crds() {',
    '    local -r crds=(',
    '        # renovate: datasource=github-releases',
    `        ${ES_CRD_URL}`,
    '        https://example.com/unknown.yaml',
    '    )',
    '    for crd in "${crds[@]}"; do',
    '        kubectl apply --server-side --filename "${crd}"',
    '    done',
    '}',
    '',
  ].join('\n');
  assert.deepEqual(facts({ 'scripts/bootstrap.sh': script }), [
    'shell crd-group external-secrets.io [external-secrets.io] scripts/bootstrap.sh:9',
    'shell manifest https://example.com/unknown.yaml [] scripts/bootstrap.sh:9',
  ]);
  assert.deepEqual(crdOrder({ 'scripts/bootstrap.sh': script }), []);
});

test('shell arrays: unclosed array literals and huge lists are read once, bounded', () => {
  const script = `#!/bin/sh\n${'x=(\n'.repeat(50_000)}for v in "\${x[@]}"; do kubectl apply -f "$v"; done\n${'y=(a b c d e f g h i j)\n'.repeat(2_000)}`;
  const out = facts({ 'scripts/hostile.sh': script });
  assert.ok(out.length <= 1000, `${out.length} facts`);
});
