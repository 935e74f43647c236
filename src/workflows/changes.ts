/**
 * One side of `changes` from an engine that has refined its builds: every Kustomization's objects
 * (from its build, or why it failed), every HelmRelease as its spec, and what `check` finds.
 * HelmReleases are compared by spec, not rendered: rendering needs the chart (a helm binary and,
 * mostly, a network fetch), which a pull-request check should not depend on.
 */
import type { KubeJson } from '../core/kubeJson';
import { toManifest } from '../core/flux/mask';
import { relativeFinding } from '../core/checks/relative';
import type { Producer, Side } from '../core/changes/report';
import type { EngineMethod, ParamsOf, ResultOf } from '../engine/protocol';

export type EngineRequest = <M extends EngineMethod>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

export async function sideOf(request: EngineRequest, root: string): Promise<Side> {
  const check = await request('check', { root });
  return { producers: await producersOf(request, root), findings: check.diagnostics.map((d) => relativeFinding(root, d)) };
}

export async function producersOf(request: EngineRequest, root: string): Promise<Producer[]> {
  const out: Producer[] = [];
  for (const target of await request('targets', { root, includeInferred: true })) {
    const id = { cluster: target.cluster, kind: target.kind as Producer['kind'], name: target.name, namespace: target.namespace };
    if (target.kind === 'Kustomization') {
      const r = await request('render', { target, allowNetwork: false });
      out.push({ ...id, result: r.ok ? { ok: true, objects: r.value.objects.map((o) => toManifest(o) as KubeJson) } : { ok: false, message: r.error.message } });
    } else if (target.kind === 'HelmRelease') {
      const subject = await request('driftSubject', { target });
      if (!subject) continue;
      const { apiVersion, kind, spec } = subject.body;
      out.push({ ...id, result: { ok: true, objects: [{ apiVersion, kind, metadata: { name: target.name, namespace: target.namespace }, spec }] } });
    }
  }
  return out;
}
