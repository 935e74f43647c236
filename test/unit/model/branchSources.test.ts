/**
 * Sources follow the branch being edited: a GitRepository with this repository's URL is the working
 * tree on a feature branch too (the working tree is what the branch becomes once merged), unless the
 * repository's GitRepositories name several refs and another one is the working tree's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitCheckout } from '../../../src/node/gitMetadata';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { treeJson } from '../../../src/core/tree/treeData';
import type { BuildOptions } from '../../../src/core/model/graph';
import type { GitCheckout } from '../../../src/core/model/sources';

const ROOT = '/repo';
const REMOTES = ['git@github.com:me/home-ops.git'];

const gitRepo = (name: string, ref: string, url = 'https://github.com/me/home-ops') =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: ${url}\n  ref:\n    ${ref}\n`;
const ks = (name: string, path: string, source: string, namespace = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  interval: 1h\n  path: ${path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: ${source}\n    namespace: flux-system\n`;
const hr = (name: string) =>
  `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ${name}\n      sourceRef:\n        kind: HelmRepository\n        name: charts\n        namespace: flux-system\n`;

/** A cluster whose root applies itself from a GitRepository not named flux-system, pinned to `main`. */
const SELF_SYNCED = {
  'kubernetes/flux/config/cluster.yaml': `${gitRepo('home-kubernetes', 'branch: main')}---\n${ks('cluster', './kubernetes/flux', 'home-kubernetes')}`,
  'kubernetes/flux/apps.yaml': ks('apps', './kubernetes/apps', 'home-kubernetes'),
  'kubernetes/apps/hr.yaml': hr('podinfo'),
};

function model(files: Record<string, string>, checkout: GitCheckout | undefined) {
  const options: BuildOptions = { remotes: REMOTES, checkout };
  return new Repo(ROOT, memoryHost(ROOT, files), options).model();
}

test('a feature branch keeps the repository: its one ref is what the branch becomes once merged', () => {
  const onMain = treeJson(model(SELF_SYNCED, { branch: 'main' }));
  const onFeature = model(SELF_SYNCED, { branch: 'feature/edit' });
  assert.deepEqual(treeJson(onFeature), onMain);
  assert.deepEqual(onMain.helmReleases.map((h) => `${h.cluster}: ${h.name}`), ['flux: podinfo']);
  const apps = onFeature.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  assert.equal(apps.source.kind, 'view');
  assert.match(apps.source.description, /its branch feature\/edit stands for branch main, which it becomes once merged/);
});

test('several refs of this repository: the default branch (origin/HEAD) is the working tree, the others stay other sources', () => {
  const files = {
    ...SELF_SYNCED,
    'kubernetes/flux/tenant.yaml': `${gitRepo('tenant', 'branch: tenant')}---\n${ks('tenant', './tenant', 'tenant')}`,
    'tenant/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  namespace: default\n',
  };
  for (const checkout of [{ branch: 'feature/edit', defaultBranch: 'main' }, { branch: 'feature/edit' }]) {
    const m = model(files, checkout);
    const byName = (n: string) => m.clusters[0].kustomizations.find((k) => k.applied.name === n)!;
    assert.equal(byName('apps').source.kind, 'view', JSON.stringify(checkout));
    assert.equal(byName('tenant').source.kind, 'external', JSON.stringify(checkout));
    assert.match(byName('tenant').source.description, /branch tenant: the same repository at another ref than this workspace's branch feature\/edit/);
  }
  // Checked out on the tenant's branch, the tenant's source is the working tree and main is not.
  const onTenant = model(files, { branch: 'tenant' });
  const all = onTenant.clusters.flatMap((c) => c.kustomizations);
  assert.equal(all.find((k) => k.applied.name === 'tenant')?.source.kind, 'view');
  assert.ok(all.filter((k) => k.applied.name === 'apps').every((k) => k.source.kind === 'external'));
});

test('a bootstrap placeholder (no URL) is this repository at its own ref: a tenant ref stays another source on any branch', () => {
  const files = {
    'clusters/prod/flux-system/gotk-sync.yaml': '# placeholder written by flux bootstrap\n',
    'clusters/prod/tenants.yaml': ks('tenants', './tenants', 'flux-system'),
    'tenants/sync.yaml': `${gitRepo('dev-team', 'branch: dev-team')}---\n${ks('dev-team', './', 'dev-team', 'apps')}`,
  };
  for (const checkout of [{ branch: 'main' }, { branch: 'feature/edit' }]) {
    const m = model(files, checkout);
    const devTeam = m.clusters.flatMap((c) => c.kustomizations).find((k) => k.applied.name === 'dev-team');
    assert.ok(devTeam, JSON.stringify(checkout));
    assert.equal(devTeam.source.kind, 'external', `${JSON.stringify(checkout)}: ${devTeam.source.description}`);
  }
});

test('a clone records the remote\'s default branch (origin/HEAD), read with the checkout', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gp-origin-head-'));
  try {
    fs.mkdirSync(path.join(dir, '.git/refs/remotes/origin'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.git/refs/heads/feature'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/feature/edit\n');
    fs.writeFileSync(path.join(dir, '.git/refs/heads/feature/edit'), `${'a'.repeat(40)}\n`);
    fs.writeFileSync(path.join(dir, '.git/refs/remotes/origin/HEAD'), 'ref: refs/remotes/origin/trunk\n');
    assert.deepEqual(gitCheckout(dir), { branch: 'feature/edit', commit: 'a'.repeat(40), tags: [], defaultBranch: 'trunk' });
    fs.writeFileSync(path.join(dir, '.git/refs/remotes/origin/HEAD'), 'ref: refs/remotes/origin/../../../x\n');
    assert.equal(gitCheckout(dir)?.defaultBranch, undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a fork: a GitRepository naming this clone's repository under another owner is the working tree; another name stays external", () => {
  const files = (url: string) => ({
    ...SELF_SYNCED,
    'kubernetes/flux/config/cluster.yaml': `${gitRepo('home-kubernetes', 'branch: main', url)}---\n${ks('cluster', './kubernetes/flux', 'home-kubernetes')}`,
  });
  // The upstream's URL left in place (a fork of a template or of someone's repository).
  const fork = model(files('ssh://git@github.com/upstream/home-ops'), { branch: 'main' });
  assert.deepEqual(fork.clusters.map((c) => c.name), ['flux']);
  const apps = fork.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  assert.equal(apps.source.kind, 'view');
  assert.match(apps.source.description, /this workspace: ssh:\/\/git@github.com\/upstream\/home-ops has its repository's name/);
  assert.deepEqual(treeJson(fork).helmReleases.map((h) => `${h.cluster}: ${h.name}`), ['flux: podinfo']);
  // Another repository's name: its contents are not this workspace's.
  const other = model(files('ssh://git@github.com/upstream/fleet-apps'), { branch: 'main' });
  const otherApps = other.clusters.flatMap((c) => c.kustomizations).find((k) => k.applied.name === 'apps');
  assert.ok(!otherApps || otherApps.source.kind === 'external', `${otherApps?.source.kind}: ${otherApps?.source.description}`);
  assert.deepEqual(treeJson(other).helmReleases.filter((h) => h.cluster).map((h) => h.name), []);
});
