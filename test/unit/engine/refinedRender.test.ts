/**
 * A render request for a Kustomization the open (or an edit) built already is answered from that
 * build, with what a new build would give; other options, and builds redone in part, build again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Engine } from '../../../src/engine/engine';
import { memoryHost } from '../../../src/core/workspace/host';
import { wasmModule } from '../../../src/engine/wasm/pool';
import { renderKustomization } from '../../../src/render/index';
import { targetNodes } from '../../../src/engine/targets';
import type { KustomizationNode } from '../../../src/core/model/graph';
import type { TargetRef } from '../../../src/engine/protocol';
import type { BuildCache, CachedBuild } from '../../../src/engine/buildCache';
import { fluxRepo } from './fixture';

const ROOT = '/repo';

/** An engine over `files` that builds its Kustomizations (as the extension's and the CLI's do). */
function engineOf(files: Record<string, string>): Engine {
  return new Engine({ host: memoryHost(ROOT, files), debounceMs: 0, builds: true, buildOptions: () => ({ sha256: (s) => createHash('sha256').update(s).digest('hex') }) });
}

/** A build cache kept as JSON text, as a persisted one is read back by a reopened workspace (or the next CLI run). */
function jsonCache(entries = new Map<string, string>()): BuildCache & { dispose(): void; entries: Map<string, string> } {
  return {
    entries,
    get: (key) => (entries.has(key) ? (JSON.parse(entries.get(key)!) as CachedBuild) : undefined),
    set: (key, entry) => void entries.set(key, JSON.stringify(entry)),
    drop: (key) => void entries.delete(key),
    get size() {
      return entries.size;
    },
    dispose: () => undefined,
  };
}

function engineWithCache(files: Record<string, string>, cache: BuildCache & { dispose(): void }): Engine {
  return new Engine({ host: memoryHost(ROOT, files), debounceMs: 0, builds: true, buildCache: () => cache, buildOptions: () => ({ sha256: (s) => createHash('sha256').update(s).digest('hex') }) });
}

/** Counts the kustomize module's leases (every build takes one) while `run` runs. */
async function builds<T>(run: () => Promise<T>): Promise<{ value: T; builds: number }> {
  const pool = wasmModule('kustomize');
  const lease = pool.lease;
  let n = 0;
  pool.lease = function (this: typeof pool, ...args: Parameters<typeof lease>) {
    n++;
    return lease.apply(this, args);
  } as typeof lease;
  try {
    return { value: await run(), builds: n };
  } finally {
    pool.lease = lease;
  }
}

test('a render after the open takes the refinement\'s build, equal to a new build; other options build again', async () => {
  const files = fluxRepo();
  const engine = engineOf(files);
  try {
    engine.open([ROOT]);
    await engine.refined();
    const targets = (await engine.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.kind === 'Kustomization');
    assert.ok(targets.length >= 3, targets.map((t) => t.name).join(', '));
    const model = engine.models()[0];
    const node = (t: TargetRef) => targetNodes(model, ROOT, true).find((n) => n.ref.name === t.name && n.ref.namespace === t.namespace)!.node as KustomizationNode;
    for (const target of targets) {
      const taken = await builds(() => engine.request('render', { target, allowNetwork: false }));
      assert.equal(taken.builds, 0, `${target.name}: answered from the open's build`);
      const fresh = await renderKustomization(model, node(target), { allowNetwork: false });
      assert.deepEqual(taken.value, fresh, target.name);
    }
    const apps = targets.find((t) => t.name === 'apps')!;
    // A copy: what a caller does with it does not reach the next answer.
    const first = await engine.request('render', { target: apps, allowNetwork: false });
    assert.ok(first.ok && first.value.objects.length > 0);
    first.value.objects[0].metadata.name = 'changed';
    const again = await engine.request('render', { target: apps, allowNetwork: false });
    assert.ok(again.ok && again.value.objects[0].metadata.name !== 'changed');
    // Options the refinement does not build with: a build of their own.
    for (const extra of [{ revealSecretValues: true }, { strictSubstitution: false }]) {
      const built = await builds(() => engine.request('render', { target: apps, allowNetwork: false, ...extra }));
      assert.equal(built.builds, 1, JSON.stringify(extra));
      assert.ok(built.value.ok);
    }
  } finally {
    engine.dispose();
  }
});

