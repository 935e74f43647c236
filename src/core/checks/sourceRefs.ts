import { findingMessage } from './message';
import { findSource } from '../model/sources';
import { objectKey } from '../model/types';
import type { CheckContext } from './context';

/**
 * `source-not-found`: a Kustomization's `sourceRef`, a HelmRelease's `chart.spec.sourceRef` or
 * `chartRef` names nothing in the workspace. Only a warning: bootstrap and other tools create
 * sources outside Git, and Flux finds them in the cluster.
 */
export function checkSources(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    for (const ks of cluster.kustomizations) {
      const ref = ks.sourceRef;
      if (!ref || ks.source.kind !== 'missing') continue;
      // A source the cluster's builds apply under its final name (`${APP}-repo` substituted, say).
      if (cluster.byKey.has(objectKey(ref.kind, ref.namespace, ref.name))) continue;
      const doc = ks.applied.object.doc;
      ctx.report(
        'source-not-found',
        doc,
        [...ref.path, 'name'],
        findingMessage(
          `sourceRef ${ref.kind} '${ref.namespace}/${ref.name}' is not in the workspace: define it, unless it is created outside Git.`,
          `Without it Flux reports "Source '${ref.kind}/${ref.namespace}/${ref.name}' not found" and this Kustomization never applies.`,
        ),
      );
    }
    for (const hr of cluster.helmReleases) {
      const ref = hr.chartSourceRef;
      if (!ref) continue;
      if (ref.kind === 'GitRepository' && ref.name === 'flux-system' && ref.namespace === 'flux-system') continue;
      const near = hr.applied.object.doc.file.path;
      if (findSource(ctx.model.sourceIndex, ref.kind, ref.name, ref.namespace, near)) continue;
      if (cluster.byKey.has(objectKey(ref.kind, ref.namespace, ref.name))) continue;
      // An ExternalArtifact may be produced by an ArtifactGenerator in the workspace.
      if (ref.kind === 'ExternalArtifact' && ctx.model.allObjects.some((o) => o.fluxKind === 'ArtifactGenerator')) continue;
      const field = hr.chartRef ? 'chartRef' : 'chart.spec.sourceRef';
      ctx.report(
        'source-not-found',
        hr.applied.object.doc,
        [...ref.path, 'name'],
        findingMessage(
          `${field} ${ref.kind} '${ref.namespace}/${ref.name}' is not in the workspace: define it, unless it is created outside Git.`,
          'Without it helm-controller reports the chart source as not found and never installs this release.',
        ),
      );
    }
  }
}
