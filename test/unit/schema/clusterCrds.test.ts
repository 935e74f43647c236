/**
 * The connected cluster's CRDs as a schema source: custom resources the workspace holds no CRD for
 * are judged, hovered and completed by them, named as `CRD <name> (cluster <context>)`; they are
 * untrusted (no pattern compiled from them) and, like every source, must agree with the others.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkModel } from '../../../src/core/checks/index';
import { schemaCompletion, schemaHover } from '../../../src/core/schema/assist';
import { schemasFor } from '../../../src/core/schema/catalog';
import { clusterCrdsFrom, servedCrdOf, type ClusterCrds } from '../../../src/core/schema/clusterCrds';
import bundle from '../../../src/core/schema/flux.generated.json';
import { memoryRepo } from '../helpers';
import { ROOT_KS } from './fixture';


const WIDGET_SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', maximum: 10, description: 'How big the widget is.' },
        colour: { type: 'string', pattern: '^(a+)+$', enum: ['red', 'blue', 'aaaa'] },
      },
    },
  },
};

const widgetCrd = (schema: Record<string, unknown> = WIDGET_SCHEMA) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
});

const cluster = (...crds: unknown[]): ClusterCrds => ({ context: 'prod', server: 'https://prod.example.com', crds: crds.map((c) => servedCrdOf(c)!) });

const WIDGET = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  size: 3\n  color: red\n';

const schemaFindings = (files: Record<string, string>, clusterCrds?: ClusterCrds) =>
  checkModel(memoryRepo({ 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS, ...files }).model(), { clusterCrds })
    .diagnostics.filter((d) => d.rule.startsWith('schema-'))
    .map((d) => `${d.rule} ${d.range.start.line + 1} ${d.message}`);

test('a custom resource whose CRD only the cluster has: judged by it, named as the cluster CRD; unjudged without it', () => {
  assert.deepEqual(schemaFindings({ 'apps/w.yaml': WIDGET }), []);
  const out = schemaFindings({ 'apps/w.yaml': WIDGET }, cluster(widgetCrd()));
  assert.equal(out.length, 1, out.join('\n'));
  assert.match(out[0], /^schema-unknown-field 8 Widget default\/w: spec\.color is not a field of Widget; the API server drops it.*Did you mean 'colour'\?.*\(schema: CRD widgets\.example\.com \(cluster prod\) Widget v1\)/);
  // Another version than the cluster serves has no schema.
  assert.deepEqual(schemaFindings({ 'apps/w.yaml': WIDGET.replace('example.com/v1', 'example.com/v2') }, cluster(widgetCrd())), []);
});

test("a custom resource at a version the cluster's CRD does not serve is api-version-unserved, naming it; a version any known CRD serves is not", () => {
  const served = (files: Record<string, string>, clusterCrds?: ClusterCrds) =>
    checkModel(memoryRepo({ 'clusters/prod/flux-system/gotk-sync.yaml': ROOT_KS, ...files }).model(), { clusterCrds })
      .diagnostics.filter((d) => d.rule === 'api-version-unserved')
      .map((d) => d.message);
  const v2 = { 'apps/w.yaml': WIDGET.replace('example.com/v1', 'example.com/v2') };
  assert.deepEqual(served(v2), []);
  const out = served(v2, cluster(widgetCrd()));
  assert.equal(out.length, 1);
  assert.match(out[0], /example\.com\/v2 is a version no known CRD of Widget serves \(example\.com\/v1; from CRD widgets\.example\.com \(cluster prod\)\)/);
  const both = widgetCrd();
  both.spec.versions.push({ ...both.spec.versions[0], name: 'v2', storage: false });
  assert.deepEqual(served({ ...v2, 'apps/crd.yaml': JSON.stringify(widgetCrd()) }, cluster(both)), [], 'the cluster serves v2: the cluster may run its CRD');
});

test("the cluster's schema is untrusted: its patterns are not compiled", () => {
  const sources = schemasFor(memoryRepo({}).model(), 'example.com/v1', 'Widget', cluster(widgetCrd()));
  assert.deepEqual(sources.map((s) => [s.origin, s.trusted]), [['CRD widgets.example.com (cluster prod)', false]]);
  const bad = WIDGET.replace('  color: red\n', `  colour: ${'a'.repeat(40)}!\n`);
  // Only the enum speaks; the backtracking pattern would have hung.
  const out = schemaFindings({ 'apps/w.yaml': bad }, cluster(widgetCrd()));
  assert.equal(out.length, 1, out.join('\n'));
  assert.match(out[0], /is not one of "red", "blue", "aaaa"/);
});

test('a workspace CRD and the cluster CRD must agree before a finding stands', () => {
  const crdYaml = JSON.stringify(widgetCrd({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }));
  assert.deepEqual(schemaFindings({ 'apps/crd.yaml': crdYaml, 'apps/w.yaml': WIDGET }, cluster(widgetCrd())), []);
  const same = schemaFindings({ 'apps/crd.yaml': JSON.stringify(widgetCrd()), 'apps/w.yaml': WIDGET }, cluster(widgetCrd()));
  assert.equal(same.length, 1);
  assert.match(same[0], /schema: CRD widgets\.example\.com \(apps\/crd\.yaml\), CRD widgets\.example\.com \(cluster prod\) Widget v1/);
});

test("a Flux kind's pattern finding stands beside the cluster's copy of its CRD when the copy holds the same pattern", () => {
  const fluxKs = (bundle as { schemas: Record<string, Record<string, unknown>> }).schemas['kustomize.toolkit.fluxcd.io/v1/Kustomization'];
  const fluxCrd = (schema: Record<string, unknown>) => ({
    metadata: { name: 'kustomizations.kustomize.toolkit.fluxcd.io' },
    spec: { group: 'kustomize.toolkit.fluxcd.io', names: { kind: 'Kustomization' }, versions: [{ name: 'v1', served: true, schema: { openAPIV3Schema: schema } }] },
  });
  const apps = ROOT_KS.replace('name: flux-system\n  namespace', 'name: apps\n  namespace').replace('interval: 10m', 'interval: 10 minutes');
  const files = { 'apps/apps.yaml': apps };
  const alone = schemaFindings(files);
  assert.equal(alone.length, 1);
  assert.match(alone[0], /does not match the pattern/);
  assert.deepEqual(schemaFindings(files, cluster(fluxCrd(fluxKs))).map((o) => o.split(' (schema')[0]), alone.map((o) => o.split(' (schema')[0]));
  // A copy without the pattern would accept the value: the cluster may run it, so nothing is said.
  const loose = structuredClone(fluxKs) as { properties: { spec: { properties: { interval: Record<string, unknown> } } } };
  delete loose.properties.spec.properties.interval.pattern;
  assert.deepEqual(schemaFindings(files, cluster(fluxCrd(loose))), []);
});

test("hover and completion answer from the cluster's CRD", () => {
  const text = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n  \n';
  const model = memoryRepo({ 'apps/w.yaml': text }).model();
  const crds = cluster(widgetCrd());
  assert.equal(schemaHover(model, '/repo/apps/w.yaml', text.indexOf('size') + 1), undefined);
  const hover = schemaHover(model, '/repo/apps/w.yaml', text.indexOf('size') + 1, undefined, { clusterCrds: crds });
  assert.ok(hover);
  assert.match(hover.markdown, /^\*\*size\*\* · integer/);
  assert.match(hover.markdown, /How big the widget is\\\./);
  assert.match(hover.markdown, /Schema: CRD widgets\\\.example\\\.com \\\(cluster prod\\\)/);
  const offset = text.indexOf('  \n') + 2;
  assert.deepEqual(schemaCompletion(model, '/repo/apps/w.yaml', offset), []);
  assert.deepEqual(schemaCompletion(model, '/repo/apps/w.yaml', offset, undefined, { clusterCrds: crds }).map((c) => c.label), ['colour']);
});

test('a set read back is checked entry by entry; a value of another shape is refused', () => {
  assert.ok('error' in clusterCrdsFrom([]));
  assert.ok('error' in clusterCrdsFrom({ context: 'prod', crds: [] }));
  const read = clusterCrdsFrom({
    context: 'prod',
    server: 'https://prod.example.com',
    crds: [servedCrdOf(widgetCrd()), { name: 'x', group: 'g', kind: 'K', versions: [{ name: 'v1', schema: 'not a schema' }] }, null, { name: 'y', group: 'g', versions: [] }],
  });
  assert.ok('crds' in read);
  assert.deepEqual(read.crds.crds.map((c) => c.name), ['widgets.example.com']);
  // Only served versions with a schema count.
  const unserved = widgetCrd();
  unserved.spec.versions[0].served = false;
  assert.equal(servedCrdOf(unserved), undefined);
});
