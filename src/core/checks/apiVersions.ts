import { findingMessage } from './message';
import { fluxGroupOf, groupOf, SERVED_VERSIONS, versionOf } from '../kinds';
import type { CheckContext } from './context';
import { fluxVersionOf, type FluxVersion } from '../model/fluxVersion';
import type { KubeObject } from '../model/objects';
import { reachOf } from './reach';
import { bootstrapFluxVersion } from '../bootstrap/index';

/** The Flux minor release that stopped serving a version (`group/version`); absent ones are long gone. */
export const REMOVED_IN: Readonly<Record<string, string>> = {
  'source.toolkit.fluxcd.io/v1beta1': '2.7',
  'kustomize.toolkit.fluxcd.io/v1beta1': '2.7',
  'helm.toolkit.fluxcd.io/v2beta1': '2.7',
  'source.toolkit.fluxcd.io/v1beta2': '2.8',
  'kustomize.toolkit.fluxcd.io/v1beta2': '2.8',
  'helm.toolkit.fluxcd.io/v2beta2': '2.8',
};

const NOT_APPLIED = ' No cluster of this repository applies this file, so nothing fails until a Kustomization includes it.';

/**
 * `api-version-unserved`: the API server rejects these documents ("no matches for kind … in
 * version …"). When every cluster applying the document pins a Flux release that still serves the
 * version (FluxInstance, flux-manifests tag, gotk-components header, the bootstrap helmfile's
 * flux-instance values), it is a warning naming the
 * release where it stops being served. A document no cluster applies is a warning.
 */
export function checkApiVersions(ctx: CheckContext): void {
  for (const o of ctx.model.allObjects) {
    if (!o.fluxKind || o.synthetic) continue;
    const served = SERVED_VERSIONS[o.fluxKind];
    if (!served) continue;
    const version = versionOf(o.apiVersion);
    if (served.includes(version)) continue;
    const to = `${groupOf(o.apiVersion) || fluxGroupOf(o.fluxKind)}/${served[0]}`;
    const patch = ctx.model.patchFiles.has(o.doc.file.path);
    // A document no cluster applies (an archive, another repository's part of a multi-repository
    // layout) is not sent to the API server until something includes it: a warning, unless the
    // configuration's `ignore` covers the file.
    const unapplied = !patch && ctx.model.clusters.length > 0 && !ctx.model.appliedById.get(o.id)?.length;
    const note = unapplied ? NOT_APPLIED : '';
    // A patch only kustomizations of such archives use is never applied: no finding.
    if (patch && ctx.model.clusters.length > 0 && patchOfUnappliedOnly(ctx, o.doc.file.path)) continue;
    const fix = { kind: 'migrate-api-version' as const, file: o.doc.file.path, docIndex: o.doc.index, kind_: o.kind, from: o.apiVersion, to };
    const removedIn = REMOVED_IN[o.apiVersion];
    const running = removedIn ? stillServedBy(ctx, o, removedIn) : undefined;
    if (running) {
      ctx.report(
        'api-version-unserved',
        o.doc,
        ['apiVersion'],
        findingMessage(
          `${o.kind} ${o.apiVersion} is no longer served from Flux ${removedIn}: move to ${to} before upgrading Flux.`,
          `The Flux ${running.text} this repository runs (${running.source}) still serves it; upgrading Flux fails this document with "no matches for kind \\"${o.kind}\\" in version \\"${o.apiVersion}\\"".${note}`,
        ),
        { fix, severity: 'warning' },
      );
      continue;
    }
    ctx.report(
      'api-version-unserved',
      o.doc,
      ['apiVersion'],
      patch
        ? findingMessage(`This kustomize patch targets ${o.kind} ${o.apiVersion}, which Flux 2.8+ no longer serves: use ${to}.`, `Once the ${o.kind} moves to ${to}, a patch still on ${o.apiVersion} no longer matches it.`)
        : findingMessage(
            `${o.kind} ${o.apiVersion} is no longer served by Flux 2.8+: use ${to}.`,
            `Applying it fails with "no matches for kind \\"${o.kind}\\" in version \\"${o.apiVersion}\\"", and Flux stops reconciling it. Fields removed in ${served[0]} must be migrated too.${note}`,
          ),
      { fix, ...(unapplied ? { severity: 'warning' as const } : {}) },
    );
  }
}

function patchOfUnappliedOnly(ctx: CheckContext, path: string): boolean {
  const { patchedBy, clustersRead } = reachOf(ctx.model);
  return (patchedBy.get(path) ?? []).every((kustomization) => !clustersRead.has(kustomization));
}

/**
 * The Flux release of the clusters applying `o` when every one of them pins a release older than
 * `removedIn` (so the version is still served there); undefined otherwise. A document no cluster
 * applies takes the repository's release when all clusters agree.
 */
function stillServedBy(ctx: CheckContext, o: KubeObject, removedIn: string): FluxVersion | undefined {
  const [rMajor, rMinor] = removedIn.split('.').map(Number);
  const clusters = [...new Set((ctx.model.appliedById.get(o.id) ?? []).map((a) => a.cluster))];
  const from = clusters.length ? clusters : ctx.model.clusters;
  if (!from.length) return undefined;
  let newest: FluxVersion | undefined;
  for (const cluster of from) {
    const v = fluxVersionOf(cluster) ?? bootstrapFluxVersion(ctx.model, cluster);
    if (!v || v.major > rMajor || (v.major === rMajor && v.minor >= rMinor)) return undefined;
    if (!newest || v.minor > newest.minor) newest = v;
  }
  return newest;
}
