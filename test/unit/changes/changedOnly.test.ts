/**
 * Changed-only: at the base, a Kustomization whose inputs are as in the working tree is taken from
 * the working tree's builds; only the one whose file changed (a configMapGenerator's file, not a
 * manifest) is rendered, and its change is found.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import type { ChangesReport } from '../../../src/core/changes/types';
import { runCliCaptured } from '../helpers';
import { commitAll, repoWith, writeFiles } from '../git/gitRepo';

const ks = (name: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/${name}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`;

const dir = repoWith({
  'clusters/dev/flux-system/gotk-sync.yaml': `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: https://github.com/example/fleet
  ref:
    branch: main
---
${ks('flux-system').replace('./apps/flux-system', './clusters/dev')}`,
  'clusters/dev/apps.yaml': `${ks('a')}---\n${ks('b')}`,
  'apps/a/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: default\nconfigMapGenerator:\n  - name: settings\n    files:\n      - settings.txt\n',
  'apps/a/settings.txt': 'level=info\n',
  'apps/b/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n',
  'apps/b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\ndata:\n  k: v\n',
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('only the Kustomization whose input changed is rendered at the base, and its change is found', async () => {
  commitAll(dir, 'base');
  writeFiles(dir, { 'apps/a/settings.txt': 'level=debug\n' });
  const r = await runCliCaptured(['changes', dir, '--format', 'json'], dir);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /: 1 of 3 Kustomization build\(s\) rendered/);
  const report = JSON.parse(r.stdout) as ChangesReport;
  assert.deepEqual(
    report.changes.map((c) => [c.name, c.objects.map((o) => `${o.kind} ${o.name.replace(/-[a-z0-9]{10}$/, '-HASH')} ${o.change}`)]),
    [['a', ['ConfigMap settings-HASH added', 'ConfigMap settings-HASH removed']]],
  );
});

test('the base side\'s own builds are kept apart from the working tree\'s: the next comparison builds nothing at the base, and a build of the working tree is its own', async () => {
  const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-changes-kept-'));
  const before = process.env.GITOPS_PREVIEW_CACHE;
  process.env.GITOPS_PREVIEW_CACHE = storage;
  try {
    commitAll(dir, 'base again');
    writeFiles(dir, { 'apps/a/settings.txt': 'level=warn\n' });
    const first = await runCliCaptured(['changes', dir, '--format', 'json'], dir);
    assert.equal(first.code, 1, first.stderr);
    assert.match(first.stderr, /: 1 of 3 Kustomization build\(s\) rendered/);
    // In process, the cache is saved after its quiet period (a command's process saves on exit).
    await new Promise((r) => setTimeout(r, 2500));
    const second = await runCliCaptured(['changes', dir, '--format', 'json'], dir);
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /: 0 of 3 Kustomization build\(s\) rendered, the base side kept by an earlier comparison with this base/);
    assert.deepEqual(JSON.parse(second.stdout), JSON.parse(first.stdout));
    // And the working tree's build of `a` was not replaced by the base's: a build of the working tree takes it.
    const build = await runCliCaptured(['build', 'ks', 'a', '-n', 'flux-system', dir], dir);
    assert.equal(build.code, 0, build.stderr);
    assert.match(build.stdout, /level=warn/);
    // The side is kept per base, settings and charts at hand: --offline (no fetching) is another side, built from the builds kept.
    const offline = await runCliCaptured(['changes', dir, '--format', 'json', '--offline'], dir);
    assert.match(offline.stderr, /: 0 of 3 Kustomization build\(s\) rendered, the others' inputs are as in the working tree/);
    assert.deepEqual(JSON.parse(offline.stdout), JSON.parse(first.stdout));
    // A new base commit is another side too.
    writeFiles(dir, { 'apps/b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\ndata:\n  k: v2\n' });
    commitAll(dir, 'b changed at the base');
    writeFiles(dir, { 'apps/a/settings.txt': 'level=error\n' });
    const moved = await runCliCaptured(['changes', dir, '--format', 'json'], dir);
    assert.doesNotMatch(moved.stderr, /earlier comparison/);
    assert.match(moved.stderr, /: 1 of 3 Kustomization build\(s\) rendered/);
    assert.deepEqual((JSON.parse(moved.stdout) as ChangesReport).changes.map((c) => c.name), ['a']);
  } finally {
    if (before === undefined) delete process.env.GITOPS_PREVIEW_CACHE;
    else process.env.GITOPS_PREVIEW_CACHE = before;
    fs.rmSync(storage, { recursive: true, force: true });
  }
});
