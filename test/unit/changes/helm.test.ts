/**
 * `gitops-preview changes` compares what HelmReleases install: each rendered on both sides from a
 * chart at hand (a real chart of ../shared/charts, in a chart cache or the workspace, with helm as
 * WebAssembly), its spec when the chart is not at hand, a render failing on one side as a failure.
 * The base renders only the releases whose inputs differ (changed-only).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChangesReport, ObjectChange } from '../../../src/core/changes/types';
import { runCliCaptured } from '../helpers';
import { commitAll, git, tempDir, writeFiles } from '../git/gitRepo';
import { chartCache, gotkSync, helmReleaseYaml, helmRepositoryYaml, ks, writeChartFolder } from '../engine/helmFixture';

let dir: string;
let cacheHome: string;
let report: ChangesReport;
let stderr: string;
let code: number;
let text: string;

const dns = (values: string) => `${helmRepositoryYaml('charts')}---\n${helmReleaseYaml('external-dns', 'network', 'external-dns', values, { repo: 'charts', version: '1.21.1' })}`;
// A version no chart cache holds: not at hand on either side.
const elsewhere = (values: string) => helmReleaseYaml('external-dns-next', 'network', 'external-dns', values, { repo: 'charts', version: '9.9.9' });
const web = (values: string) => helmReleaseYaml('podinfo', 'web', './charts/podinfo', values);
const lab = (values: string) => helmReleaseYaml('podinfo-lab', 'lab', './charts/podinfo', values);

function objectsOf(kind: string, name: string): ObjectChange[] {
  return report.changes.find((c) => c.kind === kind && c.name === name)?.objects ?? [];
}

before(async () => {
  dir = tempDir('gitops-preview-changes-helm-');
  cacheHome = tempDir('gitops-preview-changes-cache-');
  chartCache(cacheHome, 'charts', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  git(dir, 'init', '-q');
  writeFiles(dir, {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': `${ks('dns', '  path: ./dns\n')}---\n${ks('web', '  path: ./web\n')}`,
    'dns/release.yaml': `${dns('  values:\n    logLevel: info\n')}---\n${elsewhere('  values:\n    logLevel: info\n')}`,
    'web/release.yaml': `${web('  values:\n    replicaCount: 2\n')}---\n${lab('  values:\n    replicaCount: 1\n')}`,
  });
  writeChartFolder(dir, 'podinfo-6.14.1.tgz');
  commitAll(dir, 'base');
  git(dir, 'checkout', '-q', '-b', 'feature');
  const notes = path.join(dir, 'charts/podinfo/templates/service.yaml');
  writeFiles(dir, {
    // Values edits of a cached chart's release, of one not at hand; an image bump and a replica
    // count of a workspace chart's; values a template cannot range over (a render failure).
    'dns/release.yaml': `${dns('  values:\n    logLevel: debug\n')}---\n${elsewhere('  values:\n    logLevel: debug\n')}`,
    'web/release.yaml': `${web('  values:\n    replicaCount: 3\n    image:\n      tag: 6.15.0\n')}---\n${lab('  values:\n    replicaCount: 1\n    podAnnotations: 5\n')}`,
    // A template edit of the workspace chart reaches both of its releases.
    'charts/podinfo/templates/service.yaml': fs.readFileSync(notes, 'utf8').replace(/^(\s*)labels:\n/m, '$1labels:\n$1  reviewed: "yes"\n'),
  });
  const env = { GITOPS_PREVIEW_CACHE: cacheHome, HOME: cacheHome };
  const json = await runCliCaptured(['changes', dir, '--format', 'json'], dir, env);
  ({ code, stderr } = json);
  report = JSON.parse(json.stdout) as ChangesReport;
  text = (await runCliCaptured(['changes', dir], dir, env)).stdout;
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(cacheHome, { recursive: true, force: true });
});

describe('gitops-preview changes: HelmReleases rendered with their charts', { timeout: 600_000 }, () => {
  test('a values edit of a chart-cache release changes what the chart renders', () => {
    assert.equal(code, 1);
    const deployment = objectsOf('HelmRelease', 'external-dns').find((o) => o.kind === 'Deployment');
    assert.equal(deployment?.change, 'changed', JSON.stringify(report.changes.map((c) => [c.name, c.note])));
    assert.match(deployment!.diff, /^- .*--log-level=info\n\+ .*--log-level=debug$/m);
    assert.equal(report.changes.find((c) => c.name === 'external-dns')?.note, undefined);
  });

  test('a workspace chart: values and a template edit, rendered on both sides', () => {
    const objects = objectsOf('HelmRelease', 'podinfo');
    const deployment = objects.find((o) => o.kind === 'Deployment');
    assert.match(deployment?.diff ?? '', /^- spec\.replicas: 2\n\+ spec\.replicas: 3$/m);
    assert.match(deployment?.diff ?? '', /\+ spec\.template\.spec\.containers\[name=podinfo\]\.image: ghcr\.io\/stefanprodan\/podinfo:6\.15\.0/);
    assert.match(objects.find((o) => o.kind === 'Service')?.diff ?? '', /^\+ metadata\.labels\.reviewed: yes$/m);
  });

  test('the image bump of a rendered release is summarised', () => {
    assert.deepEqual(report.images, [{ image: 'ghcr.io/stefanprodan/podinfo', before: ['6.14.1'], after: ['6.15.0'] }]);
  });

  test('a release whose chart is not at hand is compared by its spec, and says why', () => {
    const c = report.changes.find((p) => p.name === 'external-dns-next');
    assert.deepEqual(c?.objects.map((o) => `${o.kind} ${o.change}`), ['HelmRelease changed']);
    assert.match(c!.objects[0].diff, /^- spec\.values\.logLevel: info\n\+ spec\.values\.logLevel: debug$/m);
    assert.match(c!.note ?? '', /^chart external-dns@9\.9\.9 from http:\/\/charts\.invalid\/ is not in the chart cache/);
    assert.match(text, /HelmRelease network\/external-dns-next \(its spec: chart external-dns@9\.9\.9 /);
  });

  test('a render failing in the working tree only is a failure, not its objects removed', () => {
    const failed = report.failures.find((f) => f.name === 'podinfo-lab');
    assert.equal(failed?.failed, 'head', JSON.stringify(report.failures));
    assert.match(failed!.message, /range can't iterate over 5/);
    assert.deepEqual(objectsOf('HelmRelease', 'podinfo-lab'), []);
  });

  test('the base renders only the releases whose inputs differ: here all three it can', () => {
    assert.match(stderr, /^base [0-9a-f]{12}: 2 of 3 Kustomization build\(s\) rendered, 3 of 3 HelmRelease render\(s\)/);
  });

  test('nothing differs: the base takes every render from the working tree\'s cache', async () => {
    commitAll(dir, 'feature');
    const r = await runCliCaptured(['changes', dir, '--base', 'feature', '--format', 'json'], dir, { GITOPS_PREVIEW_CACHE: cacheHome, HOME: cacheHome });
    assert.equal(r.code, 0, `a release failing on both sides is no change: ${r.stdout}`);
    assert.match(r.stderr, /: 0 of 3 Kustomization build\(s\) rendered, 0 of 3 HelmRelease render\(s\)/);
    const again = JSON.parse(r.stdout) as ChangesReport;
    assert.deepEqual(again.changes, []);
    assert.deepEqual(again.failures.map((f) => [f.name, f.failed]), [['podinfo-lab', 'both']]);
  });
});
