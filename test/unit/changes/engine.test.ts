/**
 * The engine's `changes` and `changeBases`, as the editor asks them: the working tree is what the
 * engine holds, an unsaved buffer included; the base side is built once per base commit and kept
 * while the working tree changes; the bases come from `.git` alone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Engine } from '../../../src/engine/engine';
import { gitBaseReader } from '../../../src/engine/gitBase';
import { nodeEngine, openRefined } from '../../../src/engine/node';
import type { ChangesAnswer } from '../../../src/engine/protocol';
import { commitAll, git, repoWith, tempDir } from '../git/gitRepo';

const ks = (name: string, path: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  interval: 10m
  path: ${path}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`;
const deployment = (tag: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: ghcr.io/example/web:${tag}
`;

let dir: string;
let engine: Engine;
const WEB = 'apps/web/deployment.yaml';

async function changes(base?: string): Promise<ChangesAnswer> {
  const r = await engine.request('changes', { root: dir, ...(base ? { base } : {}) });
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  return r.value;
}

before(async () => {
  dir = repoWith({
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
${ks('flux-system', './clusters/dev')}`,
    'clusters/dev/apps.yaml': ks('apps', './apps/web'),
    [WEB]: deployment('1.0.0', 1),
  });
  git(dir, 'checkout', '-q', '-b', 'feature');
  git(dir, 'config', 'branch.feature.remote', '.');
  git(dir, 'config', 'branch.feature.merge', 'refs/heads/main');
  fs.writeFileSync(`${dir}/clusters/dev/extra.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: default\ndata:\n  k: v\n');
  commitAll(dir, 'feature work');
  // Branches packed (as git gc leaves them) and a loose nested one.
  git(dir, 'pack-refs', '--all');
  git(dir, 'branch', 'team/fix', 'main');
  fs.rmSync(`${dir}/clusters/dev/extra.yaml`);
  engine = nodeEngine({ debounceMs: 0, bases: gitBaseReader() });
  await openRefined(engine, [dir]);
});
after(() => {
  engine?.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('engine: changes', () => {
  test('the bases: the merge-base with the upstream by default, the upstream, the branches', async () => {
    const r = await engine.request('changeBases', { root: dir });
    assert.ok(r.ok);
    assert.deepEqual(r.value.default, { name: 'merge-base of HEAD and main', sha: git(dir, 'rev-parse', 'main') });
    assert.equal(r.value.upstream, 'main');
    assert.equal(r.value.branch, 'feature');
    assert.equal(r.value.head, git(dir, 'rev-parse', 'HEAD'));
    assert.deepEqual(r.value.branches, [
      { name: 'feature', sha: git(dir, 'rev-parse', 'feature') },
      { name: 'main', sha: git(dir, 'rev-parse', 'main') },
      { name: 'team/fix', sha: git(dir, 'rev-parse', 'main') },
    ]);
  });

  test('an unsaved buffer is the working tree; the base side is built once and kept', async () => {
    engine.setBuffer(`${dir}/${WEB}`, deployment('1.1.0', 3));
    const first = await changes();
    assert.equal(first.baseName, 'merge-base of HEAD and main');
    const objects = first.report.changes.flatMap((p) => p.objects.map((o) => ({ ...o, producer: p.name })));
    const web = objects.find((o) => o.kind === 'Deployment' && o.name === 'web');
    assert.equal(web?.producer, 'apps');
    assert.equal(web?.change, 'changed');
    assert.match(web!.diff, /- spec\.replicas: 1\n\+ spec\.replicas: 3/);
    assert.match(web!.yaml.before, /image: ghcr\.io\/example\/web:1\.0\.0/);
    assert.match(web!.yaml.after, /image: ghcr\.io\/example\/web:1\.1\.0/);
    assert.deepEqual(first.report.images, [{ image: 'ghcr.io/example/web', before: ['1.0.0'], after: ['1.1.0'] }]);
    // The file removed from the working tree after the feature commit is not at the merge-base either.
    assert.equal(objects.find((o) => o.name === 'extra'), undefined);
    assert.equal(first.builds, 2);

    engine.setBuffer(`${dir}/${WEB}`, deployment('1.1.0', 4));
    const second = await changes();
    assert.equal(second.rendered, 0, 'the base side is kept');
    assert.equal(second.report.base, first.report.base);
    assert.match(second.report.changes.flatMap((p) => p.objects).find((o) => o.name === 'web')!.diff, /\+ spec\.replicas: 4/);

    engine.setBuffer(`${dir}/${WEB}`, undefined);
    assert.deepEqual((await changes()).report.changes, []);
  });

  test('a branch as the base: against feature, the removed file shows', async () => {
    const r = await changes('feature');
    assert.equal(r.baseName, 'feature');
    const removed = r.report.changes.flatMap((p) => p.objects).find((o) => o.name === 'extra');
    assert.equal(removed?.change, 'removed');
    assert.equal(removed?.yaml.after, '');
  });

  test('a base that names nothing, and a folder outside Git, are answers with a message', async () => {
    const bad = await engine.request('changes', { root: dir, base: 'no-such-branch' });
    assert.deepEqual(bad, { ok: false, error: { message: "'no-such-branch' names no commit in this repository" } });
    const outside = tempDir('gitops-preview-nogit-');
    const other = nodeEngine({ debounceMs: 0, bases: gitBaseReader() });
    try {
      await openRefined(other, [outside]);
      const r = await other.request('changeBases', { root: outside });
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error.message, /is not in a Git repository/);
    } finally {
      other.dispose();
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
