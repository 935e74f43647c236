/**
 * The drift run: per object a GET and a server-side apply dry-run, with bounded concurrency and
 * cancellation, and verdicts as `flux diff kustomization` (fluxcd/pkg ssa ResourceManager.Diff) or
 * helm-controller's drift detection (fluxcd/pkg ssa/jsondiff Unstructured) would give them.
 * The cluster is reached only through `DriftApi`, which never writes (dry-run only).
 */
import type { Result } from '../result';
import { helmDrifted, kustomizeDrifted, fieldChanges, helmRelevantChanges } from './compare';
import { compileIgnoreRules, stripPaths, type IgnoreRule } from './ignore';
import { entryToId, inventoryOf, staleEntries } from './inventory';
import { MASK } from '../flux/mask';
import { isSecret, maskSecretPair, scrubSecretValues } from './mask';
import { HELM_EXCLUSIONS, KS_EXCLUSIONS, KS_FORCE, KS_IF_NOT_PRESENT, PRUNE_KEY, matchInMetadata } from './metadata';
import { base64Utf8, normalizeDesired, withoutNoise } from './normalize';
import { mapPool } from './pool';
import type { KubeJson } from '../kubeJson';
import { clone, idOf, isRecord, subjectOf, type ApiError, type DesiredObject, type DriftEntry, type DriftReport, type DriftTarget, type ObjectId } from './types';

export interface DriftApi {
  /** The live object; `ok` with undefined when it does not exist. */
  get(id: ObjectId, signal?: AbortSignal): Promise<Result<KubeJson | undefined, ApiError>>;
  /** Server-side apply with dryRun=All and force=true: what the object would become. */
  dryRunApply(obj: KubeJson, fieldManager: string, signal?: AbortSignal): Promise<Result<KubeJson, ApiError>>;
}

export interface DriftRunOptions {
  mode: 'kustomization' | 'helm-live';
  target: DriftTarget;
  /** Default: kustomize-controller or helm-controller, by mode. */
  fieldManager?: string;
  /** Requests in flight at once (default 6). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Kustomization `spec.ignore` or HelmRelease `spec.driftDetection.ignore`. */
  ignore?: readonly IgnoreRule[];
  /** Kustomization mode: the live Kustomization (its `status.inventory` gives deleted objects). */
  liveKustomization?: KubeJson;
  /** Kustomization mode: `spec.prune` of the Kustomization. */
  prune?: boolean;
  onProgress?: (done: number, total: number, entry: DriftEntry) => void;
}

export const DEFAULT_CONCURRENCY = 6;

/** Kinds whose creation other objects of the same run may wait for (kustomize-controller's first apply stage). */
const STAGE_ONE = new Set(['CustomResourceDefinition', 'Namespace']);

