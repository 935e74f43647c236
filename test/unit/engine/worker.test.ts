import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineClient, workerTransport } from '../../../src/engine/client';
import type { FileDiagnostics } from '../../../src/engine/protocol';
import { bundleWorker } from '../../../bench/workerBundle';

const DEMO = path.resolve(__dirname, '../../../examples/demo-repo').split(path.sep).join('/');

test('the bundled worker indexes a folder off this thread and answers with plain data', async () => {
  const script = bundleWorker();
  const client = new EngineClient(workerTransport(script));
  try {
    const diagnostics: FileDiagnostics[] = [];
    // Diagnostics come once the Kustomization builds are done, after the index.
    const checked = new Promise<void>((resolve) =>
      client.onDiagnostics((files) => {
        diagnostics.push(...files);
        resolve();
      }),
    );
    const indexed = new Promise<void>((resolve) => client.onStatus((s) => !s.indexing && resolve()));
    client.open([DEMO]);
    assert.equal(client.ready, false, 'open() returns before the index is done');
    await indexed;
    assert.ok(client.ready);
    assert.deepEqual(
      (await client.request('treeChildren', {})).map((i) => i.label),
      ['demo'],
    );
    // The demo's deliberate mistake: a ClusterIssuer applied before its CRD.
    await checked;
    assert.ok(
      diagnostics.some((f) => f.diagnostics.some((d) => d.rule === 'crd-order')),
      JSON.stringify(diagnostics.map((f) => f.file)),
    );
    const targets = await client.request('targets', { kind: 'Kustomization', name: 'apps' });
    assert.deepEqual(
      targets.map((t) => [t.namespace, t.cluster, t.root]),
      [['flux-system', 'demo', DEMO]],
    );
    // The dependency graph crosses the thread boundary as data, the crd-order finding on its edge.
    const graph = await client.request('graph', { root: DEMO });
    const problem = graph.clusters[0].edges.find((e) => e.problem);
    assert.deepEqual([problem?.from, problem?.to, problem?.problem?.rule, problem?.absent], ['Kustomization/flux-system/infra-configs', 'Kustomization/flux-system/infra-crds', 'crd-order', true]);
  } finally {
    client.dispose();
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  }
});
