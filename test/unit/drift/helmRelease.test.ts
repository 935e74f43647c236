import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compareManifests, manifestObjects, parseReleaseJson, pickDeployed, prepareHelmObject, type HelmReleaseRecord } from '../../../src/core/drift';
import { decodeRelease, encodeRelease, isReleaseSecret } from '../../../src/cluster/helmStorage';

const manifest = `---
# Source: app/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
data:
  replicas: "1"
---
# Source: app/templates/ns.yaml
apiVersion: v1
kind: Namespace
metadata:
  name: extra
`;

describe('helm release records', () => {
  test('parse, and pick the newest deployed revision', () => {
    const rec = (version: number, status: string): HelmReleaseRecord => ({ name: 'app', namespace: 'apps', version, status, manifest: '' });
    const parsed = parseReleaseJson(JSON.stringify({ name: 'app', namespace: 'apps', version: 3, info: { status: 'deployed' }, manifest, chart: { metadata: { name: 'app', version: '1.2.3' } } }), 'x');
    assert.ok(parsed.ok);
    assert.equal(parsed.value.chartVersion, '1.2.3');
    assert.equal(parsed.value.status, 'deployed');
    assert.match((parseReleaseJson('{', 'Secret a/b') as { error: string }).error, /^Secret a\/b: release is not JSON/);
    const { deployed, latest } = pickDeployed([rec(1, 'superseded'), rec(2, 'deployed'), rec(3, 'failed')]);
    assert.equal(deployed?.version, 2);
    assert.equal(latest?.version, 3);
  });

  test('manifest objects get helm metadata and the release namespace when namespaced', () => {
    const objs = manifestObjects(manifest).map((o) => prepareHelmObject(o, { name: 'app', namespace: 'apps' }, (_v, k) => k !== 'Namespace'));
    assert.equal(objs.length, 2);
    assert.equal(objs[0].metadata.namespace, 'apps');
    assert.equal(objs[0].metadata.labels['app.kubernetes.io/managed-by'], 'Helm');
    assert.equal(objs[0].metadata.annotations['meta.helm.sh/release-name'], 'app');
    assert.equal(objs[1].metadata.namespace, undefined);
    assert.throws(() => manifestObjects('a: [\n'), /manifest document 1/);
  });

  test('storage encoding: base64(base64(gzip(json))) round-trips; plain (ungzipped) accepted', () => {
    const json = JSON.stringify({ name: 'app', manifest });
    const enc = encodeRelease(json);
    const dec = decodeRelease(enc);
    assert.ok(dec.ok);
    assert.equal(dec.value, json);
    const plain = Buffer.from(Buffer.from(json).toString('base64')).toString('base64');
    const dec2 = decodeRelease(plain);
    assert.ok(dec2.ok && dec2.value === json);
    assert.ok(isReleaseSecret({ metadata: { name: 'sh.helm.release.v1.app.v3' } }, 'app'));
    assert.ok(!isReleaseSecret({ metadata: { name: 'sh.helm.release.v1.app2.v3' } }, 'app'));
  });
});

describe('desired vs deployed', () => {
  test('values change shows as drifted, new and removed objects as created / deleted', () => {
    const deployed = manifestObjects(manifest);
    const desired = manifestObjects(manifest.replace('"1"', '"3"').replace('name: extra', 'name: other'));
    const r = compareManifests(deployed, desired, { kind: 'HelmRelease', name: 'app', namespace: 'flux-system' });
    const v = Object.fromEntries(r.entries.map((e) => [e.subject, e.verdict]));
    assert.deepEqual(v, { 'ConfigMap/app': 'drifted', 'Namespace/other': 'created', 'Namespace/extra': 'deleted' });
    assert.deepEqual(r.entries[0].changes, [{ path: ['data', 'replicas'], op: 'replace', live: '1', desired: '3' }]);
  });
});