export async function runDrift(api: DriftApi, objects: readonly DesiredObject[], opts: DriftRunOptions): Promise<DriftReport> {
  const helm = opts.mode === 'helm-live';
  const fieldManager = opts.fieldManager ?? (helm ? 'helm-controller' : 'kustomize-controller');
  const notes: string[] = [];
  let requests = 0;
  const counted: DriftApi = {
    get: (id, s) => (requests++, api.get(id, s)),
    dryRunApply: (o, fm, s) => (requests++, api.dryRunApply(o, fm, s)),
  };
  let rules;
  try {
    rules = compileIgnoreRules(opts.ignore ?? []);
  } catch (e) {
    notes.push(`Ignore rules not used: ${(e as Error).message}`);
    rules = compileIgnoreRules([]);
  }

  const entries: Array<DriftEntry | undefined> = new Array(objects.length);
  let done = 0;
  const total = objects.length;
  const record = (i: number, e: DriftEntry): void => {
    entries[i] = e;
    done++;
    opts.onProgress?.(done, total, e);
  };
  const cancelledEntry = (o: DesiredObject): DriftEntry => {
    const id = idOf(o.object);
    return { id, subject: subjectOf(id), verdict: 'cancelled', changes: [], ...(o.origin ? { origin: o.origin } : {}) };
  };

  const ctx: ObjectContext = { api: counted, fieldManager, helm, rules, signal: opts.signal };
  // Namespaces and CRDs first, so later objects can tell "created along with its namespace/CRD".
  const order = objects.map((_, i) => i).sort((a, b) => stage(objects[a]) - stage(objects[b]) || a - b);
  const firstStage = order.filter((i) => stage(objects[i]) === 0);
  const rest = order.filter((i) => stage(objects[i]) !== 0);
  const run = async (idx: number[]) =>
    mapPool(
      idx,
      opts.concurrency ?? DEFAULT_CONCURRENCY,
      async (i) => record(i, await diffOne(ctx, objects[i])),
      opts.signal,
      (i) => record(i, cancelledEntry(objects[i])),
    );
  await run(firstStage);
  ctx.created = createdInRun(firstStage.map((i) => entries[i]!));
  await run(rest);

  const list = entries.map((e, i) => e ?? cancelledEntry(objects[i]));
  const cancelled = !!opts.signal?.aborted || list.some((e) => e.verdict === 'cancelled');
  if (!helm && !cancelled) list.push(...(await deletedEntries(ctx, list, opts, notes)));
  return { target: opts.target, mode: opts.mode, entries: list, cancelled, notes, requests };
}

function stage(o: DesiredObject): number {
  return STAGE_ONE.has(String(o.object.kind)) ? 0 : 1;
}

interface ObjectContext {
  api: DriftApi;
  fieldManager: string;
  helm: boolean;
  rules: ReturnType<typeof compileIgnoreRules>;
  signal?: AbortSignal;
  created?: { namespaces: Set<string>; kinds: Set<string> };
}

function createdInRun(entries: DriftEntry[]): { namespaces: Set<string>; kinds: Set<string> } {
  const namespaces = new Set<string>();
  const kinds = new Set<string>();
  for (const e of entries) {
    if (e.verdict !== 'created') continue;
    if (e.id.kind === 'Namespace') namespaces.add(e.id.name);
    const names = e.desired?.spec?.names;
    const group = e.desired?.spec?.group;
    if (e.id.kind === 'CustomResourceDefinition' && names?.kind) kinds.add(`${group ?? ''}/${names.kind}`);
  }
  return { namespaces, kinds };
}

