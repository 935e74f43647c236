/** Red Hat YAML's `yaml.schemas` patterns, matched as that extension matches them (core/schema/redHatSchemas.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redHatSchemasOf, settingSchemaOf } from '../../../src/core/schema/redHatSchemas';

test('patterns: `*` spans folders, a leading / or ./ is the workspace folder, others match the end of the path; negations are left out', () => {
  const schemas = redHatSchemasOf({ kubernetes: ['/k8s/*.yaml', 'deploy.yml'], 'https://example.com/s.json': './charts/**/values.yaml', bad: 3, neg: '!*.yaml' });
  assert.deepEqual(Object.keys(schemas), ['kubernetes', 'https://example.com/s.json']);
  const of = (rel: string) => settingSchemaOf(schemas, '/repo', `/repo/${rel}`);
  assert.equal(of('k8s/a.yaml'), 'kubernetes');
  assert.equal(of('k8s/apps/a.yaml'), 'kubernetes');
  assert.equal(of('other/k8s/a.yaml'), undefined, 'rooted at the folder');
  assert.equal(of('apps/deploy.yml'), 'kubernetes', 'unrooted: the end of the path');
  assert.equal(of('apps/redeploy.yml'), undefined, 'a whole file name');
  assert.equal(of('charts/app/values.yaml'), 'https://example.com/s.json');
  assert.equal(of('k8s/a.yaml.bak'), undefined);
  assert.equal(settingSchemaOf(schemas, '/repo', '/elsewhere/k8s/a.yaml'), undefined, 'outside the folder');
  assert.equal(settingSchemaOf(undefined, '/repo', '/repo/k8s/a.yaml'), undefined);
});
