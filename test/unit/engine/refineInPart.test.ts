/**
 * A build redone in part after one resource file changed (src/engine/refine.ts `renderInPart`,
 * wasm/cmd/kustomize/partial.go): its objects must be the whole build's, and whatever may make
 * them differ (a renaming or copying transformer, the file used as a patch, an object renamed or
 * added) must send the edit to the whole build instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { Folder } from '../../../src/engine/folder';
import { memoryHost } from '../../../src/core/workspace/host';
import { diskHost } from '../../../src/node/fsHost';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { bootstrapSync } from './fixture';
import { renderKustomizationRecorded } from '../../../src/render/kustomize';
import type { RenderTiming } from '../../../src/engine/protocol';
import { CORPORA, corpusRemotes } from '../helpers';
import { checkModel } from '../../../src/core/checks/index';

const ROOT = '/repo';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');


const apps = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  path: ./apps
  sourceRef:
    kind: GitRepository
    name: flux-system
  patches:
    - patch: |-
        - op: add
          path: /metadata/labels/patched
          value: "yes"
      target:
        kind: Widget
`;

/** Objects of a kind that kustomize's name references do not involve, as Flux's kinds are not. */
const cm = (name: string, data = 'v', labels = '  labels:\n    app: demo\n') => `apiVersion: example.com/v1
kind: Widget
metadata:
  name: ${name}
${labels}data:
  k: ${data}
`;

const base: Record<string, string> = {
  'clusters/prod/flux-system/gotk-sync.yaml': bootstrapSync,
  'clusters/prod/apps.yaml': apps,
  'apps/kustomization.yaml': 'resources:\n  - one.yaml\n  - team\ncomponents:\n  - ../components/extra\n',
  'apps/one.yaml': cm('one'),
  'apps/team/kustomization.yaml': 'namespace: team\nlabels:\n  - pairs:\n      owner: team\nresources:\n  - two.yaml\n  - three.yaml\n',
  'apps/team/two.yaml': cm('two'),
  'apps/team/three.yaml': cm('three'),
  'components/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - extra.yaml\n',
  'components/extra/extra.yaml': cm('extra'),
};

function folder(files: Record<string, string>): Folder {
  return new Folder(ROOT, memoryHost(ROOT, files), { remotes: ['https://github.com/example/fleet.git'], sha256 }, { cache: new MemoryBuildCache() });
}

/** The objects `apps` applies, as the model holds them. */
function applied(f: Folder): unknown[] {
  const node = f.model().clusters[0].kustomizations.find((k) => k.applied.name === 'apps');
  assert.ok(node);
  return node.applies.map((o) => ({ kind: o.kind, name: o.name, namespace: o.namespace, body: o.object.body }));
}

/** Edits `file` in the buffer and refines: the renders, and the model compared with a fresh folder holding the edit. */
async function edit(files: Record<string, string>, file: string, text: string): Promise<RenderTiming[]> {
  const f = folder(files);
  await f.refine({ allowNetwork: false });
  f.repo.setBuffer(`${ROOT}/${file}`, text);
  const refined = await f.refine({ allowNetwork: false });
  const fresh = folder({ ...files, [file]: text });
  await fresh.refine({ allowNetwork: false });
  assert.deepEqual(applied(f), applied(fresh), `after editing ${file}, the model is the whole build's`);
  return refined?.renders ?? [];
}

const reasons = (renders: RenderTiming[]) => renders.map((r) => [r.name, r.reason, r.refused === undefined ? '' : 'refused']);

test('an edited resource file is rebuilt in part, through folders, namespaces, labels, components and Flux patches', async () => {
  for (const [file, text] of [
    ['apps/one.yaml', cm('one', 'edited')],
    ['apps/team/three.yaml', cm('three', 'edited', '  labels:\n    app: other\n')],
    ['components/extra/extra.yaml', cm('extra', 'edited')],
  ]) {
    assert.deepEqual(reasons(await edit(base, file, text)), [['flux-system/apps', 'in-part', '']], file);
  }
  const f = folder(base);
  await f.refine({ allowNetwork: false });
  f.repo.setBuffer(`${ROOT}/apps/team/three.yaml`, cm('three', 'edited'));
  await f.refine({ allowNetwork: false });
  const three = applied(f).find((o) => (o as { name: string }).name === 'three') as { namespace: string; body: { metadata: { labels: unknown }; data: unknown } };
  assert.equal(three.namespace, 'team');
  assert.deepEqual(three.body.data, { k: 'edited' });
  assert.equal((three.body.metadata.labels as Record<string, string>).patched, 'yes', "Flux's spec.patches applied to the new content");
  assert.equal((three.body.metadata.labels as Record<string, string>).owner, 'team');
});

