/**
 * helm-values-invalid and helm-render-failed (src/core/checks/helmReleases.ts): a HelmRelease of
 * the real app-template chart (../shared/charts, from a chart cache) whose values break the chart's
 * values.schema.json is an error at each offending line, in the model's findings and in `check`;
 * a value from valuesFrom is reported at valuesFrom, a masked Secret value is not judged, and a
 * chart whose template fails is reported at its chart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkModel, type Diagnostic } from '../../../src/core/checks/index';
import { runCli } from '../../../src/cli/main';
import { chartCache, folderOf, gotkSync, helmReleaseYaml, helmRepositoryYaml, helmTmp, ks, refined, writeChartFolder, writeFiles } from '../engine/helmFixture';

const tmp = helmTmp();

const release = (values: string, extra = '') =>
  `${helmRepositoryYaml('bjw-s')}---\n${helmReleaseYaml('web', 'apps', 'app-template', `${extra}  values:\n${values}`, { repo: 'bjw-s', version: '4.1.1' })}`;

const GOOD = `    controllers:
      main:
        replicas: 2
        containers:
          app:
            image:
              repository: nginx
              tag: "1.27"
            probes:
              liveness:
                enabled: true
`;

/** The same values with two mistakes: replicas a string (line 28 of the file), liveness.enabled a string (line 36). */
const BAD = GOOD.replace('replicas: 2', 'replicas: two').replace('enabled: true', 'enabled: "yes"');

function repo(name: string, files: Record<string, string>): string {
  const root = path.join(tmp.dir, name);
  writeFiles(root, {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n'),
    ...files,
  });
  return root.split(path.sep).join('/');
}

async function findings(root: string, cacheDir: string | null, rule?: string): Promise<Diagnostic[]> {
  const f = folderOf(root, cacheDir);
  await refined(f);
  return checkModel(f.model()).diagnostics.filter((d) => (rule ? d.rule === rule : d.rule.startsWith('helm-')));
}

const at = (d: Diagnostic) => `${d.rule} ${d.severity} ${path.basename(d.file)}:${d.range.start.line + 1}`;

