/**
 * Several instances of the kustomize module (src/engine/wasm/pool.ts) with the real module from
 * dist/wasm: how many run at once, what a crash, a cancellation and idleness do to the others,
 * and that a corpus's model does not depend on how many instances built it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { wasmDir } from '../../../src/engine/wasm/host';
import { helmPoolSize, kustomizePoolSize, setWasmPoolSize, WasmPool } from '../../../src/engine/wasm/pool';
import { WasmModule } from '../../../src/engine/wasm/host';
import { callHelm } from '../../../src/render/helmCalls';
import type { MemFile } from '../../../src/engine/wasm/protocol';
import { Folder } from '../../../src/engine/folder';
import { diskHost } from '../../../src/node/fsHost';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { checkModel } from '../../../src/core/checks/index';
import { SHARED } from '../checks/helpers';
import { corpusRemotes } from '../helpers';

const file = path.join(wasmDir(), 'kustomize.wasm');
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;
const app = (name: string): MemFile[] => [
  { path: 'app/kustomization.yaml', data: 'resources: [cm.yaml]\n' },
  { path: 'app/cm.yaml', data: cm(name) },
];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until `cond` holds (at most `ms`): timers run late on a loaded machine. */
async function eventually(cond: () => boolean, ms = 10_000): Promise<void> {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(50);
}

test('at most `size` leases run at once; every one gets its own answer', async () => {
  const pool = new WasmPool('kustomize', { file, size: 2, idleMs: 60_000 });
  try {
    let running = 0;
    let peak = 0;
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const results = await Promise.all(
      names.map((n) =>
        pool.lease(async (m) => {
          running++;
          peak = Math.max(peak, running);
          const r = await m.call('kustomize', { dir: 'app' }, app(n));
          running--;
          return r;
        }),
      ),
    );
    assert.equal(peak, 2);
    assert.equal(pool.peakRunning, 2);
    assert.deepEqual(
      results.map((r) => (r.ok ? /name: (\S+)/.exec(r.output)?.[1] : r.message)),
      names,
    );
    // Two slots, each started once.
    assert.equal(pool.started, 2);
    assert.equal(pool.alive, 2);
  } finally {
    await pool.dispose();
  }
});

test('a running instance is taken before one that must start', async () => {
  const pool = new WasmPool('kustomize', { file, size: 3, idleMs: 60_000 });
  try {
    for (const n of ['a', 'b', 'c']) assert.ok((await pool.call('kustomize', { dir: 'app' }, app(n))).ok);
    assert.equal(pool.started, 1);
  } finally {
    await pool.dispose();
  }
});

test('warm starts instances that are not running in the background; a lease waits for them', async () => {
  const pool = new WasmPool('kustomize', { file, size: 2, idleMs: 60_000 });
  try {
    const warmed: string[] = [];
    pool.warm(5, async (m) => {
      const r = await m.call('kustomize', { dir: 'app' }, app('warm'));
      if (r.ok) warmed.push('ok');
    });
    // Both slots are taken by the warm-up: this call waits for one.
    const r = await pool.call('kustomize', { dir: 'app' }, app('after'));
    assert.ok(r.ok && /name: after/.test(r.output));
    assert.ok(warmed.length >= 1);
    // Two leases held at once: the second instance's warm-up has finished by then.
    let arrived = 0;
    let open!: () => void;
    const both = new Promise<void>((r) => (open = r));
    await Promise.all(
      [0, 1].map(() =>
        pool.lease(async () => {
          if (++arrived === 2) open();
          await both;
        }),
      ),
    );
    assert.deepEqual(warmed, ['ok', 'ok']);
    assert.equal(pool.alive, 2);
    // Running instances are not warmed again.
    pool.warm(2, async () => {
      warmed.push('again');
    });
    assert.deepEqual(warmed, ['ok', 'ok']);
    assert.equal(pool.started, 2);
  } finally {
    await pool.dispose();
  }
});