test('after an edit, a render answers the new content: from the new whole build, never from the old one', async () => {
  const files = fluxRepo();
  const engine = engineOf(files);
  try {
    engine.open([ROOT]);
    await engine.refined();
    const [apps] = (await engine.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.name === 'apps');
    const before = await engine.request('render', { target: apps, allowNetwork: false });
    assert.ok(before.ok);
    const value = (r: typeof before) => (r.ok ? JSON.stringify(r.value.objects) : '');
    assert.match(value(before), /"1"/);
    engine.input({ type: 'buffer', file: `${ROOT}/apps/cm.yaml`, text: files['apps/cm.yaml'].replace('"1"', '"2"') });
    await engine.refined();
    // The edit's build in part is refused for a ConfigMap, so the whole build ran again (timings.test.ts).
    const after = await builds(() => engine.request('render', { target: apps, allowNetwork: false }));
    assert.ok(after.value.ok);
    assert.doesNotMatch(value(after.value), /"1"/);
    assert.match(value(after.value), /"2"/);
    assert.equal(after.builds, 0, 'from the whole build the edit ran');
    // A HelmRelease: the build in part stands for the whole, so the model has no whole render of
    // the new content to give; the render builds, and never answers the content before the edit.
    engine.input({ type: 'buffer', file: `${ROOT}/apps/release.yaml`, text: files['apps/release.yaml'].replace('spec:\n', 'spec:\n  interval: 7m\n') });
    await engine.refined();
    const inPart = await builds(() => engine.request('render', { target: apps, allowNetwork: false }));
    assert.equal(inPart.builds, 1);
    assert.ok(inPart.value.ok);
    assert.match(value(inPart.value), /"interval":"7m"/);
  } finally {
    engine.dispose();
  }
});

test('renders asked for during the open wait for the open\'s builds instead of building beside them', async () => {
  const files = fluxRepo();
  const alone = engineOf(files);
  let targets: TargetRef[] = [];
  const opened = await builds(async () => {
    alone.open([ROOT]);
    await alone.refined();
    targets = (await alone.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.kind === 'Kustomization');
  });
  const expected = await Promise.all(targets.map((target) => alone.request('render', { target, allowNetwork: false })));
  alone.dispose();

  const engine = engineOf(files);
  try {
    const asked = await builds(async () => {
      engine.open([ROOT]);
      // Asked at once, before any build is done.
      const renders = Promise.all(targets.map((target) => engine.request('render', { target, allowNetwork: false })));
      await engine.refined();
      return renders;
    });
    assert.equal(asked.builds, opened.builds, `the open's ${opened.builds} builds, none more`);
    assert.deepEqual(asked.value, expected);
  } finally {
    engine.dispose();
  }
});

test('a render waiting for the open\'s builds is cancelled at once when its caller gives up', async () => {
  const engine = engineOf(fluxRepo());
  try {
    engine.open([ROOT]);
    const [apps] = (await engine.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.name === 'apps');
    const refined = engine.refined();
    const abort = new AbortController();
    const render = engine.request('render', { target: apps, allowNetwork: false }, abort.signal);
    abort.abort();
    const r = await render;
    // Before the refinement's first round has ended: nothing is built yet.
    assert.deepEqual([...new Set(engine.models()[0].builds.map((b) => b.state))], ['pending']);
    assert.ok(!r.ok && r.error.kind === 'cancelled', JSON.stringify(r));
    assert.match(r.ok ? '' : r.error.message, /render of Kustomization flux-system\/apps was cancelled/);
    await refined;
  } finally {
    engine.dispose();
  }
});

