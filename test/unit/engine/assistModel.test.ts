/**
 * Completion after a keystroke (issue 26): answered from the model built before it when the edit
 * cannot change the answer (Folder.assistModel, assistUnchanged), from the buffer's current text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { schemasFor } from '../../../src/core/schema/catalog';
import { schemaCompletion } from '../../../src/core/schema/assist';
import { memoryHost } from '../../../src/core/workspace/host';
import { Folder } from '../../../src/engine/folder';
import { configMap, crd, ROOT_KS, widget } from '../schema/fixture';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const KS = (extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  dependsOn:\n    - name: \n${extra}`;
const OTHER = `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: infra\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./infra\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

const nameAt = (text: string) => text.indexOf('    - name: ') + '    - name: '.length;

function folder(): Folder {
  const files = { 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS.replace('./apps', './clusters/prod'), 'clusters/prod/apps.yaml': KS(), 'clusters/prod/infra.yaml': OTHER, ...{ 'apps/crd.yaml': crd(10), 'apps/w.yaml': widget(3) } };
  return new Folder('/repo', memoryHost('/repo', files), { sha256 });
}

test('completion after a keystroke answers from the last model when the edit cannot change the answer, from the current text', () => {
  const f = folder();
  const before = f.model();
  const file = '/repo/clusters/prod/apps.yaml';
  // A new line in spec, where a key is about to be written, leaves what the model knows: the last model, no rebuild.
  const typed = KS().replace('  interval: 10m\n', '  interval: 10m\n  \n');
  f.repo.setBuffer(file, typed);
  const offset = typed.indexOf('10m\n  \n') + '10m\n  '.length;
  assert.equal(f.assistModel(file, offset), before);
  const stale = schemaCompletion(f.assistModel(file, offset), file, offset);
  const fresh = schemaCompletion(f.model(), file, offset);
  assert.ok(stale.some((c) => c.label === 'timeout'));
  assert.ok(!stale.some((c) => c.label === 'dependsOn'));
  assert.deepEqual(stale, fresh);
  // Names after `dependsOn: - name: ` from the last model (documents matched by path and index).
  const current = f.model();
  f.repo.setBuffer(file, KS(' '));
  const at = nameAt(KS());
  assert.equal(f.assistModel(file, at), current);
  assert.deepEqual(schemaCompletion(f.assistModel(file, at), file, at).map((c) => c.label), ['flux-system', 'infra']);
  // What the Kustomization applies changed: a place whose answer is the bundled schema's alone still
  // answers from the last model, a `name:` (the objects it may name) from the rebuilt one.
  const built = f.model();
  const moved = KS().replace('path: ./apps', 'path: ./other').replace('  interval: 10m\n', '  interval: 10m\n  \n');
  f.repo.setBuffer(file, moved);
  const blank = moved.indexOf('10m\n  \n') + '10m\n  '.length;
  assert.equal(f.assistModel(file, blank), built);
  assert.deepEqual(schemaCompletion(f.assistModel(file, blank), file, blank), schemaCompletion(f.model(), file, blank));
  f.repo.setBuffer(file, KS().replace('path: ./apps', 'path: ./other2'));
  assert.notEqual(f.assistModel(file, nameAt(KS())), built);
});

test('completion rebuilds the model when the edit can change what the answer reads of it: a CRD, other documents, the path, another file', () => {
  const f = folder();
  const file = '/repo/clusters/prod/apps.yaml';
  const cases: [string, string, string][] = [
    ['a CRD in the edited file', file, `${KS()}---\n${crd(5)}`],
    ['another document', file, `${KS()}---\n${configMap('x')}`],
    ['the Kustomization renamed', file, KS().replace('name: apps', 'name: apps2')],
    ['what it applies', file, KS().replace('path: ./apps', 'path: ./other')],
    ['a CRD file edited', '/repo/apps/crd.yaml', crd(6)],
  ];
  for (const [what, path, text] of cases) {
    const before = f.model();
    f.repo.setBuffer(path, text);
    const now = path === file ? text : KS();
    assert.notEqual(f.assistModel(file, nameAt(now)), before, what);
    f.repo.setBuffer(path, undefined);
    f.model();
  }
  // Two files edited since the last model: rebuilt.
  const before = f.model();
  f.repo.setBuffer(file, KS('  '));
  f.repo.setBuffer('/repo/clusters/prod/infra.yaml', OTHER.replace('10m', '5m'));
  assert.notEqual(f.assistModel(file, 0), before);
  // Several keystrokes in one file: still the last model.
  const built = f.model();
  f.repo.setBuffer(file, KS(' '));
  f.repo.setBuffer(file, KS('  '));
  f.repo.setBuffer(file, KS('  # a comment'));
  assert.equal(f.assistModel(file, nameAt(KS())), built);
  // A document that no longer parses (a key half typed): rebuilt, as what the model holds of it changes.
  f.repo.setBuffer(file, KS('  ti'));
  assert.notEqual(f.assistModel(file, nameAt(KS())), built);
  // A CRD typed into the file is seen at once: the Widget CRD's new maximum is in the answer's model.
  f.repo.setBuffer('/repo/apps/crd.yaml', crd(7));
  const model = f.assistModel('/repo/apps/crd.yaml', 0);
  assert.notEqual(model, built);
  assert.match(JSON.stringify(schemasFor(model, 'example.com/v1', 'Widget')[0].schema), /"maximum":7/);
});
