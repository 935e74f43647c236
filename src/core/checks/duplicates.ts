import { findingMessage } from './message';
import type { AppliedObject, KustomizationNode } from '../model/graph';
import type { KubeObject } from '../model/objects';
import type { CheckContext } from './context';
import { yieldsToOthers } from '../flux/ssaPolicy';

/**
 * `duplicate-object`: two applications of the same kind/namespace/name landing on one API server.
 * Within one Kustomization kustomize refuses to build ("may not add resource with an already
 * registered id"), including one document reached through two paths; across Kustomizations both
 * apply it, the last one wins, and pruning either deletes the object.
 */
export function checkDuplicates(ctx: CheckContext): void {
  for (const cluster of ctx.model.clusters) {
    const groups = new Map<string, AppliedObject[]>();
    const add = (key: string, applied: AppliedObject) => {
      const list = groups.get(key);
      if (list) list.push(applied);
      else groups.set(key, [applied]);
    };
    for (const ks of cluster.kustomizations) {
      const keys = identityKeys(ctx, ks, cluster.name);
      ks.applies.forEach((applied, i) => {
        if (keys[i] !== undefined) add(keys[i]!, applied);
      });
    }
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      // kustomize refuses a duplicate within one build whatever its annotations; across
      // Kustomizations, one that only creates a missing object or never applies it fights no one.
      const list = new Set(group.map((a) => a.appliedBy)).size > 1 ? group.filter((a) => !yieldsToOthers(a.object.body)) : group;
      if (list.length < 2) continue;
      const byObject = new Map<KubeObject, AppliedObject[]>();
      for (const a of list) {
        const l = byObject.get(a.object);
        if (l) l.push(a);
        else byObject.set(a.object, [a]);
      }
      const ksLabel = (o: AppliedObject) => `${o.appliedBy!.applied.namespace}/${o.appliedBy!.applied.name}`;
      const byKs = [...new Set(list.map(ksLabel))];
      const appliers = [...new Set(list.map((o) => o.appliedBy!))].slice(0, MAX_LISTED);
      for (const [object, mine] of byObject) {
        const others: AppliedObject[] = [];
        for (let i = 0; i < list.length && others.length < MAX_LISTED; i++) if (list[i].object !== object) others.push(list[i]);
        const a = mine[0];
        const id = ctx.identity(a)!;
        const what = `${a.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
        let message: string;
        if (byKs.length === 1) {
          message = findingMessage(
            `${what} is included ${others.length === 0 ? 'twice' : 'by several documents'} in Kustomization ${byKs[0]}: keep one.`,
            `${others.length === 0 ? 'It is reached through two kustomize paths; k' : 'K'}ustomize fails the build with "may not add resource with an already registered id".`,
          );
        } else {
          const named = byKs.length > MAX_LISTED ? `${byKs.slice(0, MAX_LISTED).join(', ')} and ${(byKs.length - MAX_LISTED).toLocaleString('en-US')} more` : byKs.join(', ');
          message = findingMessage(
            `${what} is applied by ${byKs.length.toLocaleString('en-US')} Kustomizations in cluster '${cluster.name}': define it once.`,
            `Applied by ${named}: each applies it, the last one wins, and pruning any of them deletes it.`,
          );
        }
        const related = [
          ...others.flatMap((o) => ctx.related(o.object.doc, ['metadata', 'name'], `also defined here (applied by Kustomization ${ksLabel(o)})`)),
          ...(byKs.length > 1 ? appliers.flatMap((k) => ctx.related(k.applied.object.doc, ['metadata', 'name'], `Kustomization ${k.applied.namespace}/${k.applied.name} applies it`)) : []),
        ];
        ctx.report('duplicate-object', object.doc, ['metadata', 'name'], message, { related });
      }
    }
  }
}

/** Names and related locations one message lists; a bigger group is counted, not spelled out. */
const MAX_LISTED = 8;

/**
 * Identity keys of what a Kustomization applies, reused across model rebuilds while it applies the
 * same documents under the same names: building ~10k key strings per keystroke is most of this rule.
 */
const previous = new WeakMap<KubeObject, { placement: string; vars: unknown; objects: KubeObject[]; names: string[]; namespaces: (string | undefined)[]; keys: (string | undefined)[] }>();

function identityKeys(ctx: CheckContext, ks: KustomizationNode, clusterName: string): (string | undefined)[] {
  const placement = ctx.targetOf(ks);
  // Names may hold variables this Kustomization substitutes: its variables are part of the key.
  const vars = ctx.vars(ks);
  const cached = previous.get(ks.applied.object);
  const applies = ks.applies;
  if (cached && cached.placement === placement && cached.vars === vars && cached.objects.length === applies.length) {
    let same = true;
    for (let i = 0; i < applies.length && same; i++) {
      const a = applies[i];
      same = cached.objects[i] === a.object && cached.names[i] === a.name && cached.namespaces[i] === a.namespace;
    }
    if (same) return cached.keys;
  }
  const where = placement === clusterName ? '' : placement;
  const keys = applies.map((applied) => {
    const id = ctx.identity(applied);
    if (!id) return undefined;
    const group = applied.apiVersion.slice(0, applied.apiVersion.lastIndexOf('/') + 1);
    return `${id.name}\u0000${id.namespace ?? ''}\u0000${applied.kind}\u0000${group}\u0000${where}`;
  });
  previous.set(ks.applied.object, { placement, vars, objects: applies.map((a) => a.object), names: applies.map((a) => a.name), namespaces: applies.map((a) => a.namespace), keys });
  return keys;
}
