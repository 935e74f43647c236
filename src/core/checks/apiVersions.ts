import { fluxGroupOf, groupOf, versionOf, type FluxKind } from '../model/kinds';
import type { CheckContext } from './context';

/**
 * API versions served by the Flux 2.8 controllers (kustomize-controller v1.9, helm-controller v1.6,
 * source-controller v1.9), from their CRDs' `served: true` versions. Embedded because the extension
 * cannot read CRDs at runtime; a unit test compares it with `../shared/flux-crds`.
 */
export const SERVED_VERSIONS: Partial<Record<FluxKind, readonly string[]>> = {
  Kustomization: ['v1'],
  HelmRelease: ['v2'],
  GitRepository: ['v1'],
  OCIRepository: ['v1'],
  HelmRepository: ['v1'],
  HelmChart: ['v1'],
  Bucket: ['v1'],
  ExternalArtifact: ['v1'],
};

/** `api-version-unserved`: the API server rejects these documents ("no matches for kind … in version …"). */
export function checkApiVersions(ctx: CheckContext): void {
  for (const o of ctx.model.allObjects) {
    if (!o.fluxKind || o.synthetic) continue;
    const served = SERVED_VERSIONS[o.fluxKind];
    if (!served) continue;
    const version = versionOf(o.apiVersion);
    if (served.includes(version)) continue;
    const to = `${groupOf(o.apiVersion) || fluxGroupOf(o.fluxKind)}/${served[0]}`;
    const patch = ctx.model.patchFiles.has(o.doc.file.path);
    ctx.report(
      'api-version-unserved',
      o.doc,
      ['apiVersion'],
      patch
        ? `This kustomize patch targets ${o.kind} ${o.apiVersion}, a version Flux 2.8+ no longer serves; once the ${o.kind} moves to ${to}, a patch still on ${o.apiVersion} no longer matches it. Use ${to}.`
        : `${o.kind} ${o.apiVersion} is no longer served by Flux 2.8+: applying it fails with "no matches for kind \\"${o.kind}\\" in version \\"${o.apiVersion}\\"", and Flux stops reconciling it. Use ${to} (fields removed in ${served[0]} must be migrated too).`,
      { fix: { kind: 'migrate-api-version', file: o.doc.file.path, docIndex: o.doc.index, kind_: o.kind, from: o.apiVersion, to } },
    );
  }
}