async function diffOne(ctx: ObjectContext, input: DesiredObject): Promise<DriftEntry> {
  const sops = isSecret(input.object) && hasMaskedValues(input.object);
  const desired = normalizeDesired(sops ? unmaskForDryRun(input.object) : input.object);
  const id = idOf(desired);
  const base = { id, subject: subjectOf(id), ...(input.origin ? { origin: input.origin } : {}) };
  const exclusions = ctx.helm ? HELM_EXCLUSIONS : KS_EXCLUSIONS;

  const skipDesired = matchInMetadata(desired, exclusions);
  if (skipDesired) return { ...base, verdict: 'skipped', reason: `${skipDesired} on the object`, changes: [] };
  const paths = ctx.rules.pathsFor(desired);
  if (ctx.helm && paths.includes('')) {
    return { ...base, verdict: 'skipped', reason: 'ignored as a whole by spec.driftDetection.ignore', changes: [] };
  }

  const got = await ctx.api.get(id, ctx.signal);
  if (!got.ok && got.error.kind === 'cancelled') return { ...base, verdict: 'cancelled', changes: [] };
  if (!got.ok && got.error.kind === 'noKind') return missingKind(ctx, base, desired, got.error);
  // kustomize-controller ignores a failed GET and lets the dry-run speak; helm-controller stops.
  if (!got.ok && ctx.helm) return errorEntry(base, got.error, desired, undefined);
  const live = got.ok ? got.value : undefined;

  const skipLive = matchInMetadata(live, exclusions);
  if (skipLive) return { ...base, verdict: 'skipped', reason: `${skipLive} on the cluster object`, changes: [] };
  if (!ctx.helm && live && matchInMetadata(desired, KS_IF_NOT_PRESENT)) {
    return { ...base, verdict: 'skipped', reason: `${matchInMetadata(desired, KS_IF_NOT_PRESENT)} and the object exists`, changes: [] };
  }

  const dry = await ctx.api.dryRunApply(desired, ctx.fieldManager, ctx.signal);
  if (!dry.ok) {
    if (dry.error.kind === 'cancelled') return { ...base, verdict: 'cancelled', changes: [] };
    if (dry.error.kind === 'noKind') return missingKind(ctx, base, desired, dry.error);
    const force = !ctx.helm && (matchInMetadata(desired, KS_FORCE) || matchInMetadata(live, KS_FORCE));
    if (force && isImmutable(dry.error)) {
      return { ...base, verdict: 'created', reason: `immutable change; ${force}: would be recreated`, changes: [], ...display(live, undefined) };
    }
    const ns = id.namespace;
    if (dry.error.kind === 'notFound' && ns && ctx.created?.namespaces.has(ns)) {
      return { ...base, verdict: 'created', reason: `namespace ${ns} is created by this run`, changes: [], ...display(undefined, desired) };
    }
    return errorEntry(base, dry.error, desired, live);
  }
  if (!got.ok) return errorEntry(base, got.error, desired, undefined);
  const result = dry.value;
  const resultId = idOf(result);
  const finalBase = { ...base, id: resultId.name ? resultId : id, subject: subjectOf(resultId.name ? resultId : id) };
  if (!result.metadata?.resourceVersion || !live) {
    return { ...finalBase, verdict: 'created', changes: [], ...display(undefined, result) };
  }

  // Ignore rules are matched against the dry-run object (kustomize-controller) or the desired one (helm-controller).
  const ignorePaths = ctx.helm ? paths : ctx.rules.pathsFor(result);
  const liveCmp = clone(live);
  const dryCmp = clone(result);
  stripPaths(liveCmp, ignorePaths);
  stripPaths(dryCmp, ignorePaths);
  let drifted = ctx.helm ? helmDrifted(liveCmp, dryCmp) : kustomizeDrifted(liveCmp, dryCmp);
  // SOPS values were never decrypted: like flux diff, only the keys of such a Secret can be compared.
  if (sops && drifted) drifted = dataKeys(liveCmp) !== dataKeys(dryCmp);
  const shown = display(liveCmp, dryCmp);
  let changes = drifted ? fieldChanges(shown.live, shown.desired) : [];
  if (ctx.helm) changes = helmRelevantChanges(changes);
  const sopsReason = sops ? { reason: 'SOPS-encrypted values are not decrypted: only keys compared' } : {};
  return { ...finalBase, verdict: drifted ? 'drifted' : 'unchanged', ...sopsReason, changes, ...shown };
}

function hasMaskedValues(secret: KubeJson): boolean {
  return ['data', 'stringData'].some((f) => isRecord(secret[f]) && Object.values(secret[f]).some((v) => v === MASK));
}

/** A masked `data` value is not base64; send base64 of the mask instead, as flux build does. */
function unmaskForDryRun(secret: KubeJson): KubeJson {
  const o = clone(secret);
  if (isRecord(o.data)) for (const [k, v] of Object.entries(o.data)) if (v === MASK) o.data[k] = base64Utf8(MASK);
  return o;
}

function dataKeys(o: KubeJson): string {
  return Object.keys(isRecord(o.data) ? o.data : {}).sort().join('\n');
}

/** Cleaned, masked copies for showing: never leaks Secret values. */
function display(live: KubeJson | undefined, desired: KubeJson | undefined): { live?: KubeJson; desired?: KubeJson } {
  const l = live ? withoutNoise(live) : undefined;
  const d = desired ? withoutNoise(desired) : undefined;
  if (isSecret(l) || isSecret(d)) maskSecretPair(l, d);
  return { ...(l ? { live: l } : {}), ...(d ? { desired: d } : {}) };
}

