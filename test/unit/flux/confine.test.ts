import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kustomizeConfinement, resolveInSource, type SourceTree } from '../../../src/core/flux/confine';
import { KUSTOMIZATION_FILE_NAMES } from '../../../src/core/kinds';
import { CORPORA } from '../helpers';

function memTree(files: Record<string, string>): SourceTree {
  const dirs = new Set<string>(['']);
  for (const f of Object.keys(files)) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return { readFile: (p) => files[p], isDir: (p) => dirs.has(p) };
}

const problems = (files: Record<string, string>, dir = 'app') => kustomizeConfinement(memTree(files), dir);
const summary = (files: Record<string, string>, dir = 'app') => problems(files, dir).map((p) => `${p.file}|${p.field}|${p.entry}`);

test('paths resolve inside the source; absolute and escaping ones are refused', () => {
  assert.deepEqual(resolveInSource('apps/prod', '../base'), { vpath: 'apps/base' });
  assert.deepEqual(resolveInSource('apps/prod', './x/../y.yaml'), { vpath: 'apps/prod/y.yaml' });
  for (const bad of ['/etc/passwd', '../../../etc/passwd', '..\\..\\..\\x', 'C:\\Windows', 'file:///etc/passwd', '{/../../../../etc/passwd']) {
    assert.ok('reason' in resolveInSource('apps/prod', bad), bad);
  }
});

test('valid kustomizations with ../ inside the source, generators and plugin configs inside it pass', () => {
  assert.deepEqual(
    summary({
      'app/kustomization.yaml': [
        'resources: [../base, cm.yaml]',
        'components: [../components/extra]',
        'configMapGenerator:',
        '  - name: a',
        '    files: [key=../data/a.txt, ../data/b.txt]',
        '    envs: [../data/env]',
        'patches:',
        '  - path: ../patches/p.yaml',
        '  - patch: |-',
        '      - op: add',
        '        path: /metadata/labels/x',
        '        value: y',
        'generators:',
        '  - gen.yaml',
        '  - |',
        '    apiVersion: builtin',
        '    kind: SecretGenerator',
        '    metadata: {name: s}',
        '    files: [../data/a.txt]',
        'transformers: [../transformers]',
        'openapi: {path: ../schema.json}',
      ].join('\n'),
      'app/gen.yaml': 'apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: g}\nfiles: [../data/a.txt]\n',
      'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n',
      'base/kustomization.yaml': 'resources: [deploy.yaml]\n',
      'components/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
      'transformers/kustomization.yaml': 'resources: [labels.yaml]\n',
      'transformers/labels.yaml': 'apiVersion: builtin\nkind: LabelTransformer\nmetadata: {name: l}\nlabels: {a: b}\nfieldSpecs: [{path: metadata/labels, create: true}]\n',
    }),
    [],
  );
});

test('an inline ConfigMapGenerator reading /etc/passwd and /proc/self/environ is refused', () => {
  const got = summary({
    'app/kustomization.yaml': 'generators:\n  - |\n    apiVersion: builtin\n    kind: ConfigMapGenerator\n    metadata: {name: leak}\n    files: [/etc/passwd, env=/proc/self/environ]\n',
  });
  assert.deepEqual(got, [
    'app/kustomization.yaml|generators[0] (inline) (ConfigMapGenerator).files[0]|/etc/passwd',
    'app/kustomization.yaml|generators[0] (inline) (ConfigMapGenerator).files[1]|/proc/self/environ',
  ]);
  // A one-line flow mapping is inline too (kustomize decides by parsing, not by newlines).
  assert.equal(problems({ 'app/kustomization.yaml': "generators: ['{apiVersion: builtin, kind: ConfigMapGenerator, metadata: {name: x}, files: [/etc/passwd]}']\n" }).length, 1);
});

test('a generator config file reading outside, and generator entries pointing outside, are refused', () => {
  assert.deepEqual(summary({
    'app/kustomization.yaml': 'generators: [gen.yaml]\ntransformers: [../../outside/t.yaml]\nvalidators: [/etc/v.yaml]\n',
    'app/gen.yaml': 'apiVersion: builtin\nkind: SecretGenerator\nmetadata: {name: s}\nenvs: [../../../home/user/.env]\nenv: /etc/environment\n',
  }), [
    'app/kustomization.yaml|transformers[0]|../../outside/t.yaml',
    'app/kustomization.yaml|validators[0]|/etc/v.yaml',
    'app/gen.yaml|plugin config (SecretGenerator).envs[0]|../../../home/user/.env',
    'app/gen.yaml|plugin config (SecretGenerator).env|/etc/environment',
  ].sort((a, b) => (a.startsWith('app/kustomization') === b.startsWith('app/kustomization') ? 0 : a.startsWith('app/kustomization') ? 1 : -1)));
});

