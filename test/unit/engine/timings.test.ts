/**
 * The engine's account of an update (`timings` events): sent with the diagnostics an input led to,
 * naming each Kustomization rendered and where the time went.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Engine } from '../../../src/engine/engine';
import { memoryHost } from '../../../src/core/workspace/host';
import type { EngineEvent, UpdateTimings } from '../../../src/engine/protocol';
import { fluxRepo } from './fixture';

const ROOT = '/repo';

test('an edit is accounted for once its diagnostics are sent: renders, model, checks, total', async () => {
  const files = fluxRepo();
  const engine = new Engine({ host: memoryHost(ROOT, files), debounceMs: 0, builds: true, buildOptions: () => ({ sha256: (s) => createHash('sha256').update(s).digest('hex') }) });
  const events: EngineEvent[] = [];
  engine.onEvent((e) => events.push(e));
  engine.open([ROOT]);
  await engine.refined();
  assert.equal(events.filter((e) => e.type === 'timings').length, 0, 'opening is no input');

  events.length = 0;
  engine.input({ type: 'buffer', file: `${ROOT}/apps/cm.yaml`, text: files['apps/cm.yaml'].replace('"1"', '"2"') });
  await engine.refined();
  const kinds = events.map((e) => e.type);
  const at = kinds.indexOf('timings');
  assert.ok(at > kinds.indexOf('diagnostics') || !kinds.includes('diagnostics'), `after the diagnostics: ${kinds.join(', ')}`);
  const t = (events[at] as { timings: UpdateTimings }).timings;
  assert.deepEqual(
    t.renders.map((r) => [r.name, r.reason]),
    [
      ['flux-system/apps', 'in-part'],
      ['flux-system/apps', 'reads-changed'],
    ],
    'a ConfigMap: the build in part is refused (name references), then the whole build runs',
  );
  assert.match(t.renders[0].refused ?? '', /holds a ConfigMap/);
  assert.ok(t.renders[1].kustomizeMs > 0 && t.inputMs > 0 && t.modelMs > 0 && t.checksMs > 0);
  // A build started early runs while the model is rebuilt: its time overlaps the model's.
  assert.equal(t.renders[0].early, true, 'the build in part started before the model of the edit');
  const whole = (r: UpdateTimings['renders'][number]) => r.prepareMs + r.kustomizeMs + r.postBuildMs;
  const parts = t.inputMs + t.modelMs + t.checksMs + t.renders.reduce((n, r) => n + (r.early ? 0 : whole(r)), 0);
  assert.ok(t.totalMs >= parts - 1, `total ${t.totalMs} covers its parts ${parts}`);
  assert.ok(t.totalMs >= whole(t.renders[0]) - 1, 'and the early build');
  assert.equal(kinds.filter((k) => k === 'timings').length, 1);
  engine.dispose();
});
