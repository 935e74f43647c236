/**
 * A cluster built from its root down: the objects a Kustomization applies are taken from its real
 * build (kustomize-controller's, run by the engine) when there is one, so a child Kustomization or
 * HelmRelease is seen as its parent's build produces it (spec.patches, replacements, post-build
 * substitution, namespace transformers…). The model asks for each Kustomization's build by a key
 * naming everything the build depends on besides the files it reads; the engine answers with what
 * it has and renders the rest, and the model is rebuilt until nothing is pending (refine.ts).
 */
import type { Workspace } from '../workspace/workspace';
import { fluxKindOf } from '../kinds';
import { asArray, asRecord, asString, type KubeObject } from './objects';
import type { ExpandedObject, Expansion } from './expand';
import type { KustomizationNode } from './types';

/** One object of a build as kustomize-controller would apply it (plain JSON), with the document it came from. */
export interface BuiltObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [k: string]: unknown;
  readonly origin?: { readonly file: string; readonly docIndex: number };
}

/**
 * A Kustomization's build: its objects, or why it failed. `reportable` failures are the build's own
 * (kustomize or post-build substitution fails as it would in the cluster); the others (a source
 * outside the workspace, remote bases, no engine) only mean it cannot be built here.
 */
export type KustomizationBuild =
  | {
      readonly ok: true;
      readonly objects: readonly BuiltObject[];
      /**
       * The last build under this key, stale (a file it read was edited; its new build is under
       * way): the model shows these objects meanwhile, and the slot stays pending.
       */
      readonly stale?: true;
    }
  /** `limit`: a budget of the tool stopped it (reported as `analysis-limit`, not as a failure of the build). */
  | { readonly ok: false; readonly message: string; readonly reportable: boolean; readonly limit?: true };

/** The builds the model may use: the one for `key`, or undefined when it is not built yet. */
export type BuildLookup = (key: string, node: KustomizationNode) => KustomizationBuild | undefined;

/** How a Kustomization's objects were found in this model. */
export interface BuildSlot {
  readonly node: KustomizationNode;
  readonly key: string;
  /**
   * built: from its build; failed: the build failed, objects from the static reading; pending: not
   * built yet (objects from the static reading, or from the stale last build while a new one runs).
   */
  readonly state: 'built' | 'failed' | 'pending';
}

/**
 * The spec fields kustomize-controller's build reads (its generator, post-build and decryption;
 * here core/flux/generator.ts and core/flux/postbuild.ts): only these enter a build's key, so an
 * edit of `dependsOn`, `interval`, `wait`, `healthChecks`, `prune`, `timeout`… keeps the build.
 * `path` and `targetNamespace` enter as the model resolved them, `sourceRef` as the source's view.
 */
export const BUILD_SPEC_FIELDS = [
  'path',
  'sourceRef',
  'targetNamespace',
  'namePrefix',
  'nameSuffix',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'images',
  'components',
  'ignoreMissingComponents',
  'buildMetadata',
  'commonMetadata',
  'postBuild',
  'decryption',
] as const;

/** Digests what a Kustomization's build depends on besides the files it reads: its identity (owner labels), build spec fields, strict substitution. */
export function buildKey(node: KustomizationNode, substituteFrom: string, sha: (s: string) => string, strict: boolean): string {
  const a = node.applied;
  const spec = asRecord(a.object.body.spec) ?? {};
  const fields = BUILD_SPEC_FIELDS.map((f) => spec[f] ?? null);
  const view = node.source.kind === 'view' ? node.source.view.key : node.source.kind;
  return sha(JSON.stringify([a.cluster.name, a.kind, a.namespace, a.name, node.path, node.targetNamespace ?? null, view, fields, node.inheritedSubstitute ?? null, substituteFrom, strict]));
}

/**
 * What the `substituteFrom` objects of a Kustomization hold in the workspace (their bodies, as a
 * string to digest): a change there changes the build's variables, hence its key. Secret bodies
 * only enter a digest, never a message.
 */
export function substituteFromSignature(ks: KubeObject, candidates: (kind: string, name: string) => readonly KubeObject[]): string {
  const postBuild = asRecord(asRecord(ks.body.spec)?.postBuild);
  const parts: unknown[] = [];
  for (const entry of asArray(postBuild?.substituteFrom)) {
    const e = asRecord(entry);
    const kind = asString(e?.kind);
    const name = asString(e?.name);
    if (!kind || !name) continue;
    parts.push([kind, name, candidates(kind, name).map((o) => [o.id, o.namespace ?? null, o.body.data ?? null, o.body.stringData ?? null])]);
  }
  return parts.length ? JSON.stringify(parts) : '';
}