test("values the chart's schema refuses are errors at their own lines, in the model and in check", { timeout: 300_000 }, async () => {
  const cache = chartCache(tmp.dir, 'cli/charts', 'app-template', '4.1.1', 'app-template-4.1.1.tgz');
  const bad = repo('bad', { 'apps/web.yaml': release(BAD) });
  const found = await findings(bad, cache);
  assert.deepEqual(found.map(at).sort(), ['helm-values-invalid error web.yaml:28', 'helm-values-invalid error web.yaml:36']);
  const messages = found.map((d) => d.message.split('\n')[0]).sort();
  assert.deepEqual(messages, [
    'HelmRelease apps/web: values.controllers.main.containers.app.probes.liveness.enabled: got string, want boolean',
    'HelmRelease apps/web: values.controllers.main.replicas: got string, want null or integer',
  ]);
  assert.match(found[0].message, /app-template chart's values\.schema\.json refuses this value, so helm-controller fails the release/);

  // The right values: no finding, and the release renders.
  const good = repo('good', { 'apps/web.yaml': release(GOOD) });
  assert.deepEqual(await findings(good, cache), []);

  // `check` reads the same chart cache (GITOPS_PREVIEW_CACHE) and says the same, exiting 1.
  let stdout = '';
  const code = await runCli(['check', bad, '--format', 'json'], {
    stdout: (t) => (stdout += t),
    stderr: () => {},
    cwd: bad,
    env: { GITOPS_PREVIEW_CACHE: path.join(tmp.dir, 'cli') },
  });
  assert.equal(code, 1, stdout);
  const cli = (JSON.parse(stdout) as { diagnostics: { rule: string; line?: number; range?: { start: { line: number } } }[] }).diagnostics.filter((d) => d.rule === 'helm-values-invalid');
  assert.equal(cli.length, 2, stdout);
});

test('a refused value from valuesFrom is reported at valuesFrom; a masked Secret value is not judged', { timeout: 300_000 }, async () => {
  const cache = chartCache(tmp.dir, 'cache-from', 'app-template', '4.1.1', 'app-template-4.1.1.tgz');
  const fromConfigMap = repo('from', {
    'apps/web.yaml': release(GOOD, '  valuesFrom:\n    - kind: ConfigMap\n      name: web-values\n'),
    'apps/values.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-values
  namespace: apps
data:
  values.yaml: |
    defaultPodOptions:
      hostNetwork: sometimes
`,
    'apps/kustomization.yaml': 'resources: [web.yaml, values.yaml]\n',
  });
  const found = await findings(fromConfigMap, cache);
  assert.deepEqual(found.map(at), ['helm-values-invalid error web.yaml:25']);
  assert.match(found[0].message, /^HelmRelease apps\/web: values\.defaultPodOptions\.hostNetwork \(from valuesFrom\): got string, want boolean/);

  // replicas set from a Secret: its value is masked (`***`), which says nothing of the real one;
  // a mistake in spec.values is still one, a warning since the render did not see every value.
  const fromSecret = repo('secret', {
    'apps/web.yaml': release(`${GOOD}    defaultPodOptions:\n      hostNetwork: sometimes\n`, '  valuesFrom:\n    - kind: Secret\n      name: web-values\n      valuesKey: replicas\n      targetPath: controllers.main.replicas\n'),
    'apps/values.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-values\n  namespace: apps\nstringData:\n  replicas: "3"\n',
    'apps/kustomization.yaml': 'resources: [web.yaml, values.yaml]\n',
  });
  const masked = await findings(fromSecret, cache);
  assert.deepEqual(masked.map(at), ['helm-values-invalid warning web.yaml:43']);
  assert.match(masked[0].message, /^HelmRelease apps\/web: values\.defaultPodOptions\.hostNetwork: got string, want boolean\n.*\nThe render did not see all values.*Secret\/apps\/web-values/s);
});

test("a chart whose template fails is a helm-render-failed error at its chart", { timeout: 300_000 }, async () => {
  const root = repo('fails', {
    'apps/web.yaml': helmReleaseYaml('web', 'apps', './charts/web', '  values:\n    image: {}\n'),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/values.yaml': 'image:\n  tag: ""\n',
    'charts/web/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  tag: {{ required "image.tag is required" .Values.image.tag | quote }}\n',
  });
  const found = await findings(root, null);
  assert.deepEqual(found.map(at), ['helm-render-failed error web.yaml:8']);
  assert.match(found[0].message, /^HelmRelease apps\/web fails to render: .*image\.tag is required/);
});

test("an object a chart renders that a Kustomization applies too is a duplicate-object at the HelmRelease, unless the release owns it", { timeout: 300_000 }, async () => {
  const files = (annotations: string) => ({
    'apps/kustomization.yaml': 'resources: [web.yaml, config.yaml]\n',
    'apps/web.yaml': helmReleaseYaml('web', 'apps', './charts/web'),
    'apps/config.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: web-settings
  namespace: apps
${annotations}data:
  a: b
`,
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-settings\ndata:\n  tag: "1"\n',
  });
  const found = await findings(repo('conflict', files('')), null, 'duplicate-object');
  assert.deepEqual(found.map(at), ['duplicate-object error web.yaml:8']);
  assert.match(found[0].message, /^ConfigMap apps\/web-settings, which HelmRelease apps\/web's chart renders, is also applied by Kustomization flux-system\/apps in cluster 'prod': define it once\.\nhelm-controller takes ownership/);
  assert.deepEqual(found[0].related.map((r) => `${path.basename(r.file)}:${r.range.start.line + 1} ${r.message}`), ['config.yaml:4 also applied here (by Kustomization flux-system/apps)']);

  // The Kustomization's copy carries the release's ownership: helm adopts it.
  const owned = await findings(repo('owned', files('  annotations:\n    meta.helm.sh/release-name: web\n    meta.helm.sh/release-namespace: apps\n')), null, 'duplicate-object');
  assert.deepEqual(owned, []);
});

test('a top-level value the chart never reads is a helm-values-unread warning with the closest key it has', { timeout: 300_000 }, async () => {
  const root = repo('unread', {
    'apps/web.yaml': helmReleaseYaml('podinfo', 'apps', './charts/podinfo', '  values:\n    replicaCount: 2\n    replicaCout: 3\n    ui:\n      message: hello\n'),
  });
  writeChartFolder(root, 'podinfo-6.14.1.tgz');
  const found = await findings(root, null);
  assert.deepEqual(found.map(at), ['helm-values-unread warning web.yaml:17']);
  assert.match(found[0].message, /^HelmRelease apps\/podinfo: values\.replicaCout is not a value of chart podinfo 6\.14\.1, and no template of it reads it: did you mean 'replicaCount'\?/);
});
