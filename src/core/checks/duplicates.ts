import type { AppliedObject } from '../model/graph';
import type { CheckContext } from './context';

/**
 * `duplicate-object`: two applications of the same kind/namespace/name landing on one API server.
 * Within one Kustomization kustomize refuses to build ("may not add resource with an already
 * registered id"), including one document reached through two paths; across Kustomizations both
 * apply it, the last one wins, and pruning either deletes the object.
 */
export function checkDuplicates(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    const groups = new Map<string, AppliedObject[]>();
    for (const applied of cluster.objects) {
      if (!applied.appliedBy) continue;
      const id = ctx.identity(applied);
      if (!id) continue;
      const placement = ctx.placement(applied);
      const key = `${id.name}\u0000${id.namespace ?? ''}\u0000${applied.kind}\u0000${applied.apiVersion.slice(0, applied.apiVersion.lastIndexOf('/') + 1)}\u0000${placement === cluster.name ? '' : placement}`;
      const list = groups.get(key);
      if (list) list.push(applied);
      else groups.set(key, [applied]);
    }
    for (const list of groups.values()) {
      if (list.length < 2) continue;
      // kustomize's namespace transformer renames Namespace objects to its `namespace:` (the
      // "Namespace named _ in a shared component" pattern); the model does not track that rename,
      // so one Namespace document reached through several kustomizations is not a reliable duplicate.
      if (list[0].kind === 'Namespace' && list.every((a) => a.object === list[0].object)) continue;
      for (const a of list) {
        const others = list.filter((o) => o !== a);
        const id = ctx.identity(a)!;
        const what = `${a.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
        const by = a.appliedBy!;
        const byLabel = `${by.applied.namespace}/${by.applied.name}`;
        const sameKs = others.some((o) => o.appliedBy === by);
        const sameDoc = others.some((o) => o.object === a.object);
        const message = sameKs
          ? `${what} is included ${sameDoc ? 'twice (through two kustomize paths)' : 'by two documents'} in Kustomization ${byLabel}; kustomize fails the build with "may not add resource with an already registered id". Keep one.`
          : `${what} is also applied by ${[...new Set(others.map((o) => `Kustomization ${o.appliedBy!.applied.namespace}/${o.appliedBy!.applied.name}`))].join(', ')} in cluster '${cluster.name}'. Both Kustomizations apply it, the last one wins, and pruning either deletes it. Define it once.`;
        const related = others.flatMap((o) =>
          ctx.related(o.object.doc, ['metadata', 'name'], `also defined here (applied by Kustomization ${o.appliedBy!.applied.namespace}/${o.appliedBy!.applied.name})`),
        );
        ctx.report('duplicate-object', a.object.doc, ['metadata', 'name'], message, { related });
      }
    }
  }
}