test("an instance that crashes loses nothing of the other instance's builds; it is replaced", async () => {
  const pool = new WasmPool('kustomize', { file, size: 2, idleMs: 60_000 });
  try {
    const [dead, built] = await Promise.all([pool.call('exit', {}, []), pool.call('kustomize', { dir: 'app' }, app('kept'))]);
    assert.ok(!dead.ok && dead.kind === 'crashed', JSON.stringify(dead));
    assert.ok(built.ok && /name: kept/.test(built.output), JSON.stringify(built));
    const again = await Promise.all(['x', 'y'].map((n) => pool.call('kustomize', { dir: 'app' }, app(n))));
    assert.ok(again.every((r) => r.ok));
    assert.equal(pool.started, 3);
  } finally {
    await pool.dispose();
  }
});

test('a cancelled or timed-out call stops its own instance only', async () => {
  const pool = new WasmPool('kustomize', { file, size: 2, idleMs: 60_000 });
  try {
    const abort = new AbortController();
    const cancelled = pool.call('kustomize', { dir: 'app' }, app('c'), { signal: abort.signal });
    const timedOut = pool.call('kustomize', { dir: 'app' }, app('t'), { timeoutMs: 1 });
    abort.abort();
    const third = pool.call('kustomize', { dir: 'app' }, app('z'));
    const [c, t, z] = await Promise.all([cancelled, timedOut, third]);
    assert.ok(!c.ok && c.kind === 'cancelled', JSON.stringify(c));
    assert.ok(!t.ok && t.kind === 'timeout', JSON.stringify(t));
    assert.ok(z.ok && /name: z/.test(z.output), JSON.stringify(z));
  } finally {
    await pool.dispose();
  }
});

test('idle instances stop and give their memory back; the first is kept unless told', async () => {
  // Long enough that neither instance stops between the two calls' answers on a loaded machine.
  const pool = new WasmPool('kustomize', { file, size: 2, idleMs: 1500 });
  try {
    await Promise.all(['a', 'b'].map((n) => pool.call('kustomize', { dir: 'app' }, app(n))));
    assert.equal(pool.alive, 2);
    assert.ok(pool.memoryBytes > 0);
    const one = pool.memoryBytes;
    await eventually(() => pool.alive < 2);
    await sleep(300);
    assert.equal(pool.alive, 1);
    assert.ok(pool.memoryBytes < one, `${pool.memoryBytes} < ${one}`);
    // A lease after that is served by the running instance.
    assert.ok((await pool.call('kustomize', { dir: 'app' }, app('c'))).ok);
    assert.equal(pool.started, 2);
  } finally {
    await pool.dispose();
  }
  const quiet = new WasmPool('kustomize', { file, size: 1, idleMs: 100, firstIdleMs: 100 });
  try {
    assert.ok((await quiet.call('kustomize', { dir: 'app' }, app('a'))).ok);
    await eventually(() => quiet.alive === 0);
    assert.equal(quiet.alive, 0);
    assert.equal(quiet.memoryBytes, 0);
    assert.ok((await quiet.call('kustomize', { dir: 'app' }, app('b'))).ok);
    assert.equal(quiet.started, 2);
  } finally {
    await quiet.dispose();
  }
});

test('kustomize instances: one per core, at most 2', () => {
  const saved = process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES;
  delete process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES;
  try {
    assert.deepEqual([1, 2, 3, 4, 16].map((cores) => kustomizePoolSize(cores)), [1, 2, 2, 2, 2]);
    process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES = '3';
    assert.equal(kustomizePoolSize(2), 3);
  } finally {
    if (saved === undefined) delete process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES;
    else process.env.GITOPS_PREVIEW_KUSTOMIZE_INSTANCES = saved;
  }
});

test('helm instances: one per core, at most 2 (renders wait on nothing else)', () => {
  const saved = process.env.GITOPS_PREVIEW_HELM_INSTANCES;
  delete process.env.GITOPS_PREVIEW_HELM_INSTANCES;
  try {
    assert.deepEqual([1, 2, 3, 16].map((cores) => helmPoolSize(cores)), [1, 2, 2, 2]);
    process.env.GITOPS_PREVIEW_HELM_INSTANCES = '1';
    assert.equal(helmPoolSize(4), 1);
  } finally {
    if (saved === undefined) delete process.env.GITOPS_PREVIEW_HELM_INSTANCES;
    else process.env.GITOPS_PREVIEW_HELM_INSTANCES = saved;
  }
});