for (const early of [false, true]) test(`keystrokes in one file reuse the plan of the build in part until a kustomization or the files around it change${early ? ', builds started before the model of each edit' : ''}`, async () => {
  const f = folder(base);
  await f.refine({ allowNetwork: false });
  let files = { ...base };
  const steps: [string, string | undefined, 'in-part' | 'whole'][] = [
    ['apps/team/three.yaml', cm('three', 'a'), 'in-part'],
    ['apps/team/three.yaml', cm('three', 'ab'), 'in-part'],
    // three.yaml leaves the build: a plan made before would still reach it.
    ['apps/team/kustomization.yaml', base['apps/team/kustomization.yaml'].replace('  - three.yaml\n', ''), 'whole'],
    ['apps/team/three.yaml', cm('three', 'abc'), 'whole'],
    ['apps/team/kustomization.yaml', base['apps/team/kustomization.yaml'], 'whole'],
    ['apps/team/three.yaml', cm('three', 'abcd'), 'in-part'],
    // A file appears beside it (listed by nothing): plans are made again, and still hold.
    ['apps/team/four.yaml', cm('four'), 'whole'],
    ['apps/team/three.yaml', cm('three', 'abcde'), 'in-part'],
    ['apps/team/three.yaml', cm('three', 'abcdef'), 'in-part'],
    // The cut kustomization a plan lays over the source is made from the kustomization as it is now.
    ['apps/team/kustomization.yaml', base['apps/team/kustomization.yaml'].replace('namespace: team', 'namespace: crew'), 'whole'],
    ['apps/team/three.yaml', cm('three', 'abcdefg'), 'in-part'],
  ];
  // Fresh folders are built after all steps: a build of another workspace in between would give the
  // instance a whole file set, not the edits this is about.
  const states: { file: string; files: Record<string, string>; seen: unknown[] }[] = [];
  for (const [file, text, how] of steps) {
    f.repo.setBuffer(`${ROOT}/${file}`, text);
    files = { ...files, [file]: text! };
    // As the engine does: the build in part starts from the last model, before the edit's model.
    if (early) f.startEarly({ allowNetwork: false });
    const refined = await f.refine({ allowNetwork: false });
    states.push({ file, files, seen: applied(f) });
    const apps = (refined?.renders ?? []).filter((r) => r.name === 'flux-system/apps');
    if (how === 'in-part') assert.deepEqual(reasons(apps), [['flux-system/apps', 'in-part', '']], `${file}: rebuilt in part`);
    else assert.ok(apps.length === 0 || apps.some((r) => r.reason !== 'in-part' || r.refused !== undefined), `${file}: not (only) in part: ${JSON.stringify(reasons(apps))}`);
  }
  const three = applied(f).find((o) => (o as { name: string }).name === 'three') as { namespace: string; body: { data: unknown } };
  assert.deepEqual([three.namespace, three.body.data], ['crew', { k: 'abcdefg' }]);
  for (const { file, files: then, seen } of states) {
    const fresh = folder(then);
    await fresh.refine({ allowNetwork: false });
    assert.deepEqual(seen, applied(fresh), `after editing ${file}, the model is the whole build's`);
  }
});

test('a build in part started before the model of its edit is taken, unless the files changed again meanwhile', async () => {
  const f = folder(base);
  await f.refine({ allowNetwork: false });
  const file = 'apps/team/three.yaml';
  f.repo.setBuffer(`${ROOT}/${file}`, cm('three', 'early'));
  assert.equal(f.startEarly({ allowNetwork: false }), true);
  assert.equal(f.startEarly({ allowNetwork: false }), false, 'started once per edit');
  let refined = await f.refine({ allowNetwork: false });
  assert.deepEqual(reasons(refined?.renders ?? []), [['flux-system/apps', 'in-part', '']], 'one build: the early one');
  assert.equal(refined?.renders[0].early, true);
  let fresh = folder({ ...base, [file]: cm('three', 'early') });
  await fresh.refine({ allowNetwork: false });
  assert.deepEqual(applied(f), applied(fresh));

  // Edited again after the early build started: that build is of the older text and is dropped.
  f.repo.setBuffer(`${ROOT}/${file}`, cm('three', 'first'));
  assert.equal(f.startEarly({ allowNetwork: false }), true);
  f.repo.setBuffer(`${ROOT}/${file}`, cm('three', 'second'));
  refined = await f.refine({ allowNetwork: false });
  assert.deepEqual(reasons(refined?.renders ?? []), [['flux-system/apps', 'in-part', '']]);
  assert.equal(refined?.renders[0].early, undefined, 'the early build, of the older text, was not taken');
  fresh = folder({ ...base, [file]: cm('three', 'second') });
  await fresh.refine({ allowNetwork: false });
  assert.deepEqual(applied(f), applied(fresh));
  const three = applied(f).find((o) => (o as { name: string }).name === 'three') as { body: { data: unknown } };
  assert.deepEqual(three.body.data, { k: 'second' });
});

