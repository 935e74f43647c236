/** The cluster's CRDs posted to the engine: diagnostics are republished with them, hover and completion use them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterCrds, FileDiagnostics } from '../../../src/engine/protocol';
import { servedCrdOf } from '../../../src/core/schema/clusterCrds';
import { bootstrapSync, memoryEngine } from './fixture';

const R = '/repo';
const WIDGET = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  sise: 3\n';
const widgetCrd = {
  metadata: { name: 'widgets.example.com' },
  spec: { group: 'example.com', names: { kind: 'Widget' }, versions: [{ name: 'v1', served: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }] },
};
const crds: ClusterCrds = { context: 'prod', server: 'https://prod.example.com', crds: [servedCrdOf(widgetCrd)!] };

for (const redHatYaml of [false, true]) {
  test(`posting the CRDs republishes diagnostics; clearing them takes the finding back; a reopened folder keeps them${redHatYaml ? ' (beside Red Hat YAML)' : ''}`, async () => {
    const { engine, events } = memoryEngine({ [R]: { 'clusters/prod/flux-system/gotk-sync.yaml': bootstrapSync, 'clusters/prod/widget.yaml': WIDGET } });
    if (redHatYaml) engine.open([R], { redHatYaml });
    const published = () => events.filter((e) => e.type === 'diagnostics').flatMap((e) => (e as { files: FileDiagnostics[] }).files);
    const widget = `${R}/clusters/prod/widget.yaml`;
    assert.ok(!published().some((f) => f.file === widget), 'no schema: nothing said');

    events.length = 0;
    engine.input({ type: 'clusterCrds', crds });
    const found = published().find((f) => f.file === widget)?.diagnostics ?? [];
    assert.deepEqual(found.map((d) => [d.rule, d.range.start.line]), [['schema-unknown-field', 6]]);
    assert.match(found[0].message, /Did you mean 'size'\?.*schema: CRD widgets\.example\.com \(cluster prod\) Widget v1/);

    const hover = await engine.request('hover', { file: widget, position: { line: 5, character: 1 } });
    assert.match(hover?.markdown ?? '', /^\*\*spec\*\* · object\n\nSchema: CRD widgets\\\.example\\\.com \\\(cluster prod\\\)$/);
    const completion = await engine.request('completion', { file: widget, position: { line: 6, character: 2 }, text: WIDGET.replace('  sise: 3\n', '  \n  colour: red\n') });
    assert.deepEqual(completion.map((c) => c.label), ['size']);

    engine.open([R], { redHatYaml });
    const check = await engine.request('check', {});
    assert.ok(check.diagnostics.some((d) => d.file === widget && d.rule === 'schema-unknown-field'));

    events.length = 0;
    engine.input({ type: 'clusterCrds', crds: undefined });
    assert.deepEqual(published().find((f) => f.file === widget)?.diagnostics, []);
  });
}