test("a chart's renders go to the helm instance that holds it: each chart's files are sent once", async () => {
  const chart = (name: string): MemFile[] => [
    { path: 'Chart.yaml', data: `apiVersion: v2\nname: ${name}\nversion: 1.0.0\n` },
    { path: 'templates/cm.yaml', data: cm(`${name}-{{ .Values.n }}`) },
  ];
  const sent: string[] = [];
  const call = WasmModule.prototype.call;
  WasmModule.prototype.call = function (this: WasmModule, op, args, files, opts) {
    if (files.length) sent.push((args as { chartKey: string }).chartKey);
    return call.call(this, op, args, files, opts);
  };
  const pool = await setWasmPoolSize('helm', 2);
  try {
    const render = async (key: string, n: number) => {
      const r = await callHelm('helm', { chartKey: key, releaseName: 'r', namespace: 'ns', values: { n } } as { chartKey: string }, chart(key), { timeoutMs: 60_000 });
      assert.ok(r.ok && r.output.includes(`name: ${key}-${n}`), JSON.stringify(r));
    };
    await Promise.all([render('a', 1), render('b', 1)]);
    assert.equal(pool.started, 2, 'both instances ran');
    for (let n = 2; n < 6; n++) await render(n % 2 ? 'a' : 'b', n);
    assert.deepEqual(sent.sort(), ['a', 'b']);
  } finally {
    WasmModule.prototype.call = call;
    await setWasmPoolSize('helm', 1);
  }
});

/** Everything the refined model holds of a corpus: each build's result, each node's objects, the diagnostics. */
async function refinedModel(name: string, instances: number) {
  const pool = await setWasmPoolSize('kustomize', instances);
  // Every instance started and set up first: otherwise a slow start (a loaded machine) can let the
  // running instance do all the builds before the other is ready, and nothing runs side by side.
  await Promise.all(Array.from({ length: instances }, () => pool.call('warm', {}, [])));
  pool.peakRunning = 0;
  pool.waited = 0;
  const dir = `${SHARED}/corpora/${name}`;
  assert.ok(fs.existsSync(dir), `corpus ${dir} missing`);
  const cache = new MemoryBuildCache();
  const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
  const folder = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(name), checkout: { branch: 'main' } }, { cache });
  const refined = await folder.refine({ allowNetwork: false });
  assert.equal(refined?.pending, 0);
  const model = folder.model();
  const builds = model.builds.map((b) => ({ key: b.key, state: b.state, build: cache.get(b.key)?.value }));
  const clusters = model.clusters.map((c) => ({
    kustomizations: c.kustomizations.map((k) => ({ name: `${k.applied.namespace}/${k.applied.name}`, applies: k.applies.map((a) => `${a.kind}/${a.namespace ?? ''}/${a.name}`) })),
    helmReleases: c.helmReleases.map((h) => ({ name: `${h.applied.namespace}/${h.applied.name}`, spec: h.applied.object.body.spec })),
  }));
  const diagnostics = checkModel(model).diagnostics.map((d) => `${d.file}:${d.range.start.line}:${d.rule}:${d.message}`);
  return { model: { builds, clusters, diagnostics }, peak: pool.peakRunning, waited: pool.waited, started: pool.started };
}

test('a corpus refined by one instance and by two gives the same model', async () => {
  try {
    const one = await refinedModel('flux2-hub-spoke-example', 1);
    const two = await refinedModel('flux2-hub-spoke-example', 2);
    assert.equal(one.peak, 1);
    // A round's next build was ready and waiting while the instance built the last one, so the
    // instance did not wait for this thread to prepare it.
    // A round's next build was ready and waiting while the instance built the one before, so the
    // instance did not wait for this thread to prepare it (without that, only the build that came
    // during the instance's set-up waited).
    const built = one.model.builds.filter((b) => b.state === 'built').length;
    assert.ok(one.waited >= built / 2, `${one.waited} of ${built} builds waited for the instance`);
    // The builds really ran side by side.
    assert.equal(two.peak, 2);
    assert.equal(two.started, 2);
    assert.ok(one.model.builds.filter((b) => b.state === 'built').length >= 8);
    assert.deepEqual(two.model, one.model);
  } finally {
    await (await setWasmPoolSize('kustomize', 1)).dispose();
  }
});