test('a build in part is refused, and the whole build runs, where other resources could change the result', async () => {
  const cases: [string, Record<string, string>, string, string, RegExp][] = [
    [
      'a kind that name references involve',
      { 'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n', 'apps/kustomization.yaml': base['apps/kustomization.yaml'].replace('  - team\n', '  - team\n  - cm.yaml\n') },
      'apps/cm.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: edited\n',
      /holds a ConfigMap, which kustomize's name references/,
    ],
    [
      'vars',
      { 'apps/team/kustomization.yaml': base['apps/team/kustomization.yaml'] + 'vars:\n  - name: V\n    objref:\n      kind: Widget\n      name: two\n      apiVersion: example.com/v1\n' },
      'apps/one.yaml',
      cm('one', 'edited'),
      /has vars/,
    ],
    [
      'a plugin',
      {
        'apps/team/kustomization.yaml': base['apps/team/kustomization.yaml'] + 'transformers:\n  - t.yaml\n',
        'apps/team/t.yaml': 'apiVersion: builtin\nkind: LabelTransformer\nmetadata:\n  name: t\nlabels:\n  x: y\nfieldSpecs:\n  - path: metadata/labels\n    create: true\n',
      },
      'apps/one.yaml',
      cm('one', 'edited'),
      /has transformers/,
    ],
    [
      'a patch allowed to rename',
      { 'apps/kustomization.yaml': base['apps/kustomization.yaml'] + 'patches:\n  - patch: |-\n      - op: add\n        path: /metadata/annotations\n        value: {a: b}\n    target:\n      kind: Widget\n      name: two\n    options:\n      allowNameChange: true\n' },
      'apps/one.yaml',
      cm('one', 'edited'),
      /allowNameChange/,
    ],
    [
      'the file is a generator input',
      { 'apps/team/kustomization.yaml': base['apps/team/kustomization.yaml'] + 'configMapGenerator:\n  - name: gen\n    files:\n      - one=../one.yaml\n' },
      'apps/one.yaml',
      cm('one', 'edited'),
      /also read by/,
    ],
    [
      'replacements',
      { 'apps/kustomization.yaml': base['apps/kustomization.yaml'] + 'replacements:\n  - source:\n      kind: Widget\n      name: two\n      fieldPath: data.k\n    targets:\n      - select:\n          name: one\n        fieldPaths: [data.k]\n' },
      'apps/team/two.yaml',
      cm('two', 'copied'),
      /has replacements/,
    ],
    [
      'the file is also a patch',
      { 'apps/team/kustomization.yaml': base['apps/team/kustomization.yaml'] + 'patches:\n  - path: ../one.yaml\n    target:\n      kind: Widget\n      name: two\n' },
      'apps/one.yaml',
      cm('one', 'edited'),
      /also read by/,
    ],
    ['an object renamed', {}, 'apps/one.yaml', cm('renamed'), /other names or number/],
    ['an object added', {}, 'apps/one.yaml', cm('one') + '---\n' + cm('four'), /other names or number/],
  ];
  for (const [what, change, file, text, why] of cases) {
    const renders = await edit({ ...base, ...change }, file, text);
    assert.deepEqual(reasons(renders), [['flux-system/apps', 'in-part', 'refused'], ['flux-system/apps', 'reads-changed', '']], what);
    assert.match(renders[0].refused!, why, what);
  }
});

