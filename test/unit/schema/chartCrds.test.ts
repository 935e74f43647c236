/**
 * Custom resources judged by the CRDs a chart of the workspace's HelmReleases installs (the real
 * prometheus-operator-crds chart from ../shared/charts, in a chart cache): a misspelt field of a
 * ServiceMonitor (and the required field it leaves out) is reported with the chart's CRD named as the schema; without the chart at hand
 * the kind has no known schema and is not judged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { checkModel } from '../../../src/core/checks/index';
import { chartCache, folderOf, gotkSync, helmReleaseYaml, helmRepositoryYaml, helmTmp, ks, refined, writeFiles } from '../engine/helmFixture';

const tmp = helmTmp();

const SERVICE_MONITOR = `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: web
  namespace: apps
spec:
  selector:
    matchLabels:
      app: web
  endpoint:
    - port: http
`;

test("a custom resource is judged by the CRD its chart installs, named as the schema", { timeout: 300_000 }, async () => {
  const root = path.join(tmp.dir, 'repo').split(path.sep).join('/');
  writeFiles(root, {
    'clusters/prod/flux-system/gotk-sync.yaml': gotkSync(),
    'clusters/prod/crds.yaml': ks('crds', '  path: ./crds\n'),
    'clusters/prod/apps.yaml': ks('apps', '  path: ./apps\n  dependsOn:\n    - name: crds\n'),
    'crds/crds.yaml': `${helmRepositoryYaml('prometheus-community')}---\n${helmReleaseYaml('prometheus-operator-crds', 'flux-system', 'prometheus-operator-crds', '', { repo: 'prometheus-community', version: '31.0.1' })}`,
    'apps/monitor.yaml': SERVICE_MONITOR,
  });
  const schemaFindings = async (cacheDir: string | null) => {
    const f = folderOf(root, cacheDir);
    await refined(f);
    return checkModel(f.model()).diagnostics.filter((d) => d.rule.startsWith('schema-'));
  };
  assert.deepEqual(await schemaFindings(null), [], 'no chart at hand: the kind has no known schema');
  const cache = chartCache(tmp.dir, 'charts', 'prometheus-operator-crds', '31.0.1', 'prometheus-operator-crds-31.0.1.tgz');
  const found = await schemaFindings(cache);
  assert.deepEqual(found.map((d) => `${d.rule} ${d.severity} ${path.basename(d.file)}:${d.range.start.line + 1}`), [
    'schema-invalid error monitor.yaml:6',
    'schema-unknown-field warning monitor.yaml:10',
  ]);
  assert.match(found[0].message, /spec: required field 'endpoints' is missing; the API server rejects the object/);
  assert.match(found[1].message, /ServiceMonitor apps\/web: spec\.endpoint is not a field of ServiceMonitor; the API server drops it, so it never takes effect\. Did you mean 'endpoints'\?/);
  assert.match(found[1].message, /schema: CRD servicemonitors\.monitoring\.coreos\.com \(chart prometheus-operator-crds 31\.0\.1\)/);
});
