// Live status: one list + one watch per Flux kind for 500+ objects (counted at the client and in the
// API server's audit log), updates through the watch, and no write requests from any read path.
// Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getTestCluster, kubeRequest, readAuditLog, type AuditEvent, type TestCluster } from '../cluster/harness';
import type { ClusterClient } from '../../src/cluster/client';
import { FluxStatusWatcher } from '../../src/cluster/watch';
import { FLUX_TYPES, fluxType } from '../../src/core/kinds';
import { liveLookup } from '../../src/engine/live';
import { Repo } from '../../src/core/repo';
import type { RepoModel } from '../../src/core/model/graph';
import { memoryHost } from '../../src/core/workspace/host';
import { childrenOf, present, rootNodes, type TreeNode } from '../../src/core/tree/viewModel';
import { clientFor, createFlux, createNamespace, uniqueName, writeStatus } from './cluster-helpers';

const COUNTS: Record<string, number> = { Kustomization: 250, HelmRelease: 150, GitRepository: 100 };

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

async function eventually(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('live status watcher', () => {
  let cluster: TestCluster;
  let admin: ClusterClient;
  let ns: string;
  const names: Array<{ kind: string; name: string }> = [];

  before(async () => {
    cluster = await getTestCluster();
    admin = clientFor(cluster.kubeconfig, 'gitops-preview-test-setup');
    ns = uniqueName('status');
    await createNamespace(admin, ns);
    for (const [kind, n] of Object.entries(COUNTS)) for (let i = 0; i < n; i++) names.push({ kind, name: `${kind.toLowerCase()}-${i}` });
    await inBatches(names, 8, ({ kind, name }) => createFlux(admin, kind, ns, name));
  });

  after(async () => {
    await cluster?.stop();
  });

  test('500 objects: one list and one watch per kind, no per-object requests; updates arrive through the watches', async () => {
    const agent = uniqueName('gitops-preview-status-test');
    const requests: string[] = [];
    const client = clientFor(cluster.kubeconfig, agent, (method, path) => requests.push(`${method} ${path}`));
    let changes = 0;
    const watcher = new FluxStatusWatcher(client, { onChange: () => changes++, debounceMs: 20 });
    watcher.start();
    try {
      assert.equal(await watcher.whenSynced(30_000), undefined);
      assert.ok(watcher.synced);
      for (const { kind, name } of names) {
        const s = watcher.get(kind, ns, name);
        assert.ok(s, `${kind} ${name} in the cache`);
        assert.equal(s.state, 'Unknown');
      }
      // What a tree with 500 nodes does: reads every node's status from the cache.
      assert.equal(watcher.get('Kustomization', ns, 'absent-one'), undefined);
      assert.ok(watcher.all().filter((s) => s.namespace === ns).length === 500);

      // Status changes, a suspension and a deletion reach the cache through the watches.
      const ready = names.slice(0, 40);
      const failing = names.slice(40, 60);
      await inBatches(ready, 8, ({ kind, name }) => writeStatus(admin, { kind, namespace: ns, name }, { status: 'True', message: `Applied revision: main@sha1:${name}` }, undefined, { lastAppliedRevision: `main@sha1:${name}` }));
      await inBatches(failing, 8, ({ kind, name }) => writeStatus(admin, { kind, namespace: ns, name }, { status: 'False', message: `${name} failed` }));
      const suspended = names.find((n) => n.kind === 'HelmRelease')!;
      await admin.mergePatch(fluxType('HelmRelease')!, ns, suspended.name, { spec: { suspend: true } });
      const deleted = names[names.length - 1];
      await deleteObject(cluster, deleted.kind, ns, deleted.name);

      await eventually('every update is in the cache', () =>
        ready.every(({ kind, name }) => watcher.get(kind, ns, name)?.state === 'Ready') &&
        failing.every(({ kind, name }) => watcher.get(kind, ns, name)?.state === 'NotReady') &&
        watcher.get('HelmRelease', ns, suspended.name)?.state === 'Suspended' &&
        watcher.get(deleted.kind, ns, deleted.name) === undefined,
      );
      const first = watcher.get(ready[0].kind, ns, ready[0].name)!;
      assert.equal(first.message, `Applied revision: main@sha1:${ready[0].name}`);
      assert.equal(first.revision, `main@sha1:${ready[0].name}`);
      assert.equal(watcher.get(failing[0].kind, ns, failing[0].name)!.message, `${failing[0].name} failed`);
      assert.ok(changes > 0);

      // Client side: one list and one watch per kind, nothing else.
      const lists = requests.filter((r) => !r.includes('watch=1'));
      const watches = requests.filter((r) => r.includes('watch=1'));
      assert.deepEqual(lists.sort(), FLUX_TYPES.map((t) => `GET /apis/${t.group}/${t.version}/${t.plural}`).sort());
      assert.equal(watches.length, FLUX_TYPES.length, watches.join('\n'));
      for (const t of FLUX_TYPES) assert.equal(watches.filter((w) => w.includes(`/${t.plural}?`)).length, 1);

      // Server side (audit log): the same, and no get of any single object.
      const mine = (evs: AuditEvent[]) => evs.filter((e) => e.userAgent === agent && e.stage === 'ResponseComplete');
      const events = mine(await readAuditLog(cluster, { until: (evs) => mine(evs).filter((e) => e.verb === 'list').length >= FLUX_TYPES.length }));
      assert.equal(events.filter((e) => e.verb === 'list').length, FLUX_TYPES.length);
      assert.deepEqual(events.filter((e) => e.verb !== 'list' && e.verb !== 'watch'), []);
    } finally {
      watcher.stop();
    }
  });

  test('the Flux tree over a 500-object workspace decorates every node from the cache, without per-node requests', async () => {
    const agent = uniqueName('gitops-preview-tree-test');
    const requests: string[] = [];
    const client = clientFor(cluster.kubeconfig, agent, (method, p) => requests.push(`${method} ${p}`));
    const watcher = new FluxStatusWatcher(client, { debounceMs: 20 });
    watcher.start();
    try {
      assert.equal(await watcher.whenSynced(30_000), undefined);
      const model = workspaceModel(ns, [...names, { kind: 'Kustomization', name: 'workspace-only' }]);
      const live = liveLookup(watcher, () => [model]);
      const afterSync = requests.length;

      const seen = new Map<string, string>();
      const walk = (nodes: TreeNode[]): void => {
        for (const n of nodes) {
          const p = present(n, model, live);
          if (n.type === 'flux') seen.set(`${n.applied.kind}/${n.applied.namespace}/${n.applied.name}`, p.contextValue);
          walk(childrenOf(n));
        }
      };
      walk(rootNodes(model, live));
      assert.ok(seen.size >= 501, `presented ${seen.size} Flux nodes`);
      assert.equal(seen.get(`Kustomization/${ns}/workspace-only`), 'flux:Kustomization:absent');
      assert.equal(seen.get(`Kustomization/${ns}/kustomization-100`), 'flux:Kustomization:inCluster:unknown');
      assert.equal(seen.get(`GitRepository/${ns}/gitrepository-50`), 'flux:source:GitRepository:inCluster:unknown');
      assert.equal(requests.length, afterSync, `no request while building the tree: ${requests.slice(afterSync).join(', ')}`);
      // Objects of this namespace that the workspace has are not "cluster only".
      assert.deepEqual(live.clusterOnly().filter((s) => s.namespace === ns), []);

      await writeStatus(admin, { kind: 'Kustomization', namespace: ns, name: 'kustomization-100' }, { status: 'False', message: 'dependency not ready' });
      await eventually('the change reaches the tree', () => {
        seen.clear();
        walk(rootNodes(model, live));
        return seen.get(`Kustomization/${ns}/kustomization-100`) === 'flux:Kustomization:inCluster:notReady';
      });
      assert.equal(live.get('Kustomization', ns, 'kustomization-100')?.message, 'dependency not ready');
      assert.deepEqual(requests.slice(afterSync), [], 'updates come through the open watches');
    } finally {
      watcher.stop();
    }
  });

  test('read paths send no write request: the audit log has only get/list/watch from them', async () => {
    const agent = uniqueName('gitops-preview-readpaths-test');
    const client = clientFor(cluster.kubeconfig, agent);
    const watcher = new FluxStatusWatcher(client);
    watcher.start();
    try {
      assert.equal(await watcher.whenSynced(30_000), undefined);
      assert.ok((await client.version()).ok);
      assert.ok((await client.getObject(fluxType('Kustomization')!, ns, 'kustomization-0')).ok);
      assert.ok((await client.resourceFor('apps/v1', 'Deployment')).ok);
      assert.ok((await client.listObjects('', 'v1', 'configmaps', ns)).ok);
    } finally {
      watcher.stop();
    }
    const mine = (evs: AuditEvent[]) => evs.filter((e) => e.userAgent === agent && e.stage === 'ResponseComplete');
    const events = mine(await readAuditLog(cluster, { until: (evs) => mine(evs).some((e) => e.objectRef?.resource === 'configmaps') }));
    assert.ok(events.length >= FLUX_TYPES.length + 3, `saw ${events.length} requests`);
    assert.deepEqual([...new Set(events.map((e) => e.verb))].sort(), ['get', 'list', 'watch']);
  });

  test('an unreachable cluster is reported by the watcher instead of hanging', async () => {
    const file = path.join(os.tmpdir(), `${uniqueName('gitops-preview-dead')}.yaml`);
    fs.writeFileSync(file, fs.readFileSync(cluster.kubeconfig, 'utf8').replace(/server: \S+/, 'server: https://127.0.0.1:1'));
    const dead = clientFor(file, 'gitops-preview-status-test');
    fs.rmSync(file);
    const watcher = new FluxStatusWatcher(dead, { retryMs: 50 });
    watcher.start();
    try {
      const err = await watcher.whenSynced(10_000);
      assert.ok(err);
      assert.equal(err.kind, 'unreachable');
      assert.equal(watcher.synced, false);
    } finally {
      watcher.stop();
    }
  });
});

/** A workspace whose cluster root applies one YAML file with these objects (all in namespace ns). */
function workspaceModel(ns: string, objects: Array<{ kind: string; name: string }>): RepoModel {
  const sync = [
    'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://example.com/repo\n',
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./clusters/test\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n',
  ].join('---\n');
  const docs = objects.map(({ kind, name }) => {
    const t = fluxType(kind)!;
    return `apiVersion: ${t.group}/${t.version}\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  interval: 10m\n`;
  });
  const repo = new Repo('/ws', memoryHost('/ws', { 'clusters/test/flux-system/gotk-sync.yaml': sync, 'clusters/test/apps.yaml': docs.join('---\n') }));
  return repo.model();
}

async function deleteObject(cluster: TestCluster, kind: string, ns: string, name: string): Promise<void> {
  const t = fluxType(kind)!;
  const res = await kubeRequest(cluster.kubeconfig, { method: 'DELETE', path: `/apis/${t.group}/${t.version}/namespaces/${ns}/${t.plural}/${name}` });
  assert.equal(res.status, 200, res.body);
}
