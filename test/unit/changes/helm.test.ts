/**
 * `gitops-preview changes` compares what HelmReleases install: each rendered on both sides from a
 * chart at hand (a real chart of ../shared/charts, in a chart cache or the workspace, with helm as
 * WebAssembly) or fetched into the chart cache (from the shared charts served as a chart repository
 * on loopback), its spec when the chart cannot be had, a render failing on one side as a failure.
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
import { serveChartRepo } from '../../integration/chartRepo';
import { SHARED } from '../helpers';
import { DEFAULT_SAVE_DELAY_MS } from '../../../src/engine/persistentBuildCache';

let dir: string;
let cacheHome: string;
let report: ChangesReport;
let stderr: string;
let code: number;
let text: string;
let textStderr: string;
let offline: ChangesReport;
let served: { base: string; close: () => Promise<void> };

const dns = (values: string) => `${helmRepositoryYaml('charts')}---\n${helmReleaseYaml('external-dns', 'network', 'external-dns', values, { repo: 'charts', version: '1.21.1' })}`;
// The shared charts' repository on loopback: podinfo is fetched from it; no chart repository has external-dns 9.9.9.
const servedRepository = () => helmRepositoryYaml('served').replace('http://charts.invalid/', `http://${served.base}/`);
const elsewhere = (values: string) =>
  ['external-dns-next', 'external-dns-also'].map((name) => helmReleaseYaml(name, 'network', 'external-dns', values, { repo: 'served', version: '9.9.9' })).join('---\n');
const fetched = (values: string) => `${servedRepository()}---\n${helmReleaseYaml('podinfo-fetched', 'fetched', 'podinfo', values, { repo: 'served', version: '6.14.1' })}`;
const web = (values: string) => helmReleaseYaml('podinfo', 'web', './charts/podinfo', values);
const lab = (values: string) => helmReleaseYaml('podinfo-lab', 'lab', './charts/podinfo', values);

function objectsOf(kind: string, name: string): ObjectChange[] {
  return report.changes.find((c) => c.kind === kind && c.name === name)?.objects ?? [];
}

before(async () => {
  served = await serveChartRepo(path.join(SHARED, 'charts', 'repo'));
  dir = tempDir('gitops-preview-changes-helm-');
  cacheHome = tempDir('gitops-preview-changes-cache-');
  chartCache(cacheHome, 'charts', 'external-dns', '1.21.1', 'external-dns-1.21.1.tgz');
  git(dir, 'init', '-q');
  writeFiles(dir, {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': `${ks('dns', '  path: ./dns\n')}---\n${ks('web', '  path: ./web\n')}---\n${ks('fetched', '  path: ./fetched\n')}`,
    'fetched/release.yaml': fetched('  values:\n    replicaCount: 1\n'),
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
    'fetched/release.yaml': fetched('  values:\n    replicaCount: 4\n'),
    // A template edit of the workspace chart reaches both of its releases.
    'charts/podinfo/templates/service.yaml': fs.readFileSync(notes, 'utf8').replace(/^(\s*)labels:\n/m, '$1labels:\n$1  reviewed: "yes"\n'),
  });
  const env = { GITOPS_PREVIEW_CACHE: cacheHome, HOME: cacheHome };
  const json = await runCliCaptured(['changes', dir, '--format', 'json'], dir, env);
  ({ code, stderr } = json);
  report = JSON.parse(json.stdout) as ChangesReport;
  // As a second command would find it: the first one's build cache saved (after its quiet period; a CLI process saves on exit).
  await new Promise((resolve) => setTimeout(resolve, DEFAULT_SAVE_DELAY_MS + 1500));
  ({ stdout: text, stderr: textStderr } = await runCliCaptured(['changes', dir], dir, env));
  // Offline, with an empty chart cache: nothing is fetched; only the workspace chart renders.
  const empty = tempDir('gitops-preview-changes-offline-');
  offline = JSON.parse((await runCliCaptured(['changes', dir, '--offline', '--format', 'json'], dir, { GITOPS_PREVIEW_CACHE: empty, HOME: empty })).stdout) as ChangesReport;
  fs.rmSync(empty, { recursive: true, force: true });
});

after(async () => {
  await served.close();
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

  test('the image bump of a rendered release is summarised (podinfo-fetched keeps using 6.14.1)', () => {
    assert.deepEqual(report.images, [{ image: 'ghcr.io/stefanprodan/podinfo', before: [], after: ['6.15.0'], kept: ['6.14.1'] }]);
    assert.match(text, /^  ghcr\.io\/stefanprodan\/podinfo: \(none\) → 6\.15\.0 \(6\.14\.1 still in use\)$/m);
  });

  test('a release whose chart is not at hand is compared by its spec, and says why', () => {
    const c = report.changes.find((p) => p.name === 'external-dns-next');
    assert.deepEqual(c?.objects.map((o) => `${o.kind} ${o.change}`), ['HelmRelease changed']);
    assert.match(c!.objects[0].diff, /^- spec\.values\.logLevel: info\n\+ spec\.values\.logLevel: debug$/m);
    // Fetched once: another release of the same chart has the same reason.
    assert.equal(report.changes.find((p) => p.name === 'external-dns-also')?.note, c!.note);
    assert.match(c!.note ?? '', /^chart external-dns@9\.9\.9 from http:\/\/127\.0\.0\.1:\d+\/ cannot be fetched: no version matches '9\.9\.9'/);
    assert.match(text, /HelmRelease network\/external-dns-next \(its spec: chart external-dns@9\.9\.9 from \S+ cannot be fetched/);
  });

  test('a chart not at hand is fetched from its repository into the chart cache, then rendered on both sides', () => {
    assert.equal(report.changes.find((c) => c.name === 'podinfo-fetched')?.note, undefined);
    assert.match(objectsOf('HelmRelease', 'podinfo-fetched').find((o) => o.kind === 'Deployment')?.diff ?? '', /^- spec\.replicas: 1\n\+ spec\.replicas: 4$/m);
    assert.ok(fs.readdirSync(path.join(cacheHome, 'charts')).length > 1, 'the chart cache holds the fetched chart');
  });

  test('--offline fetches nothing: releases whose chart is not at hand are compared by spec', () => {
    const notes = offline.changes.filter((c) => c.kind === 'HelmRelease').map((c) => [c.name, c.note === undefined ? 'rendered' : /is not in the chart cache/.test(c.note) ? 'spec: not in the cache' : c.note]);
    assert.deepEqual(notes.sort(), [['external-dns', 'spec: not in the cache'], ['external-dns-also', 'spec: not in the cache'], ['external-dns-next', 'spec: not in the cache'], ['podinfo', 'rendered'], ['podinfo-fetched', 'spec: not in the cache']]);
  });

  test('a render failing in the working tree only is a failure, not its objects removed', () => {
    const failed = report.failures.find((f) => f.name === 'podinfo-lab');
    assert.equal(failed?.failed, 'head', JSON.stringify(report.failures));
    assert.match(failed!.message, /range can't iterate over 5/);
    assert.deepEqual(objectsOf('HelmRelease', 'podinfo-lab'), []);
  });

  test('the base renders only the releases whose inputs differ: here all four it can', () => {
    assert.match(stderr, /^base [0-9a-f]{12}: 3 of 4 Kustomization build\(s\) rendered, 4 of 4 HelmRelease render\(s\)/);
  });

  test("a second comparison takes the base's builds and HelmRelease renders from the build cache", () => {
    // The base's own Kustomization builds are kept too, apart from the working tree's (base:<key>).
    assert.match(textStderr, /^base [0-9a-f]{12}: 0 of 4 Kustomization build\(s\) rendered, 0 of 4 HelmRelease render\(s\)/);
  });

  test('nothing differs: the base takes every render from the working tree\'s cache', async () => {
    commitAll(dir, 'feature');
    const r = await runCliCaptured(['changes', dir, '--base', 'feature', '--format', 'json'], dir, { GITOPS_PREVIEW_CACHE: cacheHome, HOME: cacheHome });
    assert.equal(r.code, 0, `a release failing on both sides is no change: ${r.stdout}`);
    assert.match(r.stderr, /: 0 of 4 Kustomization build\(s\) rendered, 0 of 4 HelmRelease render\(s\)/);
    const again = JSON.parse(r.stdout) as ChangesReport;
    assert.deepEqual(again.changes, []);
    assert.deepEqual(again.failures.map((f) => [f.name, f.failed]), [['podinfo-lab', 'both']]);
  });
});
