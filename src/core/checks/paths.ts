import { buildFailedMessage, findingMessage } from './message';
import type { CheckContext } from './context';

/**
 * `apply-cycle` and `analysis-limit` found while building the model, then `path-not-found`: a Kustomization's `spec.path` that is not a folder of its source, and the
 * kustomization.yaml `resources`/`components` entries the model could not follow (each located at
 * the offending entry).
 */
export function checkPaths(ctx: CheckContext): void {
  for (const p of ctx.model.problems) {
    ctx.report(p.code, p.doc, p.path, p.message, { related: p.related.flatMap((r) => ctx.related(r.doc, r.path, r.message)) });
  }
  for (const cluster of ctx.model.clusters) {
    for (const ks of cluster.kustomizations) {
      const doc = ks.applied.object.doc;
      if (ks.source.kind === 'view' && ks.source.view.realDir(ks.path) === undefined && !ks.source.view.listDir(ks.path)) {
        const written = ks.applied.object.body.spec?.path;
        ctx.report(
          'path-not-found',
          doc,
          ['spec', 'path'],
          findingMessage(
            `spec.path '${typeof written === 'string' ? written : ks.path}' does not exist in ${ks.source.description}: fix the path (relative to the source root).`,
            'Flux fails with "kustomization path not found".',
          ),
        );
      }
      for (const p of ks.problems) {
        const message = p.code === 'build-failed' ? buildFailedMessage(p.message) : p.message;
        ctx.report(p.code === 'analysis-limit' || p.code === 'apply-cycle' || p.code === 'build-failed' ? p.code : 'path-not-found', p.doc, p.path, message, {
          related: [
            ...(p.related ?? []).flatMap((r) => ctx.related(r.doc, r.path, r.message)),
            ...(p.doc === doc ? [] : ctx.related(doc, ['spec', 'path'], `built by Kustomization ${ks.applied.namespace}/${ks.applied.name}`)),
          ],
        });
      }
    }
  }
}