test("the open's builds substitute as the repository's kustomize-controller does: strictly, unless the gate is turned off or Flux is older than 2.9", async () => {
  const files = fluxRepo();
  // A variable the Kustomization does not define, in a file its build reads.
  const withVar = {
    ...files,
    'clusters/prod/apps.yaml': files['clusters/prod/apps.yaml'].replace('  path: ./apps\n', '  path: ./apps\n  postBuild:\n    substitute:\n      DEFINED: yes\n'),
    'apps/dashboard.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboard\ndata:\n  uid: "prometheus-${DS_PROMETHEUS}"\n',
  };
  const built = async (repoFiles: Record<string, string>) => {
    const engine = engineOf(repoFiles);
    try {
      engine.open([ROOT]);
      await engine.refined();
      const [target] = (await engine.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.name === 'apps');
      const slot = engine.models()[0].builds.find((b) => b.node.applied.name === 'apps');
      const render = await engine.request('render', { target, allowNetwork: false });
      return { slot: slot?.state, render };
    } finally {
      engine.dispose();
    }
  };
  // On by default (kustomize-controller v1.9): the build fails as Flux's would.
  const strict = await built(withVar);
  assert.equal(strict.slot, 'failed');
  assert.ok(!strict.render.ok && /variable not set \(strict mode\): "DS_PROMETHEUS"/.test(strict.render.error.message), JSON.stringify(strict.render));
  // Turned off by a patch of kustomize-controller's arguments, or a Flux older than 2.9: an empty string.
  const gate = 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\npatches:\n  - patch: |\n      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: --feature-gates=StrictPostBuildSubstitutions=false\n    target:\n      kind: Deployment\n      name: kustomize-controller\n';
  const components = '# Flux Version: v2.8.3\n# Components: source-controller,kustomize-controller\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n';
  const variants: Record<string, string>[] = [{ 'clusters/prod/flux-system/kustomization.yaml': gate }, { 'clusters/prod/flux-system/gotk-components.yaml': components }];
  for (const extra of variants) {
    const lenient = await built({ ...withVar, ...extra });
    assert.equal(lenient.slot, 'built', Object.keys(extra)[0]);
    assert.ok(lenient.render.ok);
    assert.equal((lenient.render.value.objects.find((o) => o.metadata.name === 'dashboard')?.data as { uid?: string } | undefined)?.uid, 'prometheus-');
  }
});

test('a reopened build cache answers renders without building, equal to a new build; an entry without warnings builds again', async () => {
  const files = fluxRepo();
  const entries = new Map<string, string>();
  const first = engineWithCache(files, jsonCache(entries));
  let expected: unknown[] = [];
  let targets: TargetRef[] = [];
  try {
    first.open([ROOT]);
    await first.refined();
    targets = (await first.request('targets', { root: ROOT, includeInferred: true })).filter((t) => t.kind === 'Kustomization');
    expected = await Promise.all(targets.map((target) => first.request('render', { target, allowNetwork: false })));
  } finally {
    first.dispose();
  }
  assert.ok(targets.length >= 3 && entries.size >= 3);
  const reopened = engineWithCache(files, jsonCache(entries));
  try {
    const asked = await builds(async () => {
      reopened.open([ROOT]);
      await reopened.refined();
      return Promise.all(targets.map((target) => reopened.request('render', { target, allowNetwork: false })));
    });
    assert.equal(asked.builds, 0, 'every build and render from the cache');
    assert.deepEqual(asked.value, expected);
  } finally {
    reopened.dispose();
  }
  // Entries written before warnings were kept: the build is reused, a render builds.
  const old = new Map([...entries].map(([k, v]) => {
    const e = JSON.parse(v) as { reads: unknown; value: Record<string, unknown> };
    delete e.value.warnings;
    return [k, JSON.stringify(e)];
  }));
  const older = engineWithCache(files, jsonCache(old));
  try {
    older.open([ROOT]);
    const opened = await builds(() => older.refined());
    assert.equal(opened.builds, 0);
    const [apps] = targets.filter((t) => t.name === 'apps');
    const rendered = await builds(() => older.request('render', { target: apps, allowNetwork: false }));
    assert.equal(rendered.builds, 1);
    assert.deepEqual(rendered.value, expected[targets.indexOf(apps)]);
    // That render is kept, and its warnings written to the entry: the next request, and the next run, build nothing.
    const again = await builds(() => older.request('render', { target: apps, allowNetwork: false }));
    assert.equal(again.builds, 0);
    assert.deepEqual(again.value, rendered.value);
  } finally {
    older.dispose();
  }
  assert.ok([...old.values()].some((v) => 'warnings' in (JSON.parse(v) as { value: object }).value), 'the entry has its warnings again');
  const upgraded = engineWithCache(files, jsonCache(old));
  try {
    upgraded.open([ROOT]);
    await upgraded.refined();
    const [apps] = targets.filter((t) => t.name === 'apps');
    const next = await builds(() => upgraded.request('render', { target: apps, allowNetwork: false }));
    assert.equal(next.builds, 0, 'the next run answers from the entry');
    assert.deepEqual(next.value, expected[targets.indexOf(apps)]);
  } finally {
    upgraded.dispose();
  }
});
