/**
 * How `changes` compares a HelmRelease (core/changes/report.ts): its chart's crds/ folder as
 * helm-controller applies it (install and upgrade policies; never deleted with the release), and
 * its spec, with the reason, when its chart is not at hand on a side.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareSides, type Producer, type Side } from '../../../src/core/changes/report';
import type { KubeJson } from '../../../src/core/kubeJson';

const crd = (version: string): KubeJson => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { versions: [{ name: version }] } });
const deployment = (image: string): KubeJson => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'app', namespace: 'apps' }, spec: { template: { spec: { containers: [{ name: 'app', image }] } } } });
const spec = (tag: string): KubeJson => ({ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', metadata: { name: 'app', namespace: 'apps' }, spec: { values: { tag } } });

function release(crdVersion: string, image: string, policy = { install: 'Create', upgrade: 'Skip' }): Producer {
  return { cluster: 'prod', kind: 'HelmRelease', name: 'app', namespace: 'apps', result: { ok: true, objects: [deployment(image)], crds: { objects: [crd(crdVersion)], policy } }, spec: spec(image) };
}
const side = (...producers: Producer[]): Side => ({ producers, findings: [] });
const objects = (before: Side, after: Side) => compareSides('0'.repeat(40), before, after).changes.flatMap((c) => c.objects.map((o) => `${o.kind} ${o.change}`)).sort();

describe('changes: a HelmRelease', () => {
  test('an upgrade applies the crds/ folder only when upgrade.crds is not Skip', () => {
    assert.deepEqual(objects(side(release('v1', 'app:1')), side(release('v2', 'app:2'))), ['Deployment changed']);
    const replace = { install: 'Create', upgrade: 'CreateReplace' };
    assert.deepEqual(objects(side(release('v1', 'app:1', replace)), side(release('v2', 'app:2', replace))), ['CustomResourceDefinition changed', 'Deployment changed']);
  });

  test('a new release installs its crds/ folder unless install.crds is Skip', () => {
    assert.deepEqual(objects(side(), side(release('v1', 'app:1'))), ['CustomResourceDefinition added', 'Deployment added']);
    assert.deepEqual(objects(side(), side(release('v1', 'app:1', { install: 'Skip', upgrade: 'Skip' }))), ['Deployment added']);
  });

  test('a removed release removes its manifest, not its crds/ folder (helm keeps those CRDs)', () => {
    assert.deepEqual(objects(side(release('v1', 'app:1')), side()), ['Deployment removed']);
  });

  test('a chart not at hand on one side: both sides compared by spec, with the reason and the side', () => {
    const unrendered: Producer = { ...release('v2', 'app:2'), result: { ok: true, objects: [] }, unrendered: 'chart app@2.0.0 from https://charts.example.com/ is not in the chart cache\nmore' };
    const r = compareSides('0'.repeat(40), side(release('v1', 'app:1')), side(unrendered));
    assert.deepEqual(r.changes.map((c) => [c.objects.map((o) => `${o.kind} ${o.change}`), c.note]), [[['HelmRelease changed'], 'chart app@2.0.0 from https://charts.example.com/ is not in the chart cache (in the working tree)']]);
    assert.deepEqual(r.images, [], 'its images are not compared either: one side has none');
  });

  test('rendered on both sides, its images are summarised', () => {
    assert.deepEqual(compareSides('0'.repeat(40), side(release('v1', 'app:1')), side(release('v1', 'app:2'))).images, [{ image: 'app', before: ['1'], after: ['2'] }]);
  });
});
