/**
 * What the HelmRelease render tests share: a temporary folder, a chart cache holding one shared
 * chart package (never fetched), the cluster's bootstrap root, and a folder rendered as the engine
 * does it (Kustomization builds, then HelmRelease renders).
 */
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Folder } from '../../../src/engine/folder';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { diskHost } from '../../../src/node/fsHost';
import { storeChart, writeRef } from '../../../src/render/charts/cache';
import { chartCacheKey } from '../../../src/render/charts/fetch';
import { readTarGz } from '../../../src/render/charts/tar';
import { SHARED } from '../helpers';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
export const REPO_URL = 'http://charts.invalid/';

/** A temporary folder for the file's tests, made before them and removed after them. */
export function helmTmp(): { readonly dir: string } {
  const t = { dir: '' };
  before(() => {
    t.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'helm-render-'));
  });
  after(() => fs.rmSync(t.dir, { recursive: true, force: true }));
  return t;
}

/** A chart cache in `tmp` holding the shared package `file` as HelmRepository REPO_URL resolves `chart@version`. */
export function chartCache(tmp: string, name: string, chart: string, version: string, file: string): string {
  const dir = path.join(tmp, name);
  const tgz = fs.readFileSync(path.join(SHARED, 'charts', 'repo', file));
  const digest = createHash('sha256').update(tgz).digest('hex');
  const files = readTarGz(tgz);
  assert.ok(files.ok);
  assert.ok(storeChart(dir, digest, files.files));
  writeRef(dir, chartCacheKey({ kind: 'http', repoUrl: REPO_URL, chart, version }), { digest, version, at: Date.now() });
  return dir;
}

export const ks = (name: string, spec: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 10m
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
${spec}`;

/** The cluster's bootstrap root: the fleet's GitRepository and the Kustomization syncing ./clusters/prod. */
export function gotkSync(): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: https://example.com/fleet.git
  ref:
    branch: main
---
${ks('flux-system', '  path: ./clusters/prod\n')}`;
}

/** Writes `files` (relative path → text) under `root`. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

/** The Kustomization builds, then the HelmRelease renders, as the engine runs them; the renders' result. */
export async function refined(f: Folder) {
  await f.refine({ allowNetwork: false });
  const helm = await f.refineHelm({});
  assert.ok(helm);
  return helm;
}

export function folderOf(root: string, cacheDir: string | null, cache = new MemoryBuildCache()): Folder {
  return new Folder(root, diskHost, { sha256, remotes: ['https://example.com/fleet.git'], checkout: { branch: 'main' } }, { cache, charts: { cacheDir } });
}

/** HelmRepository `name` in flux-system at REPO_URL. */
export function helmRepositoryYaml(name: string): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 1h
  url: ${REPO_URL}
`;
}

/**
 * A HelmRelease `namespace/name` of a workspace chart folder (`chart` starting with `./`, from
 * GitRepository flux-system) or of `chart` at `version` from HelmRepository `repo`; `rest` is the
 * rest of its spec (values…), indented as spec's fields.
 */
export function helmReleaseYaml(name: string, namespace: string, chart: string, rest = '', from?: { repo: string; version: string }): string {
  const source = from ? `      version: ${from.version}\n      sourceRef:\n        kind: HelmRepository\n        name: ${from.repo}\n` : '      sourceRef:\n        kind: GitRepository\n        name: flux-system\n';
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  interval: 1h
  chart:
    spec:
      chart: ${chart}
${source}        namespace: flux-system
${rest}`;
}

/** The shared chart package `file` unpacked under `root`/charts (a workspace chart folder). */
export function writeChartFolder(root: string, file: string): void {
  const tgz = readTarGz(fs.readFileSync(path.join(SHARED, 'charts', 'repo', file)));
  assert.ok(tgz.ok, `${file} unpacks`);
  for (const f of tgz.files) {
    const to = path.join(root, 'charts', f.path);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.writeFileSync(to, f.data);
  }
}