test('an edit that breaks the file is refused in part and fails as the whole build does', async () => {
  const f = folder(base);
  await f.refine({ allowNetwork: false });
  // It parses (a file that does not keeps the static reading and its syntax finding) but has no name.
  f.repo.setBuffer(`${ROOT}/apps/team/two.yaml`, 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  labels:\n    app: demo\n');
  const refined = await f.refine({ allowNetwork: false });
  assert.deepEqual(reasons(refined?.renders ?? []), [['flux-system/apps', 'in-part', 'refused'], ['flux-system/apps', 'reads-changed', '']]);
  assert.equal(f.model().builds.find((b) => b.node.applied.name === 'apps')?.state, 'failed');
  assert.match(refined!.renders[0].refused!, /the build in part failed: .*name/);
});

/** What a model holds, to compare two: builds, what each Kustomization applies, HelmRelease specs, diagnostics. */
function summary(f: Folder) {
  const m = f.model();
  return {
    builds: m.builds.map((b) => [b.node.applied.name, b.key, b.state]),
    clusters: m.clusters.map((c) => ({
      name: c.name,
      kustomizations: c.kustomizations.map((k) => [k.applied.namespace, k.applied.name, k.applies.map((a) => `${a.kind}/${a.namespace ?? ''}/${a.name}`), k.problems.map((x) => x.message)]),
      helmReleases: c.helmReleases.map((h) => [h.applied.namespace, h.applied.name, JSON.stringify(h.applied.object.body.spec)]),
    })),
    diagnostics: checkModel(m).diagnostics.map((d) => `${d.file}:${d.range.start.line}:${d.rule}:${d.message}`),
  };
}

/**
 * Real repositories: for files whose objects a parent applies with others, an edit (an annotation
 * added to the file's first object) is rebuilt through the refiner, and the parent's build is then
 * compared with its whole build rendered anew.
 */
for (const [corpus, least] of [
  ['bjw-s-labs-home-ops', 8],
  ['joryirving-home-ops', 0],
  ['controlplaneio-fluxcd-d2-fleet', 0],
  ['allenporter-k8s-gitops', 0],
] as const) {
  test(`${corpus}: builds redone in part are their whole builds`, async (t) => {
    const dir = path.join(CORPORA, corpus);
    assert.ok(fs.existsSync(dir), `corpus ${dir} missing`);
    const cache = new MemoryBuildCache();
    const f = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(corpus), checkout: { branch: 'main' } }, { cache });
    await f.refine({ allowNetwork: false });
    // Files applied by a build together with other files, a few per build, from the builds applying the most files.
    const candidates: { key: string; file: string }[] = [];
    const builds = f
      .model()
      .builds.map((b) => ({ key: b.key, objects: (cache.get(b.key)?.value as { build?: { ok: boolean; objects?: { origin?: { file: string } }[] } })?.build }))
      .filter((b) => b.objects?.ok)
      .map((b) => ({ key: b.key, files: [...new Set(b.objects!.objects!.map((o) => o.origin?.file).filter((x): x is string => !!x))] }))
      .filter((b) => b.files.length >= 2)
      .sort((a, b) => b.files.length - a.files.length)
      .slice(0, 4);
    for (const b of builds) for (const file of b.files.filter((_, i) => i % Math.ceil(b.files.length / 3) === 0)) candidates.push({ key: b.key, file });
    assert.ok(candidates.length >= Math.min(least, 1), 'files to edit');
    let inPart = 0;
    const refusals = new Set<string>();
    for (const c of candidates) {
      const { key, file } = c;
      const original = fs.readFileSync(file, 'utf8');
      const docs = parseAllDocuments(original);
      const first = docs.findIndex((d) => d.get('metadata') !== undefined);
      if (first < 0) continue;
      docs[first].setIn(['metadata', 'annotations', 'gitops-preview.test/edited'], 'yes');
      f.repo.setBuffer(file, docs.map((d) => d.toString()).join(''));
      const refined = await f.refine({ allowNetwork: false });
      const slot = f.model().builds.find((s) => s.key === key);
      assert.ok(slot, `${file}: the build is still in the model`);
      const mine = refined!.renders.find((r) => r.name === `${slot.node.applied.namespace ?? 'default'}/${slot.node.applied.name}` && r.reason === 'in-part' && !r.refused);
      if (mine) inPart++;
      for (const r of refined!.renders) if (r.refused) refusals.add(r.refused.replace(/^.*?: /, ''));
      const whole = await renderKustomizationRecorded(f.model(), slot.node, { allowNetwork: false, revealSecretValues: false });
      assert.ok(whole.result.ok, `${file}: the whole build works`);
      const kept = cache.get(key)?.value as { build: { objects: unknown[] } };
      assert.deepEqual(JSON.parse(JSON.stringify(kept.build.objects)), JSON.parse(JSON.stringify(whole.result.value.objects)), `${file}: the build kept after the edit is the whole build`);
      if (candidates.indexOf(c) % 3 === 0) {
        // The model rebuilt across the edit (the stale build shown meanwhile, model objects kept)
        // is the one a fresh folder builds (from the cached builds, rendering those never cached).
        const fresh = new Folder(dir, diskHost, { sha256, remotes: corpusRemotes(corpus), checkout: { branch: 'main' } }, { cache });
        fresh.repo.setBuffer(file, f.repo.workspace.readText(file));
        await fresh.refine({ allowNetwork: false });
        assert.deepEqual(summary(f), summary(fresh), `${file}: the model after the edit is the model built afresh`);
      }
      f.repo.setBuffer(file, undefined);
      await f.refine({ allowNetwork: false });
    }
    t.diagnostic(`${corpus}: ${inPart} of ${candidates.length} edits rebuilt in part; refused: ${[...refusals].join(' | ') || 'none'}`);
    assert.ok(inPart >= least, `at least ${least} edits rebuilt in part`);
  });
}
