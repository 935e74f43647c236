/**
 * schema-invalid / schema-unknown-field: what the API server will do with each applied object,
 * judged by the schema the cluster serves for it (./schema/catalog.ts). Several candidate schemas
 * (the bundled Flux one and a copy of its CRD in the repository or the connected cluster's, say)
 * must all agree before a finding is reported: the cluster runs one of them, and the tool cannot
 * tell which.
 */
import type { AppliedObject } from '../model/graph';
import { asArray, asRecord } from '../model/objects';
import { schemaLookup, type SchemaSource } from '../schema/catalog';
import { schemaAtPath, validateObject, type Schema, type SchemaFinding, type SchemaPath } from '../schema/structural';
import type { CheckContext } from './context';
import type { Diagnostic } from './types';
import type { YamlDoc } from '../yaml/document';
import { clusterKubeVersion, kubeMinor } from '../helm/kubeVersion';
import { KUBERNETES } from '../schema/kube';
import { closestNames } from './similar';

/** A value the cluster fills in (`${var}` left for post-build substitution) or decrypts (SOPS `ENC[…]`). */
export const unknownValue = (v: unknown) => typeof v === 'string' && (v.includes('${') || v.startsWith('ENC['));

/** Findings per object body, with the schemas they were judged by (an edited CRD or a chart's render changes them). */
const judged = new WeakMap<object, { by: readonly Schema[]; findings: SchemaFinding[] }>();

/**
 * What an object body was last reported with, reused on the next run (one per keystroke) while
 * everything the report is made of is the same: the body (the key), its document (a new parse of
 * its file is a new one), its identity, the schema list (schemasFor keeps it the very same list
 * while no CRD it comes from changed) and, when a message names it, the cluster's Kubernetes version.
 */
const reported = new WeakMap<object, { doc: YamlDoc; applied: Identity; sources: readonly SchemaSource[]; kube: KubeVersion | undefined; diagnostics: Diagnostic[] }>();

/**
 * What an applied object was last checked to, by the object itself: the model hands out the same
 * AppliedObject while nothing it is made of changed (its body, document, identity and applier:
 * ModelBuilder reuses untouched subtrees), so only the schema list, the document still being the
 * workspace's (checked before) and the Kubernetes version a message named are compared.
 */
const verdicts = new WeakMap<AppliedObject, { sources: readonly SchemaSource[]; kube: KubeVersion | undefined; diagnostics: Diagnostic[] }>();

/** What a finding's message names of the object. */
type Identity = Pick<AppliedObject, 'apiVersion' | 'kind' | 'namespace' | 'name'>;

const identityOf = (a: Identity): Identity => ({ apiVersion: a.apiVersion, kind: a.kind, namespace: a.namespace, name: a.name });
const sameIdentity = (a: Identity, b: Identity) => a.apiVersion === b.apiVersion && a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;

type KubeVersion = { version: string; origin: string };

export function checkSchemas(ctx: CheckContext): void {
  const schemasFor = schemaLookup(ctx.model, ctx.options.clusterCrds);
  for (const cluster of ctx.model.clusters) {
    let kube: KubeVersion | undefined;
    const kubeOf = () => (kube ??= clusterKubeVersion(ctx.model, cluster));
    for (const applied of cluster.objects) {
      const object = applied.object;
      if (!ctx.isReal(object.doc)) continue;
      const sources = schemasFor(applied.apiVersion, applied.kind);
      // The model keeps the very same applied objects for subtrees an edit did not touch (most of them).
      const kept = verdicts.get(applied);
      if (kept && kept.sources === sources && (!kept.kube || sameKube(kept.kube, kubeOf()))) {
        if (kept.diagnostics.length) ctx.diagnostics.push(...kept.diagnostics);
        continue;
      }
      const before = ctx.diagnostics.length;
      const kube = checkObject(ctx, applied, sources, kubeOf);
      verdicts.set(applied, { sources, kube, diagnostics: ctx.diagnostics.slice(before) });
    }
  }
}

/** One object's findings, reported on `ctx`; the Kubernetes version when a message named it. */
function checkObject(ctx: CheckContext, applied: AppliedObject, sources: readonly SchemaSource[], kubeOf: () => KubeVersion): KubeVersion | undefined {
  const object = applied.object;
  if (object.synthetic || !sources.length) return undefined;
  // An object standing at another document (a generated ConfigMap at its Kustomization) has no node of its own.
  if (asRecord(object.doc.value)?.kind !== object.kind) return undefined;
  if (patchedByApplier(applied)) return undefined;
  const last = reported.get(object.body);
  if (last && last.doc === object.doc && last.sources === sources && sameIdentity(last.applied, applied) && (!last.kube || sameKube(last.kube, kubeOf()))) {
    ctx.diagnostics.push(...last.diagnostics);
    return last.kube;
  }
  const before = ctx.diagnostics.length;
  let usedKube: KubeVersion | undefined;
  for (const f of findingsOf(object.body, sources)) {
    report(ctx, applied, f, sources, () => (usedKube = kubeOf()));
  }
  reported.set(object.body, { doc: object.doc, applied: identityOf(applied), sources, kube: usedKube, diagnostics: ctx.diagnostics.slice(before) });
  return usedKube;
}

