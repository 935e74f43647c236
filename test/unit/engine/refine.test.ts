/**
 * Clusters built from their roots down (src/engine/refine.ts): each Kustomization's objects come
 * from its real build (kustomize as WebAssembly, dist/wasm), children from their parent's build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Folder } from '../../../src/engine/folder';
import { memoryHost } from '../../../src/core/workspace/host';
import { checkModel } from '../../../src/core/checks/index';
import type { HelmReleaseNode, KustomizationNode, RepoModel } from '../../../src/core/model/graph';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { bootstrapSync } from './fixture';

const ROOT = '/repo';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');


/** A Flux Kustomization document; `spec` is indented YAML below `spec:`. */
const ks = (name: string, spec: string) => `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ${name}
  namespace: flux-system
spec:
  sourceRef:
    kind: GitRepository
    name: flux-system
${spec}`;

const helmRelease = (name: string) => `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
spec:
  chart:
    spec:
      chart: ${name}
      sourceRef:
        kind: HelmRepository
        name: charts
`;

const configMap = (name: string, extra = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
data:
  key: value${extra}
`;

function folder(files: Record<string, string>, cache = new MemoryBuildCache()): Folder {
  const host = memoryHost(ROOT, { 'clusters/prod/flux-system/gotk-sync.yaml': bootstrapSync, ...files });
  return new Folder(ROOT, host, { remotes: ['https://github.com/example/fleet.git'], sha256 }, { cache });
}

function kustomization(model: RepoModel, name: string): KustomizationNode {
  const node = model.clusters[0]?.kustomizations.find((k) => k.applied.name === name);
  assert.ok(node, `Kustomization ${name} in the model`);
  return node;
}

function helm(model: RepoModel, name: string): HelmReleaseNode {
  const node = model.clusters[0]?.helmReleases.find((h) => h.applied.name === name);
  assert.ok(node, `HelmRelease ${name} in the model`);
  return node;
}

const applied = (node: KustomizationNode) => node.applies.map((a) => `${a.kind}/${a.namespace ?? ''}/${a.name}`).sort();

test("a parent's spec.patches reach the HelmReleases of the Kustomizations it applies", async () => {
  const f = folder({
    'clusters/prod/apps.yaml': ks(
      'apps',
      `  path: ./apps
  patches:
    - patch: |-
        apiVersion: kustomize.toolkit.fluxcd.io/v1
        kind: Kustomization
        metadata:
          name: _
        spec:
          patches:
            - patch: |-
                apiVersion: helm.toolkit.fluxcd.io/v2
                kind: HelmRelease
                metadata:
                  name: _
                spec:
                  install:
                    crds: CreateReplace
              target:
                kind: HelmRelease
      target:
        kind: Kustomization
`,
    ),
    'apps/kustomization.yaml': 'resources:\n  - podinfo/ks.yaml\n',
    'apps/podinfo/ks.yaml': ks('podinfo', '  path: ./apps/podinfo/app\n  targetNamespace: web\n'),
    'apps/podinfo/app/helmrelease.yaml': helmRelease('podinfo'),
  });
  const before = f.model();
  assert.equal(helm(before, 'podinfo').applied.object.body.spec.install, undefined, 'the static reading sees the file as written');
  assert.ok(before.builds.some((b) => b.state === 'pending'));

  const result = await f.refine({ allowNetwork: false });
  assert.equal(result?.pending, 0);
  const after = f.model();
  assert.ok(after.builds.length >= 3 && after.builds.every((b) => b.state === 'built'), JSON.stringify(after.builds.map((b) => [b.node.applied.name, b.state])));
  const hr = helm(after, 'podinfo');
  assert.deepEqual(hr.applied.object.body.spec.install, { crds: 'CreateReplace' });
  assert.equal(hr.applied.namespace, 'web', "the child's targetNamespace applies");
  assert.equal(hr.applied.object.rendered, true);
  // Positions stay in the source document.
  assert.equal(hr.applied.object.file, `${ROOT}/apps/podinfo/app/helmrelease.yaml`);
  assert.equal(hr.applied.object.doc.file.path, `${ROOT}/apps/podinfo/app/helmrelease.yaml`);
  assert.ok(after.appliedById.get(`${ROOT}/apps/podinfo/app/helmrelease.yaml#0`)?.length, 'the source document maps to what is applied');
});

