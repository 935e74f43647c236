/**
 * schema-invalid and schema-unknown-field: objects judged by the schema the cluster serves (the
 * Flux release's CRDs, CRDs in the workspace), with CEL rules of the supported subset.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkModel } from '../../../src/core/checks/index';
import { evaluateCel } from '../../../src/core/schema/cel';
import { validateObject, type Schema } from '../../../src/core/schema/structural';
import { memoryRepo } from '../helpers';
import { fluxSchemaBundle } from '../../../scripts/flux-schemas';
import { ROOT_KS } from './fixture';

const found = (files: Record<string, string>) =>
  checkModel(memoryRepo({ 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS, ...files }).model())
    .diagnostics.filter((d) => d.rule.startsWith('schema-'))
    .map((d) => `${d.rule} ${d.severity} ${d.file.slice(d.file.indexOf('/', 1) + 1)}:${d.range.start.line + 1} ${d.message}`);

test('the bundled Flux schemas are those of ../shared/flux-crds', () => {
  const file = path.join(__dirname, '../../../src/core/schema/flux.generated.json');
  assert.equal(fs.readFileSync(file, 'utf8'), fluxSchemaBundle(), 'run node --import tsx scripts/flux-schemas.ts');
});

test('Flux kinds: wrong types, enums and a misspelt field, each on its own node, with the closest field', () => {
  const ks = [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    '  name: apps',
    '  namespace: flux-system',
    'spec:',
    '  intervall: 10m',
    '  interval: 5',
    '  path: ./apps',
    '  prune: "yes"',
    '  sourceRef:',
    '    kind: GitRepo',
    '    name: flux-system',
    '',
  ].join('\n');
  const out = found({ 'apps/apps.yaml': ks, 'apps/kustomization.yaml': 'resources:\n  - apps.yaml\n' });
  assert.deepEqual(out.map((o) => o.split(' ').slice(0, 3).join(' ')), [
    'schema-unknown-field warning apps/apps.yaml:7',
    'schema-invalid error apps/apps.yaml:8',
    'schema-invalid error apps/apps.yaml:10',
    'schema-invalid error apps/apps.yaml:12',
  ]);
  assert.match(out[0], /spec\.intervall is not a field of Kustomization; the API server drops it, so it never takes effect\. Did you mean 'interval'\?/);
  assert.match(out[1], /spec\.interval: the integer 5 where the schema wants a string; the API server rejects the object \(schema: Flux 2\.9 Kustomization v1\)/);
  assert.match(out[3], /"GitRepo" is not one of "OCIRepository", "GitRepository", "Bucket", "ExternalArtifact"/);
});

test('CEL rules of the Flux CRDs: chart or chartRef, retryInterval only with RetryOnFailure', () => {
  const hr = (spec: string) => `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\n  namespace: flux-system\nspec:\n  interval: 10m\n${spec}`;
  const chart = '  chartRef:\n    kind: OCIRepository\n    name: podinfo\n';
  assert.deepEqual(found({ 'apps/hr.yaml': hr(chart) }), []);
  const out = found({ 'apps/hr.yaml': hr('  upgrade:\n    strategy:\n      name: RemediateOnFailure\n      retryInterval: 5m\n') });
  assert.deepEqual(out.map((o) => o.split(' ').slice(0, 3).join(' ')), ['schema-invalid error apps/hr.yaml:6', 'schema-invalid error apps/hr.yaml:9']);
  assert.match(out[0], /spec: either chart or chartRef must be set/);
  assert.match(out[1], /spec\.upgrade\.strategy: \.retryInterval can only be set when \.name is 'RetryOnFailure'/);
  assert.deepEqual(found({ 'apps/hr.yaml': hr(`${chart}  upgrade:\n    strategy:\n      name: RetryOnFailure\n      retryInterval: 5m\n`) }), []);
});

test('custom resources are judged by the CRD the workspace holds; a kind with no schema is never judged', () => {
  const crd = [
    'apiVersion: apiextensions.k8s.io/v1',
    'kind: CustomResourceDefinition',
    'metadata:',
    '  name: widgets.example.com',
    'spec:',
    '  group: example.com',
    '  names: {kind: Widget, plural: widgets}',
    '  scope: Namespaced',
    '  versions:',
    '    - name: v1',
    '      served: true',
    '      storage: true',
    '      schema:',
    '        openAPIV3Schema:',
    '          type: object',
    '          properties:',
    '            spec:',
    '              type: object',
    '              required: [size]',
    '              properties:',
    "                size: {type: integer, maximum: 10}",
    "                colour: {type: string, pattern: '^(a+)+$'}",
    "                labels: {type: object, additionalProperties: {type: string}}",
    "                raw: {type: object, x-kubernetes-preserve-unknown-fields: true}",
    '',
  ].join('\n');
  const widget = (spec: string, kind = 'Widget') => `apiVersion: example.com/v1\nkind: ${kind}\nmetadata:\n  name: w\n  namespace: default\nspec:\n${spec}`;
  const out = found({
    'apps/crd.yaml': crd,
    'apps/w.yaml': widget('  size: 11\n  color: red\n  colour: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb!\n  labels:\n    a: 1\n  raw:\n    anything: [1, 2]\n'),
    'apps/gadget.yaml': widget('  whatever: true\n', 'Gadget'),
    'apps/kustomization.yaml': 'resources:\n  - crd.yaml\n  - w.yaml\n  - gadget.yaml\n',
  });
  assert.deepEqual(out.map((o) => o.split(' ').slice(0, 3).join(' ')), [
    'schema-invalid error apps/w.yaml:7',
    'schema-unknown-field warning apps/w.yaml:8',
    'schema-invalid error apps/w.yaml:11',
  ]);
  assert.match(out[0], /spec\.size: 11 is above the maximum 10/);
  assert.match(out[1], /Did you mean 'colour'\?.*CRD widgets\.example\.com \(apps\/crd\.yaml\)/);
  assert.match(out[2], /spec\.labels\.a: the integer 1 where the schema wants a string/);
  // The repository's own pattern (catastrophic backtracking on that value) is not evaluated.
  assert.ok(!out.some((o) => o.includes('pattern')));
});

test('a value left for post-build substitution is not judged; nulls are dropped as the API server does', () => {
  const git = (interval: string) => `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: app\n  namespace: flux-system\nspec:\n  interval: ${interval}\n  url: https://github.com/x/y\n  ref:\n`;
  assert.deepEqual(found({ 'apps/git.yaml': git('${SYNC_INTERVAL}') }), []);
  assert.equal(found({ 'apps/git.yaml': git('60') }).length, 1);
});

test('two candidate schemas must agree before a finding is reported', () => {
  const loose: Schema = { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } };
  const strict: Schema = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } };
  const body = { spec: { b: 1 } };
  assert.equal(validateObject(body, strict, { patterns: true }).length, 1);
  assert.equal(validateObject(body, loose, { patterns: true }).length, 0);
});

test('CEL subset: has, comparisons, short-circuits in both orders, and anything else left undecided', () => {
  assert.equal(evaluateCel("has(self.a) || has(self.b)", { b: 1 }), true);
  assert.equal(evaluateCel("!has(self.a) || self.a.x == 'y'", {}), true);
  assert.equal(evaluateCel("self.p == 'aws' || !has(self.sts)", { sts: {} }), undefined);
  assert.equal(evaluateCel("self.p == 'aws' || !has(self.sts)", { p: 'gcp', sts: {} }), false);
  assert.equal(evaluateCel('self.x.startsWith("a")', { x: 'a' }), undefined);
  assert.equal(evaluateCel('size(self.items) > 0', { items: [] }), undefined);
  assert.equal(evaluateCel('('.repeat(5000), {}), undefined);
});

test('two missing required fields of one mapping are two findings, not one cause found twice', () => {
  const ks = 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n';
  const out = found({ 'apps/apps.yaml': ks, 'apps/kustomization.yaml': 'resources:\n  - apps.yaml\n' });
  assert.deepEqual(out.map((o) => /required field '(\w+)'/.exec(o)?.[1]).sort(), ['interval', 'prune']);
  assert.ok(out.every((o) => !o.includes('Also in')), out.join('\n'));
});