function sameKube(a: KubeVersion, b: KubeVersion): boolean {
  return a.version === b.version && a.origin === b.origin;
}

/**
 * Read as written (its applier's build did not run here) while the applier's `spec.patches` may
 * target it: Flux applies the patched object, which the written document does not show.
 */
function patchedByApplier(applied: AppliedObject): boolean {
  if (applied.object.rendered) return false;
  const parent = applied.appliedBy?.applied.object;
  return asArray(asRecord(parent?.body.spec)?.patches).some((p) => {
    const kind = asRecord(asRecord(p)?.target)?.kind;
    return kind === undefined || kind === applied.kind;
  });
}

function findingsOf(body: Record<string, any>, sources: readonly SchemaSource[]): SchemaFinding[] {
  const by = sources.map((s) => s.schema);
  const known = judged.get(body);
  if (known && known.by.length === by.length && known.by.every((s, i) => s === by[i])) return known.findings;
  const found = sources.map((s) => validateObject(body, s.schema, { patterns: s.trusted, unknown: unknownValue }));
  // Patterns are evaluated for trusted schemas only: a pattern finding stands for an untrusted schema that holds the same pattern there.
  const agrees = (f: SchemaFinding, i: number) =>
    found[i].some((g) => g.kind === f.kind && g.message === f.message && samePath(g.path, f.path)) ||
    (f.pattern !== undefined && !sources[i].trusted && schemaAtPath(sources[i].schema, f.path)?.pattern === f.pattern);
  const first = found[Math.max(0, sources.findIndex((s) => s.trusted))] ?? [];
  const agreed = first.filter((f) => found.every((_, i) => agrees(f, i)));
  judged.set(body, { by, findings: agreed });
  return agreed;
}

function samePath(a: SchemaPath, b: SchemaPath): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function report(ctx: CheckContext, applied: AppliedObject, f: SchemaFinding, sources: readonly SchemaSource[], kubeOf: () => KubeVersion): void {
  const where = f.path.length ? f.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').slice(1) : '(top level)';
  const label = `${applied.kind} ${applied.namespace ? `${applied.namespace}/` : ''}${applied.name}`;
  const schemaName = `${sources.map((s) => s.origin).join(', ')} ${applied.kind} ${applied.apiVersion.split('/').pop()}`;
  if (f.kind === 'unknown') {
    const key = String(f.path[f.path.length - 1]);
    const mapPath = f.path.slice(0, -1);
    const near = closestNames(key, fieldNames(sources[0].schema, mapPath));
    const hint = near.length ? ` Did you mean '${near[0]}'?` : '';
    const doc = applied.object.doc;
    // At the key, not its value (see rangeAt: a path one step past a node resolves to its key).
    const at = [...f.path, '\u0000'];
    const fix = near.length ? { kind: 'rename-key' as const, file: doc.file.path, docIndex: doc.index, path: mapPath, key, candidates: near.slice(0, 3) } : undefined;
    if (sources.some((s) => s.builtin)) {
      const kube = kubeOf();
      // A cluster on a newer Kubernetes than the bundled schemas may have the field: it was added since.
      const newer = kubeMinor(kube.version) > kubeMinor(KUBERNETES.replace(/^\D+/, ''));
      const since = newer ? ` This cluster runs Kubernetes ${kube.version} (${kube.origin}), newer than the schema: if the field was added since, it is accepted.` : '';
      // kustomize-controller reads every built-in object into its Go type before applying
      // (fluxcd/pkg/ssa normalize), which drops a field the type lacks; Role and ClusterRole are
      // sent as written, and server-side apply refuses the field.
      const asWritten = applied.apiVersion === 'rbac.authorization.k8s.io/v1' && (applied.kind === 'Role' || applied.kind === 'ClusterRole');
      const outcome = asWritten
        ? `server-side apply rejects the object ("field not declared in schema": kustomize-controller sends a ${applied.kind} as written)`
        : 'kustomize-controller reads the object into its Kubernetes type before applying and drops the field, so the setting never takes effect';
      ctx.report('schema-unknown-field', doc, at, `${label}: ${where} is not a field of ${applied.kind}; ${outcome}.${hint} (schema: ${schemaName})${since}`, {
        severity: asWritten && !newer ? 'error' : 'warning',
        fix,
      });
      return;
    }
    ctx.report('schema-unknown-field', doc, at, `${label}: ${where} is not a field of ${applied.kind}; the API server drops it, so it never takes effect.${hint} (schema: ${schemaName})`, { fix });
    return;
  }
  // A path one step past the mapping resolves to the mapping's key (see rangeAt).
  const at = f.whole && f.path.length ? [...f.path, '\u0000'] : f.path;
  ctx.report('schema-invalid', applied.object.doc, at, `${label}: ${where}: ${f.message}; the API server rejects the object (schema: ${schemaName}).`);
}

/** Field names the schema knows at `path` (list indexes step into items). */
function fieldNames(schema: Schema, path: SchemaPath): string[] {
  return Object.keys(schemaAtPath(schema, path)?.properties ?? {});
}
