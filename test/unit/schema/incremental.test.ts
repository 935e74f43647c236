/**
 * The schema check across edits (issue 26): what an edit cannot change is reused (schema lists,
 * reported findings), and whatever it can change is judged again: a CRD edited or removed, the
 * object's own document, the connected cluster's CRDs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../../../src/core/checks/index';
import { CheckContext } from '../../../src/core/checks/context';
import { checkSchemas } from '../../../src/core/checks/schema';
import { schemasFor } from '../../../src/core/schema/catalog';
import type { ClusterCrds } from '../../../src/core/schema/clusterCrds';
import type { RepoModel } from '../../../src/core/model/graph';
import { memoryRepo } from '../helpers';
import { configMap, crd, ROOT_KS, widget } from './fixture';

const FILES = {
  'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS,
  'apps/kustomization.yaml': 'resources:\n  - crd.yaml\n  - w.yaml\n  - cm.yaml\n',
  'apps/crd.yaml': crd(10),
  'apps/w.yaml': widget(11),
  'apps/cm.yaml': configMap('a'),
};

const schemaFindings = (model: RepoModel, clusterCrds?: ClusterCrds) => {
  const ctx = new CheckContext(model, { clusterCrds });
  checkSchemas(ctx);
  return ctx.diagnostics;
};
const lines = (model: RepoModel, clusterCrds?: ClusterCrds) =>
  checkModel(model, { clusterCrds })
    .diagnostics.filter((d) => d.rule.startsWith('schema-'))
    .map((d) => `${d.rule} ${d.file.slice('/repo/'.length)}:${d.range.start.line + 1} ${d.message.split(';')[0]}`);

test('an edit of an unrelated file keeps the schema lists and the reported findings, the very same objects', () => {
  const repo = memoryRepo(FILES);
  const before = repo.model();
  const sources = schemasFor(before, 'example.com/v1', 'Widget');
  const found = schemaFindings(before);
  assert.equal(found.length, 1);
  const text = lines(before);
  repo.setBuffer('/repo/apps/cm.yaml', configMap('b'));
  const after = repo.model();
  assert.notEqual(after, before);
  assert.equal(schemasFor(after, 'example.com/v1', 'Widget'), sources);
  const again = schemaFindings(after);
  assert.equal(again.length, 1);
  assert.equal(again[0], found[0]);
  assert.deepEqual(lines(after), text);
});

test('a CRD edit judges its custom resources again; a CRD removed leaves them unjudged', () => {
  const repo = memoryRepo(FILES);
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
  const sources = schemasFor(repo.model(), 'example.com/v1', 'Widget');
  // The maximum raised: the same body, judged by the new schema, passes.
  repo.setBuffer('/repo/apps/crd.yaml', crd(20));
  assert.notEqual(schemasFor(repo.model(), 'example.com/v1', 'Widget'), sources);
  assert.deepEqual(lines(repo.model()), []);
  // Lowered below the value again, then a second field in the CRD (the same maximum): found again each time.
  repo.setBuffer('/repo/apps/crd.yaml', crd(5));
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 5']);
  repo.setBuffer('/repo/apps/crd.yaml', crd(10, '                colour: {type: string}'));
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
  // The CRD gone (its file emptied): no schema, no finding.
  repo.setBuffer('/repo/apps/crd.yaml', '');
  assert.deepEqual(schemasFor(repo.model(), 'example.com/v1', 'Widget'), []);
  assert.deepEqual(lines(repo.model()), []);
  // And back.
  repo.setBuffer('/repo/apps/crd.yaml', crd(10));
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
});

test("an edit of the object's own file reports at its new place; the connected cluster's CRDs count as they change", () => {
  const repo = memoryRepo(FILES);
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
  // A comment above moves the finding, though the object's body is the same.
  repo.setBuffer('/repo/apps/w.yaml', `# a widget\n${widget(11)}`);
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:8 Widget default/w: spec.size: 11 is above the maximum 10']);
  repo.setBuffer('/repo/apps/w.yaml', widget(3));
  assert.deepEqual(lines(repo.model()), []);
  // The cluster serves a laxer copy: both schemas must agree, so nothing; then one that flags it too.
  const served = (maximum: number): ClusterCrds => ({
    context: 'prod',
    server: 'https://prod',
    crds: [{ name: 'widgets.example.com', group: 'example.com', kind: 'Widget', versions: [{ name: 'v1', schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', maximum } } } } } }] }],
  });
  repo.setBuffer('/repo/apps/w.yaml', widget(11));
  assert.deepEqual(lines(repo.model(), served(20)), []);
  assert.deepEqual(lines(repo.model(), served(10)), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
  assert.deepEqual(lines(repo.model()), ['schema-invalid apps/w.yaml:7 Widget default/w: spec.size: 11 is above the maximum 10']);
});

test('applied objects the model keeps across an edit keep their findings, which are those of a fresh model', () => {
  const ks = (name: string) =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./${name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
  const files: Record<string, string> = {
    'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS,
    'apps/kustomization.yaml': 'resources:\n  - crd.yaml\n  - one.yaml\n  - two.yaml\n',
    'apps/crd.yaml': crd(10),
    'apps/one.yaml': ks('one'),
    'apps/two.yaml': ks('two'),
    'one/w.yaml': widget(11),
    'two/w.yaml': widget(12).replace('name: w', 'name: w2'),
  };
  const repo = memoryRepo(files);
  const before = repo.model();
  const found = schemaFindings(before);
  assert.equal(found.length, 2, JSON.stringify(found.map((d) => d.message)));
  const twoBefore = before.clusters[0].objects.find((a) => a.name === 'w2')!;
  // An edit of the first Kustomization's widget: the second's subtree, and its finding, stay the very same.
  repo.setBuffer('/repo/one/w.yaml', widget(13));
  const after = repo.model();
  const twoAfter = after.clusters[0].objects.find((a) => a.name === 'w2')!;
  assert.equal(twoAfter, twoBefore, 'the model keeps the untouched applied object');
  const again = schemaFindings(after);
  assert.equal(again.find((d) => d.file.endsWith('two/w.yaml')), found.find((d) => d.file.endsWith('two/w.yaml')));
  // What a model built afresh from the same files reports, message for message.
  const fresh = memoryRepo({ ...files, 'one/w.yaml': widget(13) }).model();
  const plain = (ds: typeof found) => ds.map((d) => `${d.rule} ${d.file}:${d.range.start.line} ${d.message}`).sort();
  assert.deepEqual(plain(again), plain(schemaFindings(fresh)));
  assert.ok(again.some((d) => d.message.includes('13 is above the maximum 10')), JSON.stringify(again.map((d) => d.message)));
});
