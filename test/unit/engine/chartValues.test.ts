/**
 * Hover and completion inside a HelmRelease's `spec.values`, from its chart (engine/chartValues.ts,
 * core/helm/chartValues.ts): the real app-template (a values.schema.json of allOf branches under
 * additionalProperties) from a chart cache, and podinfo (no schema: values.yaml's keys, defaults
 * and comments) as a workspace chart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { schemaCompletion, schemaHover } from '../../../src/core/schema/assist';
import { chartValuesOf, valuesFields } from '../../../src/core/helm/chartValues';
import { chartCache, folderOf, gotkSync, helmReleaseYaml, helmRepositoryYaml, helmTmp, ks, refined, writeChartFolder, writeFiles } from './helmFixture';

const tmp = helmTmp();

const APP = `${helmRepositoryYaml('bjw-s')}---\n${helmReleaseYaml(
  'web',
  'apps',
  'app-template',
  '  values:\n    controllers:\n      main:\n        replicas: 2\n        containers:\n          app:\n            probes:\n              liveness:\n                enabled: \n            \n',
  { repo: 'bjw-s', version: '4.1.1' },
)}`;

const PODINFO = helmReleaseYaml('podinfo', 'apps', './charts/podinfo', '  values:\n    replicaCount: 2\n    image:\n      tag: 6.14.1\n    \n');

function repo(): string {
  const root = path.join(tmp.dir, 'repo');
  writeFiles(root, {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/web.yaml': APP,
    'apps/podinfo.yaml': PODINFO,
  });
  writeChartFolder(root, 'podinfo-6.14.1.tgz');
  return root.split(path.sep).join('/');
}

const offsetOf = (text: string, needle: string, after = 0) => {
  const i = text.indexOf(needle);
  assert.ok(i >= 0, needle);
  return i + after;
};

test("spec.values: hover and completion from the chart's schema, else its values.yaml", { timeout: 300_000 }, async () => {
  const root = repo();
  const f = folderOf(root, chartCache(tmp.dir, 'cache', 'app-template', '4.1.1', 'app-template-4.1.1.tgz'));
  await refined(f);
  const model = f.model();
  const charts = (hr: Parameters<typeof f.chartValues>[0]) => f.chartValues(hr);
  const web = `${root}/apps/web.yaml`;
  const podinfo = `${root}/apps/podinfo.yaml`;

  // app-template: replicas is described by the schema (under additionalProperties, in an allOf branch).
  const hover = schemaHover(model, web, offsetOf(APP, 'replicas: 2', 2), charts);
  assert.ok(hover, 'a hover on replicas');
  assert.match(hover.markdown, /^\*\*replicas\*\* · integer or null/);
  assert.match(hover.markdown, /Default: `1`/);
  assert.match(hover.markdown, /Chart: app\\-template\\@4\\.1\\.1/);

  // Completion beside `containers`: the controller's other keys, not those written.
  const beside = schemaCompletion(model, web, offsetOf(APP, '        containers:', 8), charts).map((c) => c.label);
  assert.ok(beside.includes('type') && beside.includes('pod') && beside.includes('initContainers'), beside.join(' '));
  assert.ok(!beside.includes('replicas') && !beside.includes('containers'), beside.join(' '));

  // After `enabled: `: a boolean's values.
  const bools = schemaCompletion(model, web, offsetOf(APP, 'enabled: ', 'enabled: '.length), charts).map((c) => c.label);
  assert.deepEqual(bools, ['true', 'false']);

  // podinfo has no schema: keys, defaults and comments of its values.yaml.
  const top = schemaCompletion(model, podinfo, PODINFO.length - 1, charts);
  const labels = top.map((c) => c.label);
  assert.ok(labels.includes('redis') && labels.includes('ingress') && !labels.includes('replicaCount') && !labels.includes('image'), labels.join(' '));
  const redis = top.find((c) => c.label === 'redis')!;
  assert.equal(redis.insertText, 'redis:\n');
  const tagHover = schemaHover(model, podinfo, offsetOf(PODINFO, 'tag: 6.14.1', 1), charts);
  assert.ok(tagHover);
  assert.match(tagHover.markdown, /\*\*tag\*\* · string/);
  assert.match(tagHover.markdown, /Default: `"6\.14\.1"`/);

  // Outside spec.values, the HelmRelease's own schema answers as before.
  const interval = schemaHover(model, web, offsetOf(APP, 'interval: 1h', 1), charts);
  assert.ok(interval && !/Chart:/.test(interval.markdown));
});

test("a chart's values: helm-docs comments, $ref inside the schema, subcharts under their names", () => {
  const schema = JSON.stringify({
    type: 'object',
    $defs: { port: { type: 'integer', description: 'A port.' } },
    properties: { service: { type: 'object', required: ['port'], properties: { port: { $ref: '#/$defs/port' } } } },
  });
  const sub = chartValuesOf('redis@1.0.0', undefined, '# -- Password of the default user\n# @default -- generated\nauth: ""\n');
  const values = chartValuesOf('app@1.0.0', schema, '# Service settings\nservice:\n  port: 80\nextra: {}\n', { redis: sub });
  const top = valuesFields(values, []).map((f) => `${f.name}:${f.type}`);
  assert.deepEqual(top.sort(), ['extra:map', 'redis:map', 'service:map']);
  const port = valuesFields(values, ['service']).find((f) => f.name === 'port');
  assert.deepEqual(port && { type: port.type, description: port.description, required: port.required, default: port.default }, { type: 'integer', description: 'A port.', required: true, default: 80 });
  const auth = valuesFields(values, ['redis']).find((f) => f.name === 'auth');
  assert.deepEqual(auth && { type: auth.type, description: auth.description }, { type: 'string', description: 'Password of the default user' });
  // A $ref that loops, or leaves the document, ends the walk instead of the process.
  const looping = chartValuesOf('x@1', JSON.stringify({ $ref: '#', properties: { a: { $ref: 'https://example.com/s.json' }, b: { $ref: '#/%E0%A4%A' } } }), undefined);
  assert.deepEqual(valuesFields(looping, []).map((f) => f.name), ['a', 'b']);
  assert.deepEqual(valuesFields(looping, ['b']), []);
});
