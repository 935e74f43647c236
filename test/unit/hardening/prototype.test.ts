/**
 * A repository must not reach the JavaScript prototypes every object of the process shares: a
 * values path through `__proto__` once planted `Object.prototype.HELM_PLUGINS` (helm then ran a
 * script of the repository) and `Object.prototype.cacheDir` (a chart unpacked outside it), and a
 * child's environment inherited names from there. Each test here fails on the code before the fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { mergeMaps, parsePath, replacePathValue } from '../../../src/core/flux/helmValues';
import { postBuildVars } from '../../../src/core/model/nodes';
import { renderHelmRelease } from '../../../src/render/index';
import { loginFiles } from '../../../src/render/charts/credentials';
import { defaultChartCache } from '../../../src/render/charts/cache';
import { sealSharedPrototypes } from '../../../src/node/sealPrototypes';
import { BASE } from './adversarial';

const inherited = (name: string): unknown => (Object.prototype as Record<string, unknown>)[name];

function hrRepo(targetPath: string): Repo {
  const root = '/repo';
  const files = {
    ...BASE,
    'apps/hr.yaml': `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: default
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/podinfo
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
  valuesFrom:
    - kind: ConfigMap
      name: plugins
      valuesKey: dir
      targetPath: ${JSON.stringify(targetPath)}
`,
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plugins\n  namespace: default\ndata:\n  dir: plugins\n',
  };
  return new Repo(root, memoryHost(root, files));
}

async function buildError(targetPath: string): Promise<string> {
  const model = hrRepo(targetPath).model();
  const hr = model.clusters[0]?.helmReleases.find((h) => h.applied.name === 'podinfo');
  assert.ok(hr, 'the HelmRelease is in the cluster');
  const r = await renderHelmRelease(model, hr, { allowNetwork: false, cacheDir: '/nonexistent' });
  assert.ok(!r.ok, 'the build was refused');
  return r.error.message;
}

test('a targetPath through __proto__, constructor or prototype is refused at its line and plants nothing', async () => {
  for (const targetPath of ['__proto__.HELM_PLUGINS', 'constructor.prototype.HELM_PLUGINS', 'a.__proto__.cacheDir']) {
    const message = await buildError(targetPath);
    assert.match(message, /apps\/hr\.yaml:19: spec\.valuesFrom\[0\]\.targetPath: the key '(__proto__|constructor)' is not allowed in a values path/, message);
    assert.equal(inherited('HELM_PLUGINS'), undefined);
    assert.equal(inherited('cacheDir'), undefined);
  }
  assert.throws(() => replacePathValue({}, '__proto__.polluted', 'yes'), /'__proto__' is not allowed/);
  assert.equal(inherited('polluted'), undefined);
});

test('a list index past helm\'s maximum (65,536) is refused, not allocated', async () => {
  const message = await buildError('a[200000000]');
  assert.match(message, /targetPath: list index 200000000 is greater than the maximum supported index 65536/);
  assert.throws(() => parsePath('a[99999999999999999999]'), /bad list index/);
  const v: Record<string, unknown> = {};
  replacePathValue(v, 'a[2]', 'x');
  assert.deepEqual(v, { a: [null, null, 'x'] });
});

test('a `__proto__` key of YAML values stays data: merged as its own key, never as the prototype', () => {
  const fromRepo = parseYaml('__proto__:\n  polluted: 1\nplain: 2\n') as Record<string, unknown>;
  const merged = mergeMaps({ plain: 1 }, fromRepo);
  assert.equal(Object.getPrototypeOf(merged), Object.prototype);
  assert.equal((merged as Record<string, unknown>).polluted, undefined, 'the key became the prototype');
  assert.deepEqual(Object.keys(merged), ['plain', '__proto__']);
  assert.equal(JSON.stringify(merged), '{"plain":2,"__proto__":{"polluted":1}}');
});

test('post-build variables named like prototype members are data, and inherited members are not variables', () => {
  const repo = new Repo('/repo', memoryHost('/repo', BASE));
  const ks = repo.model().allObjects.find((o) => o.kind === 'Kustomization' && o.name === 'apps')!;
  const body = { ...ks.body, spec: { ...(ks.body.spec as object), postBuild: { substitute: { __proto__: 'p', constructor: 'c' } } } };
  // The object as YAML gives it: own keys named __proto__ and constructor.
  body.spec.postBuild.substitute = JSON.parse('{"__proto__":"p","constructor":"c"}');
  const vars = postBuildVars({ ...ks, body }, 'flux-system', () => undefined)!;
  assert.deepEqual(Object.entries(vars), [['__proto__', 'p'], ['constructor', 'c']]);
  assert.equal(postBuildVars({ ...ks, body: { ...ks.body, spec: { postBuild: {} } } }, 'flux-system', () => undefined)!.toString, undefined);
});

test('where chart fetches look for registry logins and write the chart cache comes from the caller\'s own variables, whatever Object.prototype holds', () => {
  for (const name of ['DOCKER_CONFIG', 'HELM_REGISTRY_CONFIG', 'GITOPS_PREVIEW_CACHE']) {
    Object.defineProperty(Object.prototype, name, { value: '/attacker', enumerable: true, configurable: true, writable: true });
  }
  try {
    const env = { HOME: '/home/u' };
    assert.deepEqual(loginFiles(env), ['/home/u/.config/helm/registry/config.json', '/home/u/.docker/config.json']);
    assert.equal(defaultChartCache(env), '/home/u/.cache/gitops-preview/charts');
  } finally {
    for (const name of ['DOCKER_CONFIG', 'HELM_REGISTRY_CONFIG', 'GITOPS_PREVIEW_CACHE']) delete (Object.prototype as Record<string, unknown>)[name];
  }
});

test('the threads that read repositories cannot add members to the shared prototypes', async () => {
  const script = `
    const { parentPort } = require('node:worker_threads');
    (${sealSharedPrototypes.toString()})();
    let threw = false;
    try { Object.defineProperty(Object.prototype, 'x', { value: 1 }); } catch { threw = true; }
    const obj = {}; obj.toString = () => 'own'; // existing members stay assignable on own objects
    parentPort.postMessage({ threw, x: ({}).x, own: String(obj) });`;
  // A thread of its own: sealing this test process would outlive the test.
  const worker = new Worker(script, { eval: true });
  const answer = await new Promise<{ threw: boolean; x: unknown; own: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  assert.deepEqual(answer, { threw: true, x: undefined, own: 'own' });
});
