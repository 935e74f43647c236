/**
 * Regression tests for a repository that tries to make the renderer read outside it or run
 * something. Builds run in-process (kustomize and helm as WebAssembly over an in-memory file set);
 * the network is off, so the pulled chart comes from the fixture's chart cache.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { renderHelmRelease, renderKustomization, type RenderOptions } from '../../../src/render/index';
import { viewFiles } from '../../../src/render/files';
import { workspaceView } from '../../../src/core/model/view';
import { KUSTOMIZATION_ATTACKS, REWRITE_ATTACKS, makeMaliciousRepo } from '../../fixtures/hardening/maliciousRepo';

const repo = makeMaliciousRepo();
after(() => repo.cleanup());
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const model = new Repo(repo.root, diskHost, { sha256 }).model();
const opts: RenderOptions = { allowNetwork: false, cacheDir: repo.cacheDir };
const ksNamed = (name: string) => model.clusters[0].kustomizations.find((k) => k.applied.name === name)!;
const hrNamed = (name: string) => model.clusters[0].helmReleases.find((h) => h.applied.name === name)!;

test('an ordinary kustomization (../base inside the source, a generator file) renders', async () => {
  const r = await renderKustomization(model, ksNamed('valid'), opts);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.ok(r.value.objects.length > 0);
});

test('kustomize builds that read outside the repository are refused before kustomize runs', async () => {
  const expected: Record<(typeof KUSTOMIZATION_ATTACKS)[number], RegExp[]> = {
    'inline-gen': [/generators\[0\] \(inline\) \(ConfigMapGenerator\)\.files\[0\] '\/etc\/passwd' is an absolute path/, /'\/proc\/self\/environ' is an absolute path/],
    'file-gen': [/attacks\/file-gen\/gen\.yaml: plugin config \(ConfigMapGenerator\)\.files\[0\] '\.\.\/\.\.\/\.\.\/outside\/secret\.yaml' climbs out of the source artifact/],
    'gen-outside': [/attacks\/gen-outside\/kustomization\.yaml: generators\[0\] '\.\.\/\.\.\/\.\.\/outside\/gen\.yaml' climbs out/],
    // The repository has etc/passwd and a copy of the outside path: an absolute path is still refused.
    decoy: [/configMapGenerator\[0\]\.files\[0\] '\/etc\/passwd' is an absolute path/, /configMapGenerator\[0\]\.files\[1\] '\/.*\/outside\/secret\.yaml' is an absolute path/],
  };
  for (const name of KUSTOMIZATION_ATTACKS) {
    const r = await renderKustomization(model, ksNamed(name), opts);
    assert.ok(!r.ok, `${name} rendered`);
    assert.equal(r.error.kind, 'invalid', `${name}: ${r.error.message}`);
    assert.match(r.error.message, /would read outside the source artifact or run something, which kustomize-controller refuses/);
    for (const re of expected[name]) assert.match(r.error.message, re, name);
  }
});

test('a plugin folder that rewrites its config to read outside builds, and fails for want of the file', async () => {
  for (const name of REWRITE_ATTACKS) {
    const r = await renderKustomization(model, ksNamed(name), opts);
    assert.ok(!r.ok, `${name} rendered`);
    assert.doesNotMatch(r.error.message, new RegExp(repo.marker), name);
    assert.doesNotMatch(r.error.message, /kustomize-controller refuses/, `${name}: refused before the build: ${r.error.message}`);
    assert.match(r.error.message, /etc\/passwd|outside\/secret\.yaml/, `${name}: ${r.error.message}`);
  }
});

test('links out of the workspace: the model does not follow them and the build file set never holds them', () => {
  const ws = model.workspace;
  assert.ok(!ws.hasDir(`${repo.root}/attacks/link-dir/linked`), 'a linked folder outside was followed');
  assert.ok(!model.allObjects.some((o) => o.name === 'outside'), 'an object from a folder outside is in the model');
  const view = ksNamed('link-file').source;
  assert.ok(view.kind === 'view');
  const files = viewFiles(ws, view.view, new Map());
  const paths = files.map((f) => f.path);
  assert.ok(paths.includes('attacks/link-file/kustomization.yaml'));
  assert.ok(!paths.includes('attacks/link-file/secret.txt'), 'symlinked file in the file set');
  assert.ok(!paths.includes('charts/linked-values.yaml'), 'symlinked values file in the file set');
  assert.ok(!files.some((f) => String(f.data).includes(repo.marker)), 'outside content in the file set');
});

test('a file or folder that became a link out of the workspace after indexing is left out of the file set', () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-files-')));
  const root = path.join(tmp, 'repo');
  try {
    fs.mkdirSync(path.join(root, 'app/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'app/kustomization.yaml'), 'resources: [sub/cm.yaml]\nconfigMapGenerator: [{name: c, files: [data.txt]}]\n');
    fs.writeFileSync(path.join(root, 'app/data.txt'), 'fine\n');
    fs.writeFileSync(path.join(root, 'app/sub/notes.txt'), 'fine\n');
    const ws = new Repo(root, diskHost, { sha256 }).model().workspace;
    // Swapped for links once the workspace is indexed (a checkout, another tool): the build must not follow them.
    fs.rmSync(path.join(root, 'app/data.txt'));
    fs.symlinkSync(path.join(repo.outside, 'secret.yaml'), path.join(root, 'app/data.txt'));
    fs.rmSync(path.join(root, 'app/sub'), { recursive: true });
    fs.symlinkSync(path.join(repo.outside, 'dir'), path.join(root, 'app/sub'));

    const files = viewFiles(ws, workspaceView(ws), new Map());
    const paths = files.map((f) => f.path);
    assert.ok(paths.includes('app/kustomization.yaml'));
    assert.ok(!paths.includes('app/data.txt'), 'symlinked file in the file set');
    assert.ok(!paths.includes('app/sub/notes.txt'), 'file below a symlinked folder in the file set');
    assert.ok(!files.some((f) => String(f.data).includes(repo.marker)), 'outside content in the file set');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a flag-looking spec.releaseName is refused with its file and line before helm runs', async () => {
  const r = await renderHelmRelease(model, hrNamed('inject'), opts);
  assert.ok(!r.ok);
  assert.equal(r.error.kind, 'invalid', r.error.message);
  assert.match(r.error.message, /releases\/inject\.yaml:9: spec\.releaseName: "--post-renderer=sh" is not a valid Helm release name/);
  assert.match(r.error.message, /helm-controller would refuse these values/);
});

test('valuesFiles of a pulled chart cannot climb out of the chart; a symlinked local values file is not read', async () => {
  const pulled = await renderHelmRelease(model, hrNamed('pulled'), opts);
  assert.ok(!pulled.ok);
  assert.equal(pulled.error.kind, 'invalid', pulled.error.message);
  assert.match(pulled.error.message, /values file '\.\.\/\.\.\/\.\.\/outside\/secret\.yaml' \(spec\.chart\.spec\.valuesFiles\) not found/);
  const linked = await renderHelmRelease(model, hrNamed('vals-link'), opts);
  assert.ok(!linked.ok);
  assert.equal(linked.error.kind, 'invalid', linked.error.message);
  assert.match(linked.error.message, /values file 'charts\/linked-values\.yaml' .* not found/);
  // The same pulled chart with a values file inside it renders.
  const fine = await renderHelmRelease(model, hrNamed('pulled-ok'), opts);
  assert.ok(fine.ok, fine.ok ? '' : fine.error.message);
});
