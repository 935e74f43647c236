import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, memoryRepo } from './helpers';

const KS = (name: string, path: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n${extra}`;

test('bad input never crashes the checker and the rest of the repo is still checked', () => {
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (const [i, n] of ['b', 'c', 'd', 'e', 'f', 'g'].entries()) bomb.push(`${n}: &${n} [${Array(9).fill(`*${'abcdef'[i]}`).join(',')}]`);
  const files: Record<string, string> = {
    'clusters/test/root.yaml': KS('root', './clusters/test/apps'),
    'clusters/test/apps/apps.yaml': KS('apps', './apps', '  dependsOn:\n    - name: missing\n'),
    'apps/truncated.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "trunc',
    'apps/binary.yaml': 'apiVersion: v1\u0000\u0001\u0002garbage',
    'apps/deep.yaml': 'a: ' + '['.repeat(20000) + ']'.repeat(20000),
    'apps/huge.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\n  namespace: default\ndata:\n' + '  k: "' + 'x'.repeat(10 * 1024 * 1024) + '"\n',
    'apps/bomb.yaml': bomb.join('\n') + '\n',
    'apps/latin1.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\uFFFD\n  namespace: default\ndata:\n  k: "\uFFFD\uFFFD"\n',
    'apps/ok.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n  namespace: default\n',
  };
  const repo = memoryRepo(files);
  const result = check(repo);
  assert.deepEqual(result.failures, []);
  const by = (file: string) => result.diagnostics.filter((d) => d.file === `/repo/${file}`).map((d) => [d.rule, d.severity, d.message]);
  assert.match(String(by('apps/truncated.yaml')[0]), /^yaml-syntax,error,/);
  assert.match(String(by('apps/binary.yaml')[0]), /^yaml-syntax,error,File contains binary data/);
  assert.match(String(by('apps/deep.yaml')[0]), /^yaml-syntax,error,YAML is nested too deeply/);
  assert.match(String(by('apps/huge.yaml')[0]), /^file-too-large,warning,File is 10 MB, larger than the 5 MB read limit/);
  assert.match(String(by('apps/bomb.yaml')[0]), /^yaml-syntax,error,Aliases expand this document by more than 100,000 nodes/);
  // Replacement characters from a non-UTF-8 file are just text: silence.
  assert.deepEqual(by('apps/latin1.yaml'), []);
  assert.deepEqual(by('apps/ok.yaml'), []);
  // The rest of the repository is still checked.
  const dep = result.diagnostics.filter((d) => d.rule === 'depends-on-not-found');
  assert.equal(dep.length, 1);
  assert.equal(dep[0].file, '/repo/clusters/test/apps/apps.yaml');
});

test('non-Flux YAML and odd shapes do not trip the rules', () => {
  const repo = memoryRepo({
    'clusters/test/root.yaml': KS('root', './apps', '  dependsOn: "not-a-list"\n  postBuild: 42\n'),
    'apps/list.yaml': '- a\n- b\n',
    'apps/scalar.yaml': 'just text\n',
    'apps/empty.yaml': '',
    'apps/odd.yaml': 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: odd}\nspec:\n  dependsOn: [{}, {name: 42}, null]\n  path: 7\n',
    'apps/cr.yaml': 'apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t}\n',
  });
  const result = check(repo);
  assert.deepEqual(result.failures, []);
  for (const d of result.diagnostics) assert.notEqual(d.rule, 'yaml-syntax');
});
