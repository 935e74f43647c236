/**
 * `build ks NAME` opens the engine with a focus (EngineSettings.focus): Kustomizations whose own
 * files hold no Kustomization and whose name is another are left unbuilt. What the command asks of
 * the engine (the targets, the render of the one asked for) must be what an unfocused engine says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Engine } from '../../../src/engine/engine';
import { nodeEngine, openRefined } from '../../../src/engine/node';
import { memoryHost } from '../../../src/core/workspace/host';
import type { EngineSettings, TargetRef } from '../../../src/engine/protocol';
import { CORPORA } from '../helpers';
import { gotkSync, ks } from './helmFixture';

/** The engine's `[builds]` log lines' counts of Kustomization builds, summed. */
function countBuilds(engine: Engine): () => number {
  let n = 0;
  engine.onEvent((e) => {
    const m = e.type === 'log' ? /\[builds\] .*?: (\d+) Kustomization build\(s\)/.exec(e.message) : null;
    if (m) n += Number(m[1]);
  });
  return () => n;
}

async function open(root: string, focus?: EngineSettings['focus']): Promise<{ engine: Engine; built: number }> {
  const engine = nodeEngine({ debounceMs: 0 });
  const built = countBuilds(engine);
  await openRefined(engine, [root], focus ? { focus } : {}, { helm: false });
  return { engine, built: built() };
}

const strip = (refs: TargetRef[]) => refs.map((r) => JSON.stringify(r)).sort();

test('on a corpus, a focused open gives the same targets and the same render of the one asked for, building far less', async () => {
  const root = path.join(CORPORA, 'bjw-s-labs-home-ops').split(path.sep).join('/');
  const focused = await open(root, { kustomization: 'radarr' });
  const whole = await open(root);
  try {
    // Every Kustomization is still in the model, under the same cluster and namespace.
    const all = { root, kind: 'Kustomization', includeInferred: true };
    assert.deepEqual(strip(await focused.engine.request('targets', all)), strip(await whole.engine.request('targets', all)));
    assert.ok((await whole.engine.request('targets', all)).length > 80);
    // The named one, in every namespace (the command's hint lists the others).
    const named = await focused.engine.request('targets', { ...all, name: 'radarr' });
    assert.deepEqual(strip(named), strip(await whole.engine.request('targets', { ...all, name: 'radarr' })));
    assert.equal(named.length, 1);
    const a = await focused.engine.request('render', { target: named[0], allowNetwork: false });
    const b = await whole.engine.request('render', { target: named[0], allowNetwork: false });
    assert.ok(a.ok && b.ok);
    assert.ok(a.value.objects.some((o) => o.kind === 'HelmRelease' && o.metadata.name === 'radarr'));
    assert.deepEqual(a.value, b.value);
    // The root, cluster-apps (whose files hold every app's Kustomization) and radarr; the whole open builds them all.
    assert.ok(focused.built >= 2 && focused.built <= 5, `focused open built ${focused.built}`);
    assert.ok(whole.built > 80, `whole open built ${whole.built}`);
  } finally {
    focused.engine.dispose();
    whole.engine.dispose();
  }
});

const at = (p: string) => `  path: ${p}\n`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  k: v\n`;

test('what is left unbuilt: leaves of another name; a Kustomization whose files hold one, or a remote base, is built', async () => {
  const files: Record<string, string> = {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': ks('apps', at('./apps')),
    'clusters/prod/leaf.yaml': ks('leaf', at('./leaf')),
    'clusters/prod/remote.yaml': ks('remote', at('./remote')),
    'leaf/cm.yaml': cm('leaf'),
    'remote/kustomization.yaml': 'resources:\n  - https://github.com/example/bases//x?ref=v1\n  - cm.yaml\n',
    'remote/cm.yaml': cm('remote'),
    'apps/kustomization.yaml': 'resources:\n  - target.yaml\n  - other.yaml\n',
    'apps/target.yaml': ks('target', at('./target')),
    'apps/other.yaml': ks('other', at('./other')),
    'target/cm.yaml': cm('target'),
    'other/cm.yaml': cm('other'),
  };
  const engineOf = (focus?: EngineSettings['focus']) => {
    const engine = new Engine({ host: memoryHost('/repo', files), debounceMs: 0, builds: true, buildOptions: () => ({ sha256: (s) => createHash('sha256').update(s).digest('hex'), ...(focus ? { focus } : {}) }) });
    const built = countBuilds(engine);
    engine.open(['/repo']);
    return { engine, built };
  };
  const focused = engineOf({ kustomization: 'target' });
  const whole = engineOf();
  try {
    await focused.engine.refinedBuilds();
    await whole.engine.refinedBuilds();
    const all = { root: '/repo', kind: 'Kustomization', includeInferred: true };
    assert.deepEqual(strip(await focused.engine.request('targets', all)), strip(await whole.engine.request('targets', all)));
    // flux-system, apps (its files hold two Kustomizations), remote (a remote base), target; not leaf or other.
    assert.equal(focused.built(), 4);
    assert.equal(whole.built(), 6);
    const [target] = await focused.engine.request('targets', { ...all, name: 'target' });
    assert.deepEqual(await focused.engine.request('render', { target, allowNetwork: false }), await whole.engine.request('render', { target, allowNetwork: false }));
  } finally {
    focused.engine.dispose();
    whole.engine.dispose();
  }
});
