/**
 * How a workspace object is named towards the cluster and the user, decided once: namespace
 * defaulting, the kinds drift/render/reconcile act on, the CLI's kind aliases, and finding a
 * Kustomization or HelmRelease by name.
 */
import { DEFAULT_NAMESPACE, type AppliedObject, type HelmReleaseNode, type KustomizationNode, type RepoModel } from '../core/model/graph';
import type { KubeObject } from '../core/model/objects';
import { kindFromAlias } from '../core/kinds';
import type { ObjectRef, TargetRef } from './protocol';

/** Kinds that can be rendered, drift-previewed and reconciled from the editor. */
export const TARGET_KINDS = ['Kustomization', 'HelmRelease'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** `ks`, `hr`, `Kustomization`, `helmreleases` … (Flux's aliases) → the kind; undefined for any other kind. */
export function targetKind(alias: string): TargetKind | undefined {
  const kind = kindFromAlias(alias);
  return kind !== undefined && isTargetKind(kind) ? kind : undefined;
}

export function isTargetKind(kind: string): kind is TargetKind {
  return (TARGET_KINDS as readonly string[]).includes(kind);
}

/**
 * The namespace an object lives in once applied: the applying Kustomization's result when it is
 * applied, else what the file says, else the API server's default.
 */
export function namespaceOf(o: { namespace: string | undefined }): string {
  return o.namespace ?? DEFAULT_NAMESPACE;
}

export function refOfApplied(a: AppliedObject): ObjectRef {
  return { kind: a.kind, namespace: namespaceOf(a), name: a.name };
}

export function refOfObject(model: RepoModel, o: KubeObject): ObjectRef {
  const applied = model.appliedById.get(o.id)?.[0];
  return applied ? refOfApplied(applied) : { kind: o.kind, namespace: namespaceOf(o), name: o.name };
}

export type TargetNode = KustomizationNode | HelmReleaseNode;

/** Kustomizations and HelmReleases of every cluster, with their refs; inferred (bootstrap) ones only on request. */
export function targetNodes(model: RepoModel, root: string, includeInferred = false): { ref: TargetRef; node: TargetNode }[] {
  const out: { ref: TargetRef; node: TargetNode }[] = [];
  for (const c of model.clusters) {
    for (const node of [...c.kustomizations, ...c.helmReleases]) {
      if (node.applied.object.synthetic && !includeInferred) continue;
      out.push({ ref: { ...refOfApplied(node.applied), cluster: c.name, root }, node });
    }
  }
  return out;
}

export interface TargetQuery {
  kind?: string;
  namespace?: string;
  name?: string;
  cluster?: string;
}

export function matches(ref: TargetRef, q: TargetQuery): boolean {
  return (
    (q.kind === undefined || ref.kind === q.kind) &&
    (q.namespace === undefined || ref.namespace === q.namespace) &&
    (q.name === undefined || ref.name === q.name) &&
    (q.cluster === undefined || ref.cluster === q.cluster)
  );
}
