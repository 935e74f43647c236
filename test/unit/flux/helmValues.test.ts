import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { helmReleaseValues, mergeMaps, replacePathValue } from '../../../src/core/flux/helmValues';

test('mergeMaps merges maps deeply and replaces everything else', () => {
  assert.deepEqual(mergeMaps({ a: { b: 1, c: [1] }, d: 1 }, { a: { c: [2], e: 3 }, d: { x: 1 } }), { a: { b: 1, c: [2], e: 3 }, d: { x: 1 } });
});

test('targetPath values are typed like --set unless quoted', () => {
  const v: Record<string, any> = {};
  replacePathValue(v, 'a.b', '4');
  replacePathValue(v, 'a.c', 'true');
  replacePathValue(v, 'a.d', '"4"');
  replacePathValue(v, 'list[1].name', 'x');
  replacePathValue(v, 'dotted\\.key', '007');
  assert.deepEqual(v, { a: { b: 4, c: true, d: '4' }, list: [null, { name: 'x' }], 'dotted.key': '007' });
});

const root = path.resolve(__dirname, '../../fixtures/render/app-repo').split(path.sep).join('/');

test('valuesFrom in order, targetPath, then spec.values on top; Secret values masked unless revealed', () => {
  const model = new Repo(root, diskHost).model();
  const hr = model.clusters[0].helmReleases.find((h) => h.applied.name === 'web')!;
  const spec = hr.applied.object.body.spec;
  const masked = helmReleaseValues(model, hr.applied.cluster, spec, 'flux-system');
  assert.equal(masked.error, undefined);
  assert.deepEqual(masked.values, { message: 'from-spec', image: { tag: '2.0' }, auth: { password: '***' }, replicaCount: 4 });
  const revealed = helmReleaseValues(model, hr.applied.cluster, spec, 'flux-system', true);
  assert.equal(revealed.values.auth.password, 'hunter2');
});

test('a missing non-optional key is an error naming the reference', () => {
  const model = new Repo(root, diskHost).model();
  const hr = model.clusters[0].helmReleases[0];
  const r = helmReleaseValues(model, hr.applied.cluster, { valuesFrom: [{ kind: 'ConfigMap', name: 'web-values', valuesKey: 'nope' }] }, 'flux-system');
  assert.match(r.error ?? '', /ConfigMap\/flux-system\/web-values: key 'nope' not found/);
});
