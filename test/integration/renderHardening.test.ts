/**
 * The malicious repository of test/fixtures/hardening, end to end through the `build` CLI and the
 * render API with the real kustomize and helm binaries: every attack exits 1 with a message, and
 * no byte of /etc/passwd, the process environment, or the files beside the repository is printed.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Repo } from '../../src/core/repo';
import { diskHost } from '../../src/node/fsHost';
import { renderHelmRelease } from '../../src/render/index';
import { runCli } from '../../src/cli/main';
import { KUSTOMIZATION_ATTACKS, LINK_ATTACKS, makeMaliciousRepo } from '../fixtures/hardening/maliciousRepo';
import { renderTools } from './tools';

const repoRoot = path.resolve(__dirname, '../..');

const bins = renderTools(repoRoot);
const repo = makeMaliciousRepo();
after(() => repo.cleanup());

// Secrets a leak would show: the first line of /etc/passwd, a variable of this process, the files beside the repo.
const ENV_SECRET = `env-secret-${Date.now()}`;
const passwdLine = fs.readFileSync('/etc/passwd', 'utf8').split('\n')[0];
function assertNoLeak(text: string, what: string): void {
  assert.ok(!text.includes(passwdLine), `${what}: /etc/passwd leaked`);
  assert.ok(!text.includes(repo.marker), `${what}: a file outside the repository leaked`);
  assert.ok(!text.includes(ENV_SECRET), `${what}: the environment leaked`);
}

async function build(kind: 'ks' | 'hr', name: string) {
  let out = '';
  let err = '';
  const code = await runCli(['build', kind, name, repo.root], {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    cwd: repoRoot,
    env: { ...process.env, KUSTOMIZE_BIN: bins.kustomize, HELM_BIN: bins.helm, GITOPS_TEST_SECRET: ENV_SECRET },
  });
  return { code, out, err };
}

test('build: an ordinary kustomization of the same repository renders (../base, a generator file)', async () => {
  const r = await build('ks', 'valid');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /name: base/);
  assert.match(r.out, /hello/);
});

test('build: generators and absolute paths reading outside the repository exit 1 with the reason, printing nothing of it', async () => {
  for (const name of KUSTOMIZATION_ATTACKS) {
    const r = await build('ks', name);
    assert.equal(r.code, 1, `${name}: exit ${r.code}\n${r.out}`);
    assert.match(r.err, /would read outside the source artifact or run something/, name);
    assert.equal(r.out, '', name);
    assertNoLeak(r.out + r.err, name);
  }
});

test('build: symlinked files and folders pointing outside are not part of the source, so the build fails and says so', async () => {
  // A linked folder is a path the source does not hold: it cannot be built here (exit 2). A linked
  // file is left out of the build's file set, so kustomize itself fails on it (exit 1), as Flux would.
  const expected: Record<(typeof LINK_ATTACKS)[number], number> = { 'link-dir': 2, 'link-file': 1 };
  for (const name of LINK_ATTACKS) {
    const r = await build('ks', name);
    assert.equal(r.code, expected[name], `${name}: exit ${r.code}\n${r.out}`);
    // Not in the source (a linked folder outside is not followed), or left out of the build's file set (a linked file).
    assert.match(r.err, /(linked\/cm\.yaml' is not in the source|'attacks\/link-file\/secret\.txt' doesn't exist)/, name);
    assertNoLeak(r.out + r.err, name);
  }
});

test('build: a release name that helm would parse as --post-renderer is refused; helm never runs it', async () => {
  const r = await build('hr', 'inject');
  assert.equal(r.code, 1, r.out);
  assert.match(r.err, /releases\/inject\.yaml:9: spec\.releaseName: "--post-renderer=sh" is not a valid Helm release name/);
  assert.equal(r.out, '');
  const linked = await build('hr', 'vals-link');
  assert.equal(linked.code, 1, linked.out);
  assertNoLeak(linked.out + linked.err, 'vals-link');
});

test('helm: valuesFiles of a pulled chart stay inside the chart (the cached chart renders with its own values.yaml)', async () => {
  const model = new Repo(repo.root, diskHost, { sha256: (s) => createHash('sha256').update(s).digest('hex') }).model();
  const hr = (name: string) => model.clusters[0].helmReleases.find((h) => h.applied.name === name)!;
  const opts = { allowNetwork: false, cacheDir: repo.cacheDir, env: { ...process.env, GITOPS_TEST_SECRET: ENV_SECRET } };
  const escaped = await renderHelmRelease(model, hr('pulled'), opts);
  assert.ok(!escaped.ok, 'rendered with a values file outside the chart');
  assert.equal(escaped.error.kind, 'invalid');
  assertNoLeak(escaped.error.message, 'pulled');
  const fine = await renderHelmRelease(model, hr('pulled-ok'), opts);
  assert.ok(fine.ok, fine.ok ? '' : fine.error.message);
  const cm = fine.value.objects.find((o) => o.kind === 'ConfigMap');
  assert.equal((cm as any)?.data?.leaked, 'none');
  assert.equal(fine.value.releaseName, 'demo-pulled-ok');
});