const expansions = new WeakMap<KustomizationBuild, Map<Workspace, Expansion>>();
/**
 * Each built object's model object, kept while its source document is the same: a build redone in
 * part (spliceBuild) keeps the other objects of the last build, and the model then reuses the
 * subtrees they apply instead of rebuilding every Kustomization of the parent.
 */
const modelObjects = new WeakMap<BuiltObject, { ws: Workspace; owner: KubeObject; source: KubeObject | undefined; doc: unknown; object: KubeObject }>();

/**
 * A successful build as the objects a Kustomization applies. Each keeps its source document (for
 * positions and navigation: `id` and `doc` are the document's) and the built body; an object
 * without a known source document (a generated ConfigMap, say) stands at the Kustomization's own.
 * Memoised per build, so an unchanged build yields the same objects.
 */
export function builtExpansion(build: KustomizationBuild & { ok: true }, ws: Workspace, owner: KubeObject, sourceObjects: (file: string) => readonly KubeObject[]): Expansion {
  let byWs = expansions.get(build);
  if (!byWs) expansions.set(build, (byWs = new Map()));
  const memo = byWs.get(ws);
  if (memo) return memo;
  const objects: ExpandedObject[] = [];
  const files = new Set<string>();
  for (const b of build.objects) {
    const meta = b.metadata;
    const origin = b.origin;
    const source = origin && sourceObjectOf(sourceObjects(origin.file), origin.docIndex, b.kind, meta.name);
    const doc = source?.doc ?? (origin && ws.files.get(origin.file)?.docs[origin.docIndex]) ?? owner.doc;
    if (origin) files.add(origin.file);
    const kept = modelObjects.get(b);
    if (kept && kept.ws === ws && kept.owner === owner && kept.source === source && kept.doc === doc) {
      objects.push({ object: kept.object, namespace: kept.object.namespace, prefix: '', suffix: '' });
      continue;
    }
    const { origin: _drop, ...body } = b;
    const object: KubeObject = {
      id: source?.id ?? (origin && doc !== owner.doc ? `${origin.file}#${origin.docIndex}` : `${owner.id}>${b.kind}/${meta.namespace ?? ''}/${meta.name}`),
      file: doc.file.path,
      doc,
      apiVersion: b.apiVersion,
      kind: b.kind,
      name: meta.name,
      namespace: meta.namespace || undefined,
      body: body as Record<string, any>,
      fluxKind: fluxKindOf(b.apiVersion, b.kind),
      rendered: true,
      ...(source?.synthetic ? { synthetic: true } : {}),
      ...(source?.origin ? { origin: source.origin } : {}),
    };
    modelObjects.set(b, { ws, owner, source, doc, object });
    objects.push({ object, namespace: object.namespace, prefix: '', suffix: '' });
  }
  const expansion: Expansion = { objects, problems: [], remote: [], files };
  byWs.set(ws, expansion);
  return expansion;
}

/**
 * The document a built object came from, among its origin file's objects: the one at the origin's
 * document index, else (an inferred file, whose documents are not the written ones) the one of the
 * same kind and name, or whose name the built name contains (a prefix or suffix added).
 */
function sourceObjectOf(objects: readonly KubeObject[], docIndex: number, kind: string, name: string): KubeObject | undefined {
  const sameKind = objects.filter((o) => o.kind === kind);
  return (
    sameKind.find((o) => o.doc.index === docIndex && !o.synthetic) ??
    sameKind.find((o) => o.name === name) ??
    sameKind.find((o) => o.name !== '' && name.includes(o.name)) ??
    (sameKind.length === 1 ? sameKind[0] : undefined)
  );
}

/**
 * The whole build after one file changed, from the last whole build and a build redone in part for
 * that file (render/kustomize.ts): the file's objects replaced in place by the new ones. Undefined
 * when the file now yields objects of other identities or number: a renamed object may change what
 * other objects reference, a new one may clash with them, so only the whole build can tell.
 */
export function spliceBuild(previous: readonly BuiltObject[], part: readonly BuiltObject[], file: string): BuiltObject[] | undefined {
  const fresh = part.filter((o) => o.origin?.file === file);
  const out = [...previous];
  let next = 0;
  for (let i = 0; i < out.length; i++) {
    if (out[i].origin?.file !== file) continue;
    const now = fresh[next++];
    if (!now || identity(now) !== identity(out[i])) return undefined;
    out[i] = now;
  }
  return next === fresh.length ? out : undefined;
}

function identity(o: BuiltObject): string {
  return JSON.stringify([o.apiVersion, o.kind, o.metadata.namespace ?? '', o.metadata.name]);
}
