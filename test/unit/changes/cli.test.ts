/**
 * `gitops-preview changes` end to end on a temporary Git repository made from a shared corpus
 * (flux2-kustomize-helm-example): the base commit, then one working-tree edit of each kind a
 * review meets, compared in one run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ChangesReport, ObjectChange } from '../../../src/core/changes/types';
import { CORPORA, runCliCaptured } from '../helpers';
import { commitAll, git, tempDir, writeFiles } from '../git/gitRepo';
import { worker } from './corpusEdits';

const CORPUS = path.join(CORPORA, 'flux2-kustomize-helm-example');

const configMap = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  k: v
`;
const secret = (token: string) => `apiVersion: v1
kind: Secret
metadata:
  name: podinfo-token
stringData:
  token: ${token}
`;
const component = (tier: string) => `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels:
  - pairs:
      tier: ${tier}
`;
const overlay = () => `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../base/podinfo
components:
  - ../base/components/common
patches:
  - path: podinfo-values.yaml
    target:
      kind: HelmRelease
`;

const stagingRoot = (patches: string) => `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - flux-system
  - artifacts.yaml
  - infrastructure.yaml
  - apps.yaml
${patches}`;

let dir: string;
let report: ChangesReport;
let code: number;
let markdown: string;
let github: string;
let html: string;

function objectsOf(cluster: string, name: string): ObjectChange[] {
  return report.changes.find((c) => c.cluster === cluster && c.kind === 'Kustomization' && c.name === name)?.objects ?? [];
}

before(async () => {
  dir = tempDir('gitops-preview-changes-');
  fs.cpSync(CORPUS, dir, { recursive: true });
  git(dir, 'init', '-q');
  const podinfo = path.join(dir, 'apps/base/podinfo/kustomization.yaml');
  writeFiles(dir, {
    'apps/base/podinfo/worker.yaml': worker('6.5.0'),
    'apps/base/podinfo/settings.yaml': configMap('settings'),
    'apps/base/podinfo/secret.yaml': secret('base-token-value'),
    'apps/base/components/common/kustomization.yaml': component('web'),
    'apps/staging/kustomization.yaml': overlay(),
    'apps/production/kustomization.yaml': overlay(),
    'clusters/staging/kustomization.yaml': stagingRoot(''),
  });
  fs.appendFileSync(podinfo, '  - worker.yaml\n  - settings.yaml\n  - secret.yaml\n');
  commitAll(dir, 'base');
  git(dir, 'checkout', '-q', '-b', 'feature');
  const values = path.join(dir, 'apps/production/podinfo-values.yaml');
  const issuers = path.join(dir, 'infrastructure/configs/kustomization.yaml');
  writeFiles(dir, {
    // A values edit, an image bump, a renamed and an added object, a Secret change, a component change.
    'apps/production/podinfo-values.yaml': fs.readFileSync(values, 'utf8').replace('podinfo.production', 'podinfo.example.com'),
    'apps/base/podinfo/worker.yaml': worker('6.6.0'),
    'apps/base/podinfo/settings.yaml': configMap('settings-v2'),
    'apps/base/podinfo/extra.yaml': configMap('extra'),
    'apps/base/podinfo/secret.yaml': secret('head-token-value'),
    'apps/base/components/common/kustomization.yaml': component('frontend'),
    // A removed file.
    'infrastructure/configs/cluster-issuers.yaml': undefined,
    'infrastructure/configs/kustomization.yaml': fs.readFileSync(issuers, 'utf8').replace(/^\s*- cluster-issuers\.yaml\n/m, ''),
    // A render failure in the working tree only.
    'infrastructure/controllers/kustomization.yaml': fs.readFileSync(path.join(dir, 'infrastructure/controllers/kustomization.yaml'), 'utf8') + '  - missing.yaml\n',
    // The staging root patches its child Kustomization apps.
    'clusters/staging/kustomization.yaml': stagingRoot(`patches:
  - patch: |
      - op: add
        path: /spec/commonMetadata
        value: {labels: {team: blue}}
    target:
      kind: Kustomization
      name: apps
`),
  });
  fs.appendFileSync(podinfo, '  - extra.yaml\n');
  const json = await runCliCaptured(['changes', dir, '--offline', '--format', 'json'], dir);
  // Only the count of base builds: ArtifactGenerator views are keyed per process, so all 8 render.
  assert.match(json.stderr, /^base [0-9a-f]{12}: 8 of 8 Kustomization build\(s\) rendered[^\n]*\n$/);
  code = json.code;
  report = JSON.parse(json.stdout) as ChangesReport;
  markdown = (await runCliCaptured(['changes', dir, '--offline', '--format', 'markdown'], dir)).stdout;
  github = (await runCliCaptured(['changes', dir, '--offline', '--format', 'github'], dir)).stdout;
  html = (await runCliCaptured(['changes', dir, '--offline', '--format', 'html'], dir)).stdout;
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('gitops-preview changes on a corpus copy', () => {
  test('the base is the merge-base with main; something changes: exit 1', () => {
    assert.equal(report.base, git(dir, 'rev-parse', 'main'));
    assert.equal(code, 1);
    assert.deepEqual(Object.keys(report), ['base', 'changes', 'findings', 'failures', 'images']);
    // Each object's YAML is for the views that lay both sides out, not the contract.
    assert.deepEqual(Object.keys(report.changes[0].objects[0]), ['kind', 'name', 'namespace', 'change', 'diff']);
  });

  test('a values edit changes the HelmRelease in the production apps only', () => {
    const hr = objectsOf('production', 'apps').find((o) => o.kind === 'HelmRelease');
    assert.equal(hr?.change, 'changed');
    assert.match(hr!.diff, /- spec\.values\.httpRoute\.hostnames\[0\]: podinfo\.production\n\+ spec\.values\.httpRoute\.hostnames\[0\]: podinfo\.example\.com/);
    assert.equal(objectsOf('staging', 'apps').find((o) => o.kind === 'HelmRelease' && /hostnames/.test(o.diff)), undefined);
    // Offline, its chart (from a HelmRepository on the network) is not at hand: compared by spec, and the report says so.
    const release = report.changes.find((c) => c.cluster === 'production' && c.kind === 'HelmRelease' && c.name === 'podinfo');
    assert.match(release?.note ?? '', /^chart podinfo@.* is not in the chart cache/);
    assert.ok(markdown.includes('**HelmRelease podinfo/podinfo** (its spec: chart podinfo'), markdown);
  });

  test('a removed file removes its objects; a renamed object is removed and added; an added object is added', () => {
    const configs = objectsOf('production', 'infra-configs');
    assert.ok(configs.length > 0 && configs.every((o) => o.change === 'removed' && o.kind === 'ClusterIssuer'), JSON.stringify(configs));
    for (const cluster of ['production', 'staging']) {
      const changes = objectsOf(cluster, 'apps').filter((o) => o.kind === 'ConfigMap').map((o) => `${o.name} ${o.change}`);
      assert.deepEqual(changes.sort(), ['extra added', 'settings removed', 'settings-v2 added']);
    }
  });

  test('a component change reaches every Kustomization using it', () => {
    for (const cluster of ['production', 'staging']) {
      const ns = objectsOf(cluster, 'apps').find((o) => o.kind === 'Namespace');
      assert.match(ns?.diff ?? '', /- metadata\.labels\.tier: web\n\+ metadata\.labels\.tier: frontend/, cluster);
    }
  });

  test("a parent's patch changes what its child applies, in that cluster only", () => {
    assert.match(objectsOf('staging', 'flux-system').find((o) => o.kind === 'Kustomization' && o.name === 'apps')?.diff ?? '', /\+ spec\.commonMetadata: \{"labels":\{"team":"blue"\}\}/);
    assert.match(objectsOf('staging', 'apps').find((o) => o.kind === 'Namespace')?.diff ?? '', /\+ metadata\.labels\.team: blue/);
    assert.doesNotMatch(JSON.stringify(objectsOf('production', 'apps')), /team/);
  });

  test('a Secret change is shown masked; no value appears in any output', () => {
    const s = objectsOf('staging', 'apps').find((o) => o.kind === 'Secret');
    assert.match(s?.diff ?? '', /^- stringData\.token: "\*\*\* \(before\)"\n\+ stringData\.token: "\*\*\* \(after\)"$/m);
    assert.doesNotMatch(JSON.stringify(report) + markdown + html, /token-value/);
  });

  test('a build failing in the working tree is a failure, not its objects removed', () => {
    const failed = report.failures.filter((f) => f.name === 'infra-controllers');
    assert.deepEqual(failed.map((f) => [f.cluster, f.failed]).sort(), [['production', 'head'], ['staging', 'head']]);
    assert.match(failed[0].message, /missing\.yaml/);
    assert.equal(objectsOf('production', 'infra-controllers').length, 0);
  });

  test('an image bump is summarised', () => {
    assert.deepEqual(report.images, [{ image: 'ghcr.io/stefanprodan/podinfo', before: ['6.5.0'], after: ['6.6.0'] }]);
    assert.match(objectsOf('production', 'apps').find((o) => o.name === 'worker')?.diff ?? '', /\+ spec\.template\.spec\.containers\[name=worker\]\.image: ghcr\.io\/stefanprodan\/podinfo:6\.6\.0/);
  });

  test('markdown: a summary and a collapsible section per cluster', () => {
    assert.match(markdown, /^### GitOps changes against `[0-9a-f]{12}` \(merge\\-base of HEAD and main\)/);
    assert.equal(markdown.match(/<details><summary>Cluster /g)?.length, 2);
    assert.match(markdown, /```diff\n/);
  });

  test('html: one page with both clusters, the image bump in its YAML diff, the failure and the finding', () => {
    assert.equal(html.match(/<details class="cluster"/g)?.length, 2);
    assert.match(html, /<td class="text add"> +image: ghcr\.io\/stefanprodan\/podinfo:6\.6\.0<\/td>/);
    assert.match(html, /<h2>Failed builds/);
    assert.match(html, /<h2>Findings introduced \(\d+\)<\/h2>/);
  });

  test('github: an annotation per introduced finding, then the summary', () => {
    assert.match(github, /^::error file=infrastructure\/controllers\/kustomization\.yaml,line=6,col=5,endLine=\d+,endColumn=\d+,title=path-not-found::Resource 'missing\.yaml' does not exist/m);
    assert.match(github, /::notice title=gitops-preview changes::\d+ object\(s\) differ/);
  });

  test('with everything committed and the head as base, nothing changes: exit 0', async () => {
    commitAll(dir, 'feature');
    const r = await runCliCaptured(['changes', dir, '--offline', '--base', 'feature', '--format', 'github'], dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^::notice title=gitops-preview changes::0 object\(s\) differ/m);
  });
});