test("kustomize replacements set a child Kustomization's targetNamespace", async () => {
  const f = folder({
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/kustomization.yaml': `resources:
  - settings.yaml
  - team.yaml
replacements:
  - source:
      kind: ConfigMap
      name: settings
      fieldPath: data.namespace
    targets:
      - select:
          kind: Kustomization
          name: team
        fieldPaths:
          - spec.targetNamespace
        options:
          create: true
`,
    'apps/settings.yaml': configMap('settings', '\n  namespace: team-a'),
    'apps/team.yaml': ks('team', '  path: ./team\n'),
    'team/cm.yaml': configMap('team-settings'),
  });
  assert.equal(kustomization(f.model(), 'team').targetNamespace, undefined, 'the static reading does not run replacements');
  await f.refine({ allowNetwork: false });
  const team = kustomization(f.model(), 'team');
  assert.equal(team.targetNamespace, 'team-a');
  assert.deepEqual(applied(team), ['ConfigMap/team-a/team-settings']);
});

test("${CLUSTER} from the parent's post-build substitution lands in a path its patches set", async () => {
  const f = folder({
    'clusters/prod/apps.yaml': ks(
      'apps',
      `  path: ./apps
  postBuild:
    substitute:
      CLUSTER: prod
  patches:
    - patch: |-
        - op: replace
          path: /spec/path
          value: ./deploy/\${CLUSTER}
      target:
        kind: Kustomization
        name: deploy
`,
    ),
    'apps/deploy.yaml': ks('deploy', '  path: ./deploy/placeholder\n'),
    'deploy/placeholder/cm.yaml': configMap('placeholder'),
    'deploy/prod/cm.yaml': configMap('prod-only'),
  });
  assert.equal(kustomization(f.model(), 'deploy').path, 'deploy/placeholder');
  await f.refine({ allowNetwork: false });
  const deploy = kustomization(f.model(), 'deploy');
  assert.equal(deploy.path, 'deploy/prod');
  assert.deepEqual(applied(deploy), ['ConfigMap/default/prod-only']);
});

test("substitution-undefined: a variable the Kustomization's own spec.patches remove is never substituted", async () => {
  const layout = (removed: string) => ({
    'clusters/prod/apps.yaml': ks(
      'apps',
      `  path: ./apps
  postBuild:
    substitute:
      DOMAIN: example.com
  patches:
    - patch: |-
        - op: remove
          path: ${removed}
      target:
        kind: ConfigMap
        name: db
`,
    ),
    'apps/db.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n  namespace: default\ndata:\n  host: db.\${DOMAIN}\n  backups: s3://\${ACCOUNT_ID}/db\n  other: x\n',
  });
  const undefinedVars = async (removed: string) => {
    const f = folder(layout(removed));
    await f.refine({ allowNetwork: false });
    const model = f.model();
    const state = model.builds.find((b) => b.node === kustomization(model, 'apps'))?.state;
    const found = checkModel(model).diagnostics.filter((d) => d.rule === 'substitution-undefined');
    return { state, found: found.map((d) => `${d.file.slice(ROOT.length + 1)}:${d.range.start.line + 1}`) };
  };
  // Flux builds (kustomize and spec.patches) first, then substitutes what is left.
  assert.deepEqual(await undefinedVars('/data/backups'), { state: 'built', found: [] });
  // Left in place, the variable fails the strict build and is reported where it is written.
  assert.deepEqual(await undefinedVars('/data/other'), { state: 'failed', found: ['apps/db.yaml:8'] });
});

test('a failing build falls back to the static reading, with the build error as a diagnostic', async () => {
  const f = folder({
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/kustomization.yaml': `resources:
  - cm.yaml
patches:
  - patch: |-
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: nothing-like-this
      data:
        a: b
`,
    'apps/cm.yaml': configMap('settings'),
  });
  await f.refine({ allowNetwork: false });
  const model = f.model();
  const apps = kustomization(model, 'apps');
  assert.equal(model.builds.find((b) => b.node === apps)?.state, 'failed');
  assert.deepEqual(applied(apps), ['ConfigMap/default/settings'], 'the static reading stands');
  const found = checkModel(model).diagnostics.filter((d) => d.rule === 'build-failed');
  assert.equal(found.length, 1);
  assert.equal(found[0].file, `${ROOT}/clusters/prod/apps.yaml`);
  assert.match(found[0].message, /^Kustomization flux-system\/apps fails to build: kustomize build failed: [^\n]*\nThe error: kustomize build failed: .*nothing-like-this/);
});

test('an edit re-renders only the builds that read the edited file, then children whose spec changed', async () => {
  const files = {
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/one.yaml': ks('one', '  path: ./one\n'),
    'apps/two.yaml': ks('two', '  path: ./two\n'),
    'one/cm.yaml': configMap('one'),
    'two/cm.yaml': configMap('two'),
    'unrelated/notes.yaml': configMap('notes'),
  };
  const cache = new MemoryBuildCache();
  const f = folder(files, cache);
  const cold = await f.refine({ allowNetwork: false });
  assert.equal(cold?.rendered, 4, 'flux-system, apps, one, two');

  // Read only by `one`'s build.
  f.repo.setBuffer(`${ROOT}/one/cm.yaml`, configMap('one', '\n  more: data'));
  assert.equal((await f.refine({ allowNetwork: false }))?.rendered, 1);
  assert.deepEqual(kustomization(f.model(), 'one').applies[0].object.body.data, { key: 'value', more: 'data' });

  // Read by nobody's build (flux-system builds clusters/prod only).
  f.repo.setBuffer(`${ROOT}/unrelated/notes.yaml`, configMap('notes', '\n  x: y'));
  assert.equal((await f.refine({ allowNetwork: false }))?.rendered, 0);

  // Read by `apps`' build; `two`'s spec is unchanged (a label only), so it is not built again.
  f.repo.setBuffer(`${ROOT}/apps/two.yaml`, files['apps/two.yaml'].replace('  namespace: flux-system\n', '  namespace: flux-system\n  labels:\n    team: b\n'));
  assert.equal((await f.refine({ allowNetwork: false }))?.rendered, 1);
  assert.equal(kustomization(f.model(), 'two').applied.object.body.metadata.labels.team, 'b');

  // Its spec changes: apps, then two.
  f.repo.setBuffer(`${ROOT}/apps/two.yaml`, files['apps/two.yaml'].replace('./two', './one'));
  assert.equal((await f.refine({ allowNetwork: false }))?.rendered, 2);

  // A fresh folder over the same cache reuses every build whose reads still hold.
  const again = folder({ ...files, 'one/cm.yaml': configMap('one', '\n  more: data'), 'apps/two.yaml': files['apps/two.yaml'].replace('./two', './one') }, cache);
  assert.equal((await again.refine({ allowNetwork: false }))?.rendered, 0);
});

test("an edit of a child's dependsOn, interval or wait re-renders its parent only; a changed patch re-renders the child too", async () => {
  const files = {
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/one.yaml': ks('one', '  path: ./one\n  interval: 1h\n'),
    'one/cm.yaml': configMap('one'),
  };
  const f = folder(files);
  assert.equal((await f.refine({ allowNetwork: false }))?.rendered, 3, 'flux-system, apps, one');

  f.repo.setBuffer(`${ROOT}/apps/one.yaml`, ks('one', '  path: ./one\n  interval: 5m\n  wait: true\n  dependsOn:\n    - name: infra\n'));
  const deps = await f.refine({ allowNetwork: false });
  assert.deepEqual(
    deps?.renders.map((r) => [r.name, r.reason]),
    [['flux-system/apps', 'in-part']],
    "the parent's build read the file (redone in part: only that file changed); the child's build does not depend on those fields",
  );
  assert.deepEqual(kustomization(f.model(), 'one').applied.object.body.spec.dependsOn, [{ name: 'infra' }], 'the model has the edited spec');

  f.repo.setBuffer(
    `${ROOT}/apps/one.yaml`,
    ks('one', '  path: ./one\n  interval: 5m\n  patches:\n    - patch: |-\n        - op: add\n          path: /data/patched\n          value: "yes"\n      target:\n        kind: ConfigMap\n'),
  );
  const patched = await f.refine({ allowNetwork: false });
  assert.deepEqual(
    patched?.renders.map((r) => [r.name, r.reason]),
    [
      ['flux-system/apps', 'in-part'],
      ['flux-system/one', 'new-key'],
    ],
  );
  assert.deepEqual(kustomization(f.model(), 'one').applies[0].object.body.data, { key: 'value', patched: 'yes' });
  assert.ok(patched!.renders.every((r) => r.kustomizeMs > 0), 'each render accounts for its time in kustomize');
});

test('a build that failed before kustomize ran is not rendered again while that failure stands', async () => {
  const files = {
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/one.yaml': ks('one', '  path: ./one\n'),
    'apps/two.yaml': ks('two', '  path: ./two\n'),
    'one/kustomization.yaml': 'configMapGenerator:\n  - name: settings\n    files:\n      - settings.txt\n',
    'two/cm.yaml': configMap('two'),
  };
  const f = folder(files);
  await f.refine({ allowNetwork: false });
  const state = () => f.model().builds.find((b) => b.node.applied.name === 'one')?.state;
  assert.equal(state(), 'failed', 'settings.txt is not in the source');

  f.repo.setBuffer(`${ROOT}/apps/two.yaml`, files['apps/two.yaml'].replace('  namespace: flux-system\n', '  namespace: flux-system\n  labels:\n    team: b\n'));
  const edited = await f.refine({ allowNetwork: false });
  assert.deepEqual(
    edited?.renders.map((r) => [r.name, r.reason]),
    [['flux-system/apps', 'in-part']],
    "`one` still lacks settings.txt: its failure is kept without a render",
  );
  assert.equal(state(), 'failed');

  f.repo.setBuffer(`${ROOT}/one/kustomization.yaml`, 'configMapGenerator:\n  - name: settings\n    literals:\n      - a=b\n');
  const fixed = await f.refine({ allowNetwork: false });
  assert.ok(fixed?.renders.some((r) => r.name === 'flux-system/one'), 'the failure no longer stands: rendered');
  assert.equal(state(), 'built');
});

test('after each edit a build is given the files a fresh open would give it (edits, alias bombs in and out, files added and removed)', async () => {
  const bomb = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: bomb', 'data:', '  l0: &l0 "lol"'];
  for (let i = 1; i <= 9; i++) bomb.push(`  l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
  const steps: Record<string, string | undefined>[] = [
    { 'apps/cm.yaml': configMap('cm', '\n  edited: one') },
    { 'apps/other.yaml': bomb.join('\n') + '\n' },
    { 'apps/cm.yaml': configMap('cm', '\n  edited: two') },
    { 'apps/other.yaml': configMap('other', '\n  clean: again') },
    { 'apps/new.yaml': configMap('new') },
    { 'apps/new.yaml': configMap('new', '\n  edited: three') },
    { 'apps/new.yaml': undefined },
  ];
  let files: Record<string, string> = {
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    'apps/cm.yaml': configMap('cm'),
    'apps/other.yaml': configMap('other'),
  };
  const f = folder(files);
  await f.refine({ allowNetwork: false });
  const seen = (model: RepoModel) => {
    const node = kustomization(model, 'apps');
    return { applies: node.applies.map((a) => ({ id: `${a.kind}/${a.name}`, data: a.object.body.data })), problems: node.problems?.map((p) => p.message) };
  };
  for (const step of steps) {
    for (const [file, text] of Object.entries(step)) {
      f.repo.setBuffer(`${ROOT}/${file}`, text);
      if (text === undefined) {
        const { [file]: _gone, ...rest } = files;
        files = rest;
      } else files = { ...files, [file]: text };
    }
    await f.refine({ allowNetwork: false });
    const fresh = folder(files);
    await fresh.refine({ allowNetwork: false });
    assert.deepEqual(seen(f.model()), seen(fresh.model()), `after ${JSON.stringify(Object.keys(step))}`);
  }
  // The steps were seen by the builds: the last state applies the edited cm and the cleaned other.
  const last = seen(f.model()).applies;
  assert.deepEqual(last.find((a) => a.id === 'ConfigMap/cm')?.data, { key: 'value', edited: 'two' });
  assert.deepEqual(last.find((a) => a.id === 'ConfigMap/other')?.data, { key: 'value', clean: 'again' });
});
