/**
 * One side of `changes` from an engine that has refined its builds: every Kustomization's objects
 * (from its build, or why it failed), every HelmRelease's render from a chart at hand (the
 * workspace's or the chart cache's; with `fetch`, charts not at hand are fetched into the chart
 * cache first) or, when its chart is still not at hand, its spec; and what `check` finds.
 */
import type { KubeJson } from '../core/kubeJson';
import { toManifest } from '../core/flux/mask';
import { relativeFinding } from '../core/checks/relative';
import type { Producer, Side } from '../core/changes/report';
import type { EngineMethod, FetchCharts, ParamsOf, ResultOf } from '../engine/protocol';

export type EngineRequest = <M extends EngineMethod>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

export async function sideOf(request: EngineRequest, root: string, fetch?: FetchCharts): Promise<Side> {
  const why = fetch ? await fetchMissingCharts(request, root, fetch) : new Map<string, string>();
  const check = await request('check', { root });
  return { producers: await producersOf(request, root, why), findings: check.diagnostics.map((d) => relativeFinding(root, d)) };
}

/** Render failures that are the fetch's (a render failing past it is the model's to report). */
const FETCH_FAILURES = new Set(['not-allowed', 'unavailable', 'timeout']);

const installKey = (t: { cluster: string; namespace: string; name: string }) => JSON.stringify([t.cluster, t.namespace, t.name]);

/**
 * Fetches the chart of each HelmRelease whose chart is not at hand (a `render` with the network
 * allowed puts it in the chart cache, where the model's next render pass finds it). A fetch that
 * fails says why (the URL, the credentials tried): that is the reason the report gives.
 */
async function fetchMissingCharts(request: EngineRequest, root: string, fetch: FetchCharts): Promise<Map<string, string>> {
  const why = new Map<string, string>();
  // One fetch per chart: releases of the same chart share its "not at hand" message, and its failure.
  const fetched = new Map<string, string | undefined>();
  for (const { target, install } of await request('helmInstalls', { root })) {
    if (install.ok || install.atHand) continue;
    if (!fetched.has(install.message)) {
      const r = await request('render', { target, allowNetwork: true, ...(fetch.env ? { env: fetch.env } : {}) });
      fetched.set(install.message, !r.ok && FETCH_FAILURES.has(r.error.kind) ? chartFailure(r.error.message) : undefined);
    }
    const failure = fetched.get(install.message);
    if (failure) why.set(installKey(target), failure);
  }
  return why;
}

/** A fetch failure without the release it was met for (`HelmRelease ns/name: chart … cannot be fetched: …`): other releases of the chart share it. */
function chartFailure(message: string): string {
  return message.replace(/^HelmRelease [^:\s]+: /, '');
}

export async function producersOf(request: EngineRequest, root: string, fetchFailures: ReadonlyMap<string, string> = new Map()): Promise<Producer[]> {
  const out: Producer[] = [];
  const installs = new Map((await request('helmInstalls', { root })).map((i) => [installKey(i.target), i.install]));
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
      const install = installs.get(installKey(target));
      if (!install || (!install.ok && !install.atHand)) {
        const reason = fetchFailures.get(installKey(target)) ?? install?.message ?? 'it was not rendered';
        out.push({ ...id, result: { ok: true, objects: [] }, spec: written, unrendered: reason });
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
