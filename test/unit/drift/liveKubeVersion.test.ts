/**
 * A HelmRelease's drift render uses the connected cluster's Kubernetes version as
 * `.Capabilities.KubeVersion` (helm-controller renders with the version of the cluster it installs
 * to); a Kustomization's render asks none, and a cluster that does not answer leaves the default
 * (the repository's pin, else the documented default).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineDriftContext, type EngineRequests } from '../../../src/workflows/drift';
import type { ClusterClient } from '../../../src/cluster/client';
import type { TargetRef } from '../../../src/engine/protocol';

function fakes(version: { ok: true; value: { gitVersion: string } } | { ok: false; error: { kind: string; message: string } }) {
  const asked: Record<string, unknown>[] = [];
  let versionCalls = 0;
  const engine: EngineRequests = {
    request: (async (method: string, params: Record<string, unknown>) => {
      assert.equal(method, 'render');
      asked.push(params);
      return { ok: true, value: { objects: [], warnings: [] } };
    }) as EngineRequests['request'],
  };
  const client = { version: async () => (versionCalls++, version) } as unknown as ClusterClient;
  return { engine, client, asked, calls: () => versionCalls };
}

const target = (kind: 'HelmRelease' | 'Kustomization'): TargetRef => ({ root: '/repo', cluster: 'prod', kind, namespace: 'apps', name: 'web' });
const subject = (kind: 'HelmRelease' | 'Kustomization') => ({ target: target(kind), body: {} }) as never;

test("a HelmRelease's drift render asks the cluster's version; a Kustomization's does not", async () => {
  const f = fakes({ ok: true, value: { gitVersion: 'v1.34.1+k3s1' } });
  await engineDriftContext(f.engine, target('HelmRelease'), { allowNetwork: true }, { subject: subject('HelmRelease'), client: f.client }).render();
  assert.equal(f.asked[0].kubeVersion, 'v1.34.1+k3s1');
  await engineDriftContext(f.engine, target('Kustomization'), { allowNetwork: true }, { subject: subject('Kustomization'), client: f.client }).render();
  assert.equal(f.asked[1].kubeVersion, undefined);
  assert.equal(f.calls(), 1);
});

test('a cluster that does not answer, or answers no version, leaves the default', async () => {
  for (const answer of [{ ok: false as const, error: { kind: 'unreachable', message: 'connection refused' } }, { ok: true as const, value: { gitVersion: 'not a version' } }]) {
    const f = fakes(answer);
    await engineDriftContext(f.engine, target('HelmRelease'), { allowNetwork: true }, { subject: subject('HelmRelease'), client: f.client }).render();
    assert.equal(f.asked[0].kubeVersion, undefined, JSON.stringify(answer));
  }
});
