/** The engine's side of the protocol (src/engine/serve.ts): large diagnostics publications go out in spaced parts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../../../src/engine/engine';
import type { EngineDiagnostic, EngineEvent, FileDiagnostics, FromEngine } from '../../../src/engine/protocol';
import { DIAGNOSTICS_PER_MESSAGE, serve } from '../../../src/engine/serve';

function served(): { emit: (e: EngineEvent) => void; posted: FromEngine[] } {
  let listener: ((e: EngineEvent) => void) | undefined;
  const engine = { onEvent: (l: (e: EngineEvent) => void) => (listener = l) } as unknown as Engine;
  const posted: FromEngine[] = [];
  serve(engine, (m) => posted.push(m), () => undefined);
  return { emit: (e) => listener!(e), posted };
}

const diag = (file: string, message: string): EngineDiagnostic => ({
  file,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
  rule: 'depends-on-not-found',
  severity: 'error',
  message,
  related: [],
});
const files = (n: number, message: string, from = 0): FileDiagnostics[] =>
  Array.from({ length: n }, (_, i) => ({ file: `/r/f${from + i}.yaml`, diagnostics: [diag(`/r/f${from + i}.yaml`, message)] }));

const parts = (posted: FromEngine[]) => posted.filter((m): m is Extract<FromEngine, { type: 'diagnostics' }> => m.type === 'diagnostics');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a small publication is posted at once, as one message; other events pass through', () => {
  const { emit, posted } = served();
  emit({ type: 'changed', version: 3 });
  emit({ type: 'diagnostics', files: files(10, 'a') });
  assert.deepEqual(
    posted.map((m) => m.type),
    ['changed', 'diagnostics'],
  );
  assert.equal(parts(posted)[0].files.length, 10);
});

test('a large publication goes out in bounded parts, spaced in time, every file once', async () => {
  const { emit, posted } = served();
  emit({ type: 'diagnostics', files: [...files(1000, 'a'), { file: '/r/clean.yaml', diagnostics: [] }] });
  // Only the first part is posted synchronously: the receiver gets to run before the next.
  assert.equal(parts(posted).length, 1);
  for (let i = 0; i < 200 && parts(posted).reduce((n, p) => n + p.files.length, 0) < 1001; i++) await sleep(5);
  const all = parts(posted);
  assert.ok(all.length >= Math.ceil(1001 / DIAGNOSTICS_PER_MESSAGE), `${all.length} parts`);
  for (const p of all) assert.ok(p.files.reduce((n, f) => n + Math.max(1, f.diagnostics.length), 0) <= DIAGNOSTICS_PER_MESSAGE);
  const seen = all.flatMap((p) => p.files.map((f) => f.file));
  assert.equal(seen.length, 1001);
  assert.equal(new Set(seen).size, 1001);
  assert.ok(seen.includes('/r/clean.yaml'), 'an empty list (clearing a file) is published too');
});

test('a newer publication replaces lists still waiting: no stale list arrives after a newer one', async () => {
  const { emit, posted } = served();
  emit({ type: 'diagnostics', files: files(800, 'old') });
  emit({ type: 'diagnostics', files: files(400, 'new', 200) });
  await sleep(200);
  const last = new Map<string, string>();
  for (const p of parts(posted)) for (const f of p.files) last.set(f.file, f.diagnostics[0].message);
  assert.equal(last.size, 800);
  for (let i = 200; i < 600; i++) assert.equal(last.get(`/r/f${i}.yaml`), 'new', `f${i}`);
  assert.equal(last.get('/r/f0.yaml'), 'old');
  assert.equal(last.get('/r/f799.yaml'), 'old');
});

test('one file with more diagnostics than a part holds is still one list', async () => {
  const { emit, posted } = served();
  const big = { file: '/r/big.yaml', diagnostics: Array.from({ length: DIAGNOSTICS_PER_MESSAGE * 2 }, (_, i) => diag('/r/big.yaml', `m${i}`)) };
  emit({ type: 'diagnostics', files: [...files(3, 'a'), big] });
  await sleep(50);
  const lists = parts(posted).flatMap((p) => p.files).filter((f) => f.file === '/r/big.yaml');
  assert.equal(lists.length, 1);
  assert.equal(lists[0].diagnostics.length, DIAGNOSTICS_PER_MESSAGE * 2);
});
