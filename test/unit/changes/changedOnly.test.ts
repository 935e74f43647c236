/**
 * Changed-only: at the base, a Kustomization whose inputs are as in the working tree is taken from
 * the working tree's builds; only the one whose file changed (a configMapGenerator's file, not a
 * manifest) is rendered, and its change is found.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
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
