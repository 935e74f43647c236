/**
 * One side of `changes` from an engine that has refined its builds: every Kustomization's objects
 * (from its build, or why it failed), every HelmRelease's render from a chart at hand (the
 * workspace's or the chart cache's; none is fetched, so a pull-request check does not depend on a
 * registry) or, when its chart is not at hand, its spec; and what `check` finds.
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
  const installs = new Map((await request('helmInstalls', { root })).map((i) => [JSON.stringify([i.target.cluster, i.target.namespace, i.target.name]), i.install]));
  for (const target of await request('targets', { root, includeInferred: true })) {
    const id = { cluster: target.cluster, kind: target.kind as Producer['kind'], name: target.name, namespace: target.namespace };
    if (target.kind === 'Kustomization') {
      const r = await request('render', { target, allowNetwork: false });
      out.push({ ...id, result: r.ok ? { ok: true, objects: r.value.objects.map((o) => toManifest(o) as KubeJson) } : { ok: false, message: r.error.message } });
    } else if (target.kind === 'HelmRelease') {
      const subject = await request('driftSubject', { target });
      if (!subject) continue;
      const { apiVersion, kind, spec } = subject.body;
      const written: KubeJson = { apiVersion, kind, metadata: { name: target.name, namespace: target.namespace }, spec };
      const install = installs.get(JSON.stringify([target.cluster, target.namespace, target.name]));
      if (!install || (!install.ok && !install.atHand)) {
        out.push({ ...id, result: { ok: true, objects: [] }, spec: written, unrendered: install?.message ?? 'it was not rendered' });
      } else if (!install.ok) {
        out.push({ ...id, result: { ok: false, message: install.message }, spec: written });
      } else {
        const objects = install.objects as KubeJson[];
        out.push({ ...id, result: { ok: true, objects, crds: { objects: install.crds as KubeJson[], policy: install.crdPolicy } }, spec: written });
      }
    }
  }
  return out;
}
