/**
 * Regression tests for a repository that tries to make the renderer read outside it or run
 * something. Every refusal here happens before a process would start, so no binary is needed:
 * kustomize/helm point at a path that does not exist, and an accepted input shows up as
 * 'missing-binary' (all checks passed) while a refused one is 'invalid' with its reason.
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
import { LinkGuard, stageView } from '../../../src/render/stage';
import { workspaceView } from '../../../src/core/model/view';
import { childEnv, runProcess } from '../../../src/render/exec';
import { KUSTOMIZATION_ATTACKS, makeMaliciousRepo } from '../../fixtures/hardening/maliciousRepo';

const repo = makeMaliciousRepo();
after(() => repo.cleanup());
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const model = new Repo(repo.root, diskHost, { sha256 }).model();
const opts: RenderOptions = { allowProcesses: true, kustomizeBin: '/nonexistent/kustomize', helmBin: '/nonexistent/helm', cacheDir: repo.cacheDir };
const ksNamed = (name: string) => model.clusters[0].kustomizations.find((k) => k.applied.name === name)!;
const hrNamed = (name: string) => model.clusters[0].helmReleases.find((h) => h.applied.name === name)!;

test('an ordinary kustomization (../base inside the source, a generator file) passes every check', async () => {
  const r = await renderKustomization(model, ksNamed('valid'), opts);
  assert.ok(!r.ok && r.error.kind === 'missing-binary', r.ok ? 'rendered' : r.error.message);
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

test('links out of the workspace: the model does not follow them and the staged copy never holds them', async () => {
  const ws = model.workspace;
  assert.ok(!ws.hasDir(`${repo.root}/attacks/link-dir/linked`), 'a linked folder outside was followed');
  assert.ok(!model.allObjects.some((o) => o.name === 'outside'), 'an object from a folder outside is in the model');
  const view = ksNamed('link-file').source;
  assert.ok(view.kind === 'view');
  const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-stage-'));
  try {
    const links = new LinkGuard(ws.root);
    await stageView(ws, view.view, dest, new Map(), links);
    assert.ok(fs.existsSync(path.join(dest, 'attacks/link-file/kustomization.yaml')));
    assert.ok(!fs.existsSync(path.join(dest, 'attacks/link-file/secret.txt')), 'symlinked file staged');
    assert.ok(!fs.existsSync(path.join(dest, 'charts/linked-values.yaml')), 'symlinked values file staged');
    assert.match(links.warnings()[0], /'attacks\/link-file\/secret\.txt' points outside the workspace/);
  } finally {
    fs.rmSync(dest, { recursive: true, force: true });
  }
});

test('staging copies regular files only: a file or folder that became a link after indexing is left out and reported', async () => {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-stage-')));
  const root = path.join(tmp, 'repo');
  const dest = path.join(tmp, 'staged');
  try {
    fs.mkdirSync(path.join(root, 'app/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'app/kustomization.yaml'), 'resources: [sub/cm.yaml]\nconfigMapGenerator: [{name: c, files: [data.txt]}]\n');
    fs.writeFileSync(path.join(root, 'app/data.txt'), 'fine\n');
    fs.writeFileSync(path.join(root, 'app/sub/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n');
    const ws = new Repo(root, diskHost, { sha256 }).model().workspace;
    // Swapped for links once the workspace is indexed (a checkout, another tool): the copy must not follow them.
    fs.rmSync(path.join(root, 'app/data.txt'));
    fs.symlinkSync(path.join(repo.outside, 'secret.yaml'), path.join(root, 'app/data.txt'));
    fs.rmSync(path.join(root, 'app/sub'), { recursive: true });
    fs.symlinkSync(path.join(repo.outside, 'dir'), path.join(root, 'app/sub'));

    const links = new LinkGuard(root);
    await stageView(ws, workspaceView(ws), dest, new Map(), links);
    assert.ok(fs.existsSync(path.join(dest, 'app/kustomization.yaml')));
    assert.ok(!fs.existsSync(path.join(dest, 'app/data.txt')), 'symlinked file staged');
    assert.ok(!fs.existsSync(path.join(dest, 'app/sub/cm.yaml')), 'file below a symlinked folder staged');
    const walk = (d: string): string[] =>
      fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
        assert.ok(!e.isSymbolicLink(), `symlink in the staged copy: ${e.name}`);
        return e.isDirectory() ? walk(path.join(d, e.name)) : [fs.readFileSync(path.join(d, e.name), 'utf8')];
      });
    assert.ok(!walk(dest).some((t) => t.includes(repo.marker)), 'outside content staged');
    const [warning] = links.warnings();
    assert.match(warning, /'app\/data\.txt' points outside the workspace/);
    assert.match(warning, /'app\/sub' points outside the workspace/);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('a flag-looking spec.releaseName is refused with its file and line before helm runs', async () => {
  const r = await renderHelmRelease(model, hrNamed('inject'), opts);
  assert.ok(!r.ok);
  assert.equal(r.error.kind, 'invalid', r.error.message);
  assert.match(r.error.message, /releases\/inject\.yaml:9: spec\.releaseName: "--post-renderer=sh" is not a valid Helm release name/);
  assert.match(r.error.message, /helm is not run/);
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
  // The same pulled chart with a values file inside it passes every check.
  const fine = await renderHelmRelease(model, hrNamed('pulled-ok'), opts);
  assert.ok(!fine.ok && fine.error.kind === 'missing-binary', fine.ok ? 'rendered' : fine.error.message);
});

test('child processes get no secrets from the environment and an empty PATH', async () => {
  const env = { PATH: '/usr/bin', HOME: '/home/u', GITHUB_TOKEN: 'ghp_secret', AWS_SECRET_ACCESS_KEY: 'k', HTTPS_PROXY: 'http://proxy' };
  assert.deepEqual(childEnv(env), { PATH: '', HOME: '/home/u' });
  assert.deepEqual(childEnv(env, true), { PATH: '', HOME: '/home/u', HTTPS_PROXY: 'http://proxy' });
  const r = await runProcess(process.execPath, ['-e', 'process.stdout.write(JSON.stringify(process.env))'], { timeoutMs: 20_000, env });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  const seen = JSON.parse(r.value.stdout);
  assert.equal(seen.GITHUB_TOKEN, undefined);
  assert.equal(seen.AWS_SECRET_ACCESS_KEY, undefined);
  assert.equal(seen.PATH, '');
});