function missingKind(ctx: ObjectContext, base: Omit<DriftEntry, 'verdict' | 'changes'>, desired: KubeJson, error: ApiError): DriftEntry {
  const apiVersion = String(desired.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  if (ctx.created?.kinds.has(`${group}/${desired.kind}`)) {
    return { ...base, verdict: 'created', reason: `its CRD is created by this run`, changes: [], ...display(undefined, desired) };
  }
  const message = `no matches for kind "${desired.kind}" in version "${apiVersion}" (CRD missing)`;
  return { ...base, verdict: 'error', reason: message, error: { ...error, message }, changes: [] };
}

function errorEntry(base: Omit<DriftEntry, 'verdict' | 'changes'>, error: ApiError, desired: KubeJson, live: KubeJson | undefined): DriftEntry {
  const reason = error.reason ? ` (${error.reason})` : '';
  // The wording of fluxcd/pkg ssa DryRunErr.
  const raw =
    error.kind === 'notFound'
      ? base.id.namespace
        ? `${base.subject} not found: ${error.message}`
        : `${base.subject} namespace not specified: ${error.message}`
      : `${base.subject} dry-run failed${reason}: ${error.message}`;
  const message = scrubSecretValues(raw, desired, live);
  return { ...base, verdict: 'error', reason: message, error: { ...error, message: scrubSecretValues(error.message, desired, live) }, changes: [] };
}

/** kubectl's and fluxcd/pkg's test for "apply cannot change this in place". */
export function isImmutable(e: ApiError): boolean {
  return e.kind === 'conflict' || e.kind === 'invalid' || /is\simmutable|immutable\sfield/.test(e.message);
}

/**
 * `deleted`: in the live Kustomization's inventory, no longer rendered, and prune on. Like flux diff,
 * nothing is computed when an object failed (the rendered set is then not known to be complete).
 */
async function deletedEntries(ctx: ObjectContext, list: DriftEntry[], opts: DriftRunOptions, notes: string[]): Promise<DriftEntry[]> {
  if (!opts.prune) {
    notes.push('spec.prune is off: objects no longer rendered would be left in the cluster, not deleted.');
    return [];
  }
  if (!opts.liveKustomization) {
    notes.push(`${opts.target.kind} ${opts.target.namespace}/${opts.target.name} is not in the cluster: no inventory, so no deleted objects.`);
    return [];
  }
  const inv = inventoryOf(opts.liveKustomization);
  if (!inv) {
    notes.push('The live Kustomization has no status.inventory yet: deleted objects are not known.');
    return [];
  }
  if (inv.malformed.length) notes.push(`Unreadable inventory ids skipped: ${inv.malformed.join(', ')}`);
  if (list.some((e) => e.verdict === 'error')) {
    notes.push('Deleted objects are not computed because some objects failed (as flux diff does).');
    return [];
  }
  const stale = staleEntries(inv.entries, list.map((e) => e.id)).map(entryToId);
  const out: DriftEntry[] = new Array(stale.length);
  await mapPool(stale, opts.concurrency ?? DEFAULT_CONCURRENCY, async (id, i) => {
    const got = await ctx.api.get(id, ctx.signal);
    const live = got.ok ? got.value : undefined;
    const pruneOff = matchInMetadata(live, { [PRUNE_KEY]: 'disabled' });
    const base = { id, subject: subjectOf(id), changes: [] };
    if (pruneOff) out[i] = { ...base, verdict: 'skipped', reason: `${pruneOff}: kept in the cluster`, ...display(live, undefined) };
    else out[i] = { ...base, verdict: 'deleted', ...(got.ok && !live ? { reason: 'already absent from the cluster' } : {}), ...display(live, undefined) };
  });
  return out.filter(Boolean);
}