test('an absolute path is refused even when the repository has a same-named decoy', () => {
  const files = {
    'app/kustomization.yaml': 'resources: [/etc/passwd.yaml]\nconfigMapGenerator:\n  - name: c\n    files: [/etc/passwd]\n',
    'etc/passwd': 'decoy',
    'etc/passwd.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: decoy}\n',
  };
  assert.deepEqual(summary(files), ['app/kustomization.yaml|resources[0]|/etc/passwd.yaml', 'app/kustomization.yaml|configMapGenerator[0].files[0]|/etc/passwd']);
});

test('every path-bearing field, nested kustomizations, and kustomize\'s case-insensitive and merge-key spellings are checked', () => {
  const got = summary({
    'app/kustomization.yaml': [
      'resources: [../base]',
      'Resources: [/a]',
      'reſources: [/b]',
      'crds: [/c]',
      'configurations: [/d]',
      'patchesStrategicMerge: [/e]',
      'patchesJson6902: [{path: /f, target: {kind: X}}]',
      'replacements: [{path: /g}]',
      'openapi: {Path: /h}',
      'x-anchor: &gen {name: m, files: [/i]}',
    ].join('\n'),
    'base/kustomization.yaml': 'secretGenerator:\n  - <<: {name: s, env: /j}\nbases: [../../k]\ncomponents: [/l]\n',
  });
  const entries = got.map((g) => g.split('|')[2]).sort();
  assert.deepEqual(entries, ['../../k', '/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h', '/j', '/l']);
});

test('remote bases, helm inflation and external plugins are refused; a plugin folder may use any field', () => {
  const got = problems({
    'app/kustomization.yaml': [
      'resources: [github.com/org/repo//deploy?ref=v1, git@github.com:org/repo.git, https://example.com/x.yaml]',
      'helmCharts: [{name: podinfo, repo: https://x}]',
      'generators:',
      '  - |',
      '    apiVersion: example.com/v1',
      '    kind: Exec',
      '    metadata: {name: e, annotations: {config.kubernetes.io/function: "exec: {path: /bin/sh}"}}',
      '  - |',
      '    apiVersion: builtin',
      '    kind: HelmChartInflationGenerator',
      '    metadata: {name: h}',
      'transformers: [../rewrite]',
    ].join('\n'),
    'rewrite/kustomization.yaml': 'resources: [t.yaml]\npatches:\n  - patch: \'[{"op":"replace","path":"/files/0","value":"/etc/passwd"}]\'\n    target: {kind: ConfigMapGenerator}\n',
    'rewrite/t.yaml': 'apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: {name: t}\nfiles: [ok.txt]\n',
  });
  const reasons = got.map((p) => `${p.field}: ${p.reason}`).join('\n');
  assert.equal(got.filter((p) => /remote base/.test(p.reason)).length, 3, reasons);
  assert.match(reasons, /helmCharts: kustomize-controller never runs kustomize with --enable-helm/);
  assert.match(reasons, /not a kustomize builtin plugin/);
  assert.match(reasons, /HelmChartInflationGenerator\): inflates a Helm chart/);
  // kustomize builds a plugin folder as any kustomization (a namespace, patches); the build reads
  // only the in-memory artifact, so a rewritten config cannot reach outside (render/hardening.test.ts).
  assert.ok(!got.some((p) => p.file.startsWith('rewrite/')), reasons);
});

test('a kustomization that cannot be parsed is refused rather than built unchecked', () => {
  const got = problems({ 'app/kustomization.yaml': 'resources: [a]\nresources: [/etc/passwd]\n' });
  assert.equal(got.length, 1);
  assert.match(got[0].reason, /not valid YAML/);
});

test('corpora: no kustomization of the real-world repositories is refused, except for remote bases and helmCharts', () => {
  assert.ok(fs.existsSync(CORPORA), `corpora missing at ${CORPORA}`);
  let checked = 0;
  for (const corpus of fs.readdirSync(CORPORA)) {
    const root = path.join(CORPORA, corpus);
    if (!fs.statSync(root).isDirectory()) continue;
    const tree: SourceTree = {
      readFile: (p) => {
        try {
          const f = path.join(root, p);
          return fs.lstatSync(f).isFile() ? fs.readFileSync(f, 'utf8') : undefined;
        } catch {
          return undefined;
        }
      },
      isDir: (p) => {
        try {
          return fs.lstatSync(path.join(root, p)).isDirectory();
        } catch {
          return false;
        }
      },
    };
    const walk = (rel: string) => {
      const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
      if (entries.some((e) => e.isFile() && KUSTOMIZATION_FILE_NAMES.includes(e.name))) {
        // Remote bases and helmCharts are refused as kustomize-controller refuses them; real repositories keep
        // such kustomizations for tools other than Flux (a Talos bootstrap runs `kustomize build --enable-helm`).
        const refused = kustomizeConfinement(tree, rel).filter((p) => !/remote base/.test(p.reason) && p.field !== 'helmCharts');
        assert.deepEqual(refused, [], `${corpus}/${rel}`);
        checked++;
      }
      for (const e of entries) if (e.isDirectory() && e.name !== '.git') walk(rel ? `${rel}/${e.name}` : e.name);
    };
    walk('');
  }
  assert.ok(checked > 100, `only ${checked} kustomizations checked`);
});
