import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secretGeneratorValues } from '../../../src/core/flux/generatorSecrets';
import type { SourceTree } from '../../../src/core/flux/confine';

function tree(files: Record<string, string>): SourceTree {
  return { readFile: (vp) => files[vp], isDir: () => false };
}

test('secretGeneratorValues: literals and env lines of every kustomization file, whole and after =', () => {
  const files = {
    'apps/kustomization.yaml': 'secretGenerator:\n  - name: a\n    literals: [pw=hunter2, no-equals-secret]\n    envs: [../env/s.env]\n',
    'env/s.env': '# a comment\nTOKEN=t0ken\n\nbare-line\n',
    'base/Kustomization': 'ſecretGenerator:\n  - name: b\n    env: b.env\n',
    'base/b.env': 'B=bee\n',
    'other/kustomization.yaml': 'configMapGenerator:\n  - name: c\n    literals: [not=secret]\n',
    'apps/readme.yaml': 'secretGenerator:\n  - literals: [ignored=x]\n',
  };
  assert.deepEqual(
    [...secretGeneratorValues(tree(files), Object.keys(files))].sort(),
    ['B=bee', 'TOKEN=t0ken', 'bare-line', 'bee', 'hunter2', 'no-equals-secret', 'pw=hunter2', 't0ken'],
  );
});

test('secretGeneratorValues: a kustomization that does not parse gives nothing', () => {
  assert.equal(secretGeneratorValues(tree({ 'kustomization.yaml': 'secretGenerator: [' }), ['kustomization.yaml']).size, 0);
});
