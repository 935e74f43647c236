// The live cluster's CRDs as a schema source: a CRD created in the test API server (and held by no
// file of the workspace) reaches the engine through the CRD watch, connected as the editor connects
// (kubeconfig, ClusterClient, ClusterCrdStore, the engine's message protocol); a custom resource
// with a misspelt field is then flagged naming the cluster's CRD, hover and completion see its
// fields, and a change of the CRD arrives through the watch. Reads only (audit log); a user who may
// not list CRDs gets none and one log line. Run: bash test/integration/run.sh
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { getTestCluster, kubeRequest, readAuditLog, type AuditEvent, type TestCluster } from '../cluster/harness';
import { ClusterClient } from '../../src/cluster/client';
import { loadKubeConfig } from '../../src/cluster/kubeconfig';
import { ClusterCrdStore } from '../../src/cluster/crdStore';
import { readCachedCrds } from '../../src/cluster/crdCache';
import { memoryHost } from '../../src/core/workspace/host';
import { Engine } from '../../src/engine/engine';
import { EngineClient } from '../../src/engine/client';
import { localTransport } from '../../src/engine/serve';
import type { EngineDiagnostic } from '../../src/engine/protocol';
import { uniqueName } from './cluster-helpers';

const ROOT = '/ws';
const GOTK_SYNC = `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://example.com/fleet.git\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./clusters/prod\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;

async function eventually(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A Widget CRD of `group` whose spec has `size` and `colour` (and whatever `extra` adds). */
function widgetCrd(group: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    size: { type: 'integer', description: 'How many parts the widget has.' },
                    colour: { type: 'string', enum: ['red', 'blue'] },
                    ...extra,
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

describe('the live cluster CRDs as schemas', () => {
  let cluster: TestCluster;
  let cacheDir: string;
  const group = `${uniqueName('crdtest')}.example.com`;
  const crdName = `widgets.${group}`;
  const cleanup: { path: string }[] = [];

  before(async () => {
    cluster = await getTestCluster();
    cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-crd-cache-'));
  });

  after(async () => {
    for (const { path: p } of cleanup.reverse()) await kubeRequest(cluster.kubeconfig, { method: 'DELETE', path: p });
    fs.rmSync(cacheDir, { recursive: true, force: true });
    await cluster?.stop();
  });

  test('a CRD only the cluster has judges, hovers and completes a custom resource; its changes arrive through the watch', { timeout: 120_000 }, async () => {
    const widgetYaml = `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  sise: 3\n  colour: red\n`;
    const widgetFile = `${ROOT}/clusters/prod/widget.yaml`;
    const engine = new Engine({ host: memoryHost(ROOT, { 'clusters/prod/flux-system/gotk-sync.yaml': GOTK_SYNC, 'clusters/prod/widget.yaml': widgetYaml }), debounceMs: 0 });
    const editor = new EngineClient(localTransport(engine));
    const published = new Map<string, EngineDiagnostic[]>();
    editor.onDiagnostics((files) => files.forEach((f) => published.set(f.file, f.diagnostics)));
    editor.open([ROOT]);
    await eventually('the engine indexed the workspace', () => editor.ready);
    const schemaFindings = () => (published.get(widgetFile) ?? []).filter((d) => d.rule.startsWith('schema-'));

    // Connected as the editor connects: the user's kubeconfig (the read-only user), one client.
    const agent = uniqueName('gitops-preview-crd-test');
    const requests: string[] = [];
    const loaded = loadKubeConfig({ kubeconfigPath: cluster.readonlyKubeconfig, env: {} });
    assert.ok(loaded.ok, !loaded.ok ? loaded.error.message : '');
    const client = new ClusterClient(loaded.value, { userAgent: agent, onRequest: (method, p) => requests.push(`${method} ${p}`) });
    const log: string[] = [];
    const store = new ClusterCrdStore({ cacheDir, log: (m) => log.push(m), onChange: (crds) => editor.clusterCrds(crds), saveDelayMs: 20, watcher: { debounceMs: 20 } });
    try {
      store.use({ context: client.context, server: client.server, client });
      await eventually('the cluster CRDs are listed', () => store.current !== undefined);
      assert.ok(store.current!.crds.some((c) => c.name === 'kustomizations.kustomize.toolkit.fluxcd.io'), 'the Flux CRDs of the test cluster');
      assert.ok(!store.current!.crds.some((c) => c.name === crdName));
      assert.deepEqual((await editor.request('check', {})).diagnostics.filter((d) => d.file === widgetFile), [], 'no schema for Widget yet: nothing said');

      const created = await kubeRequest(cluster.kubeconfig, { method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: widgetCrd(group) });
      assert.equal(created.status, 201, created.body);
      cleanup.push({ path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}` });

      await eventually('the watch brings the CRD and the finding is published', () => schemaFindings().length > 0);
      const [finding] = schemaFindings();
      assert.equal(finding.rule, 'schema-unknown-field');
      assert.equal(finding.range.start.line, 6);
      assert.match(finding.message, new RegExp(`spec\\.sise is not a field of Widget; the API server drops it.*Did you mean 'size'\\?.*schema: CRD widgets\\.${group.replace(/\./g, '\\.')} \\(cluster ${client.context}\\) Widget v1`));

      const hover = await editor.request('hover', { file: widgetFile, position: { line: 7, character: 3 } });
      assert.match(hover?.markdown ?? '', /^\*\*colour\*\* · string/);
      assert.match(hover?.markdown ?? '', /One of: `"red"`, `"blue"`/);
      assert.match(hover?.markdown ?? '', /\(cluster /);
      const typing = widgetYaml.replace('  sise: 3\n', '  \n');
      const completion = await editor.request('completion', { file: widgetFile, position: { line: 6, character: 2 }, text: typing });
      assert.deepEqual(completion.map((c) => c.label), ['size']);
      assert.equal(completion[0].documentation, 'How many parts the widget has.');
      editor.buffer(widgetFile, undefined);

      // The CRD gains the field: the finding goes, through the same watch.
      const patched = await kubeRequest(cluster.kubeconfig, {
        method: 'PATCH',
        path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { versions: (widgetCrd(group, { sise: { type: 'integer' } }).spec as { versions: unknown[] }).versions } },
      });
      assert.equal(patched.status, 200, patched.body);
      await eventually('the change reaches the checks', () => published.has(widgetFile) && schemaFindings().length === 0);

      // The connection ends: the last known CRDs stay, and they were saved for the next session.
      const last = store.current;
      store.use(undefined);
      assert.equal(store.current, last);
      await eventually('saved', () => readCachedCrds(cacheDir, client.context, client.server, () => undefined)?.crds.some((c) => c.name === crdName) ?? false);
    } finally {
      store.dispose();
      editor.dispose();
    }
    assert.deepEqual(log, []);

    // Reads only: a paged list and watches of CRDs, nothing else.
    assert.ok(requests.length >= 2 && requests.every((r) => r.startsWith('GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions?')), requests.join('\n'));
    const mine = (evs: AuditEvent[]) => evs.filter((e) => e.userAgent === agent && e.stage === 'ResponseComplete');
    const events = mine(await readAuditLog(cluster, { until: (evs) => mine(evs).some((e) => e.verb === 'list') }));
    assert.ok(events.length > 0);
    assert.deepEqual([...new Set(events.map((e) => e.verb))].filter((v) => v !== 'list' && v !== 'watch'), []);
  });

  test('a user who may not list CRDs gets none, with one log line', { timeout: 60_000 }, async () => {
    // A service account allowed to read Flux objects only, as a team's restricted user may be.
    const name = uniqueName('gitops-preview-no-crds');
    const rbac = '/apis/rbac.authorization.k8s.io/v1';
    const create = async (p: string, body: unknown, at: string) => {
      const res = await kubeRequest(cluster.kubeconfig, { method: 'POST', path: p, body });
      assert.equal(res.status, 201, res.body);
      cleanup.push({ path: at });
    };
    await create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } }, `/api/v1/namespaces/default/serviceaccounts/${name}`);
    await create(`${rbac}/clusterroles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: [{ apiGroups: ['kustomize.toolkit.fluxcd.io'], resources: ['*'], verbs: ['get', 'list', 'watch'] }] }, `${rbac}/clusterroles/${name}`);
    await create(
      `${rbac}/clusterrolebindings`,
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'ServiceAccount', name, namespace: 'default' }] },
      `${rbac}/clusterrolebindings/${name}`,
    );
    const token = await kubeRequest(cluster.kubeconfig, { method: 'POST', path: `/api/v1/namespaces/default/serviceaccounts/${name}/token`, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } } });
    assert.equal(token.status, 201, token.body);
    const admin = YAML.parse(fs.readFileSync(cluster.kubeconfig, 'utf8'));
    const kubeconfig = path.join(cacheDir, 'restricted.yaml');
    fs.writeFileSync(
      kubeconfig,
      YAML.stringify({ apiVersion: 'v1', kind: 'Config', clusters: admin.clusters, users: [{ name, user: { token: token.json().status.token } }], contexts: [{ name: 'restricted', context: { cluster: admin.clusters[0].name, user: name } }], 'current-context': 'restricted' }),
    );
    const loaded = loadKubeConfig({ kubeconfigPath: kubeconfig, env: {} });
    assert.ok(loaded.ok, !loaded.ok ? loaded.error.message : '');
    const client = new ClusterClient(loaded.value, { userAgent: uniqueName('gitops-preview-crd-test') });
    assert.ok((await client.listObjects('kustomize.toolkit.fluxcd.io', 'v1', 'kustomizations')).ok, 'the account reads Flux objects');

    const log: string[] = [];
    const posted: unknown[] = [];
    const store = new ClusterCrdStore({ cacheDir, log: (m) => log.push(m), onChange: (c) => posted.push(c), watcher: { refusedRetryMs: 50 } });
    try {
      store.use({ context: client.context, server: client.server, client });
      await eventually('the refusal is logged', () => log.length > 0);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(log.length, 1, log.join('\n'));
      assert.match(log[0], /^\[cluster\] CRDs of context restricted not read \(Forbidden: .*customresourcedefinitions.*\); custom resources are judged without them$/);
      assert.equal(store.current, undefined);
      assert.deepEqual(posted, []);
    } finally {
      store.dispose();
    }
  });
});
