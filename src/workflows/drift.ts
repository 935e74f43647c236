/**
 * Drift of one Flux object, end to end, shared by the `diff` CLI and the editor: the engine's render
 * and drift subject (plain data), live Kustomization / Helm storage from the cluster, then the core
 * drift engine over the dry-run API. Read-only towards the cluster.
 */
import type { KubeJson } from '../core/kubeJson';
import { compareManifests, helmIgnoreRules, kustomizationIgnoreRules, manifestObjects, pickDeployed, prepareHelmObject, pruneEnabled, runDrift, withKustomizationMetadata, type DesiredObject, type DriftEntry, type DriftReport, type DriftTarget } from '../core/drift';
import { FLUX_TYPES } from '../core/kinds';
import { toManifest } from '../core/flux/mask';
import type { DriftSubject, EngineMethod, HelmRenderResult, ParamsOf, RenderParams, RenderResult, ResultOf, TargetRef } from '../engine/protocol';
import { fail, ok, type Result } from '../core/result';
import type { ClusterClient } from '../cluster/client';
import { kubeVersionProblem } from '../core/flux/validation';
import { clusterDriftApi } from '../cluster/dryRun';
import { readReleases } from '../cluster/helmStorage';

export interface DriftRunContext {
  /** The object as the workspace has it (from the engine). */
  subject: DriftSubject;
  /** The engine's render of the subject (kustomize-controller's or helm-controller's). */
  render: (signal?: AbortSignal) => Promise<Result<RenderResult | HelmRenderResult, { kind: string; message: string }>>;
  /** The workspace's answer to "is this kind namespaced?" when discovery cannot tell. */
  isNamespaced: (types: { apiVersion: string; kind: string }[]) => Promise<boolean[]>;
  client: ClusterClient;
  signal?: AbortSignal;
  concurrency?: number;
  onProgress?: (done: number, total: number, entry: DriftEntry) => void;
  /** "Rendering…", "Reading Helm storage…" */
  onPhase?: (message: string) => void;
}

export type DriftFailureKind = 'render' | 'cluster' | 'no-release' | 'cancelled';
export interface DriftFailure {
  kind: DriftFailureKind;
  message: string;
  /** For `render`: the render error's kind (render/errors.ts), which tells the repository's fault from the tool's. */
  renderKind?: string;
}
export type DriftOutcome<T = DriftReport> = Result<T, DriftFailure>;

/** The engine's requests a drift run makes: the CLI's in-process Engine and the editor's EngineClient both answer them. */
export interface EngineRequests {
  request<M extends EngineMethod>(method: M, params: ParamsOf<M>, signal?: AbortSignal): Promise<ResultOf<M>>;
}

/** A drift run's context with its render and namespace lookup asked of the engine. */
export function engineDriftContext(
  engine: EngineRequests,
  target: TargetRef,
  renderOptions: Omit<RenderParams, 'target'>,
  rest: Omit<DriftRunContext, 'render' | 'isNamespaced'>,
): DriftRunContext {
  return {
    ...rest,
    render: async (signal) => {
      // helm-controller renders with the Kubernetes version of the cluster it installs to
      // (.Capabilities.KubeVersion): the connected cluster's, when it answers.
      const kubeVersion = target.kind === 'HelmRelease' ? await liveKubeVersion(rest.client, signal) : undefined;
      return engine.request('render', { target, ...renderOptions, ...(kubeVersion ? { kubeVersion } : {}) }, signal);
    },
    isNamespaced: (types) => engine.request('isNamespaced', { root: target.root, types }),
  };
}

/** The cluster's `gitVersion` (`v1.33.2+k3s1`), or undefined when it does not answer or answers something else. */
async function liveKubeVersion(client: ClusterClient, signal?: AbortSignal): Promise<string | undefined> {
  const v = await client.version({ signal });
  if (!v.ok || typeof v.value.gitVersion !== 'string' || kubeVersionProblem(v.value.gitVersion)) return undefined;
  return v.value.gitVersion;
}

/** Which comparisons of a HelmRelease to run: helm-controller's drift detection, desired vs deployed, or both. */
export type HelmDriftMode = 'live' | 'desired' | 'both';

export interface DriftRun {
  /** What was compared, when a HelmRelease runs both comparisons. */
  title: string;
  outcome: DriftOutcome;
}

/**
 * The drift preview of the subject: a Kustomization's dry-run, or a HelmRelease's comparisons
 * (`mode`, default both). A cancelled run starts no further one.
 */
export async function previewDrift(ctx: DriftRunContext, mode: HelmDriftMode = 'both'): Promise<DriftRun[]> {
  if (ctx.subject.target.kind !== 'HelmRelease') return [{ title: 'dry-run against the cluster', outcome: await driftKustomization(ctx) }];
  const runs: DriftRun[] = [];
  if (mode !== 'desired') runs.push({ title: 'live drift (helm-controller drift detection)', outcome: await driftHelmRelease(ctx) });
  if (mode !== 'live' && !ctx.signal?.aborted) {
    runs.push({ title: 'desired vs deployed (local render against the release in Helm storage)', outcome: await helmDesiredVsDeployed(ctx) });
  }
  return runs;
}

const KS_TYPE = FLUX_TYPES.find((t) => t.kind === 'Kustomization')!;

function failure(kind: DriftFailureKind, message: string, renderKind?: string): DriftOutcome<never> {
  return fail(renderKind === undefined ? { kind, message } : { kind, message, renderKind });
}

function driftTarget(subject: DriftSubject): DriftTarget {
  return { kind: subject.target.kind === 'HelmRelease' ? 'HelmRelease' : 'Kustomization', name: subject.target.name, namespace: subject.target.namespace };
}

export async function driftKustomization(ctx: DriftRunContext): Promise<DriftOutcome> {
  const target = driftTarget(ctx.subject);
  const label = `Kustomization ${target.namespace}/${target.name}`;
  ctx.onPhase?.(`Rendering ${label}…`);
  const rendered = await ctx.render(ctx.signal);
  if (!rendered.ok) {
    return failure(rendered.error.kind === 'cancelled' ? 'cancelled' : 'render', `Cannot render ${label}: ${rendered.error.message}`, rendered.error.kind);
  }
  ctx.onPhase?.(`Reading ${label} from the cluster…`);
  const notes = [...rendered.value.warnings];
  const live = await ctx.client.getObject(KS_TYPE, target.namespace, target.name, { signal: ctx.signal });
  let liveKs: KubeJson | undefined;
  if (live.ok) liveKs = live.value as KubeJson;
  else if (live.error.kind === 'cancelled') return failure('cancelled', 'Cancelled');
  else if (live.error.kind === 'unreachable' || live.error.kind === 'unauthorized' || live.error.kind === 'bad-kubeconfig') {
    return failure('cluster', live.error.message);
  } else if (live.error.kind !== 'not-found') notes.push(`Could not read the live ${label}: ${live.error.message}`);

  const local = ctx.subject.body;
  const objects: DesiredObject[] = withKustomizationMetadata(
    rendered.value.objects.map((o) => ({ object: toManifest(o) as KubeJson, ...(o.origin ? { origin: o.origin } : {}) })),
    { ...local, metadata: { ...local.metadata, name: target.name, namespace: target.namespace } },
  );
  ctx.onPhase?.(`Dry-run of ${objects.length} objects…`);
  const report = await runDrift(clusterDriftApi(ctx.client), objects, {
    mode: 'kustomization',
    target,
    concurrency: ctx.concurrency,
    signal: ctx.signal,
    ignore: kustomizationIgnoreRules(local),
    // What will hold after the push: the workspace's spec.prune; the inventory is the cluster's.
    prune: pruneEnabled(local),
    liveKustomization: liveKs,
    onProgress: ctx.onProgress,
  });
  return ok({ ...report, notes: [...notes, ...report.notes], requests: report.requests + 1 });
}

/** isNamespaced from API discovery (cached by the client), falling back to the workspace model. */
async function namespacedLookup(ctx: DriftRunContext, objects: KubeJson[]): Promise<(apiVersion: string, kind: string) => boolean> {
  const known = new Map<string, boolean>();
  const unknown: { apiVersion: string; kind: string }[] = [];
  for (const o of objects) {
    const key = `${o.apiVersion}/${o.kind}`;
    if (known.has(key) || unknown.some((u) => `${u.apiVersion}/${u.kind}` === key)) continue;
    const t = await ctx.client.resourceFor(String(o.apiVersion), String(o.kind), { signal: ctx.signal });
    if (t.ok) known.set(key, t.value.namespaced);
    else unknown.push({ apiVersion: String(o.apiVersion), kind: String(o.kind) });
  }
  if (unknown.length) (await ctx.isNamespaced(unknown)).forEach((v, i) => known.set(`${unknown[i].apiVersion}/${unknown[i].kind}`, v));
  return (apiVersion, kind) => known.get(`${apiVersion}/${kind}`) ?? true;
}

interface DeployedRelease {
  objects: KubeJson[];
  notes: string[];
  release: { name: string; namespace: string; version: number };
}

async function deployedRelease(ctx: DriftRunContext): Promise<DriftOutcome<DeployedRelease>> {
  const { storageNamespace, releaseName, targetNamespace } = helmFields(ctx.subject);
  const label = `release ${storageNamespace}/${releaseName}`;
  ctx.onPhase?.(`Reading Helm storage of ${label}…`);
  const stored = await readReleases(ctx.client, storageNamespace, releaseName, { signal: ctx.signal });
  if (!stored.ok) {
    if (stored.error.kind === 'cancelled') return failure('cancelled', 'Cancelled');
    return failure('cluster', `Cannot read Helm storage (Secrets in ${storageNamespace}): ${stored.error.message}`);
  }
  const notes = [...stored.value.problems];
  const { deployed, latest } = pickDeployed(stored.value.records);
  if (!deployed) {
    const why = latest ? `its newest revision v${latest.version} is ${latest.status}` : 'no sh.helm.release.v1 Secret was found';
    return failure('no-release', `No deployed Helm ${label}: ${why}.`);
  }
  if (latest && latest.version !== deployed.version) {
    notes.push(`Newest revision v${latest.version} is ${latest.status}; comparing against deployed revision v${deployed.version}.`);
  }
  let raw: KubeJson[];
  try {
    raw = manifestObjects(deployed.manifest);
  } catch (e) {
    return failure('cluster', `The manifest of ${label} v${deployed.version} is not valid YAML: ${(e as Error).message}`);
  }
  const isNamespaced = await namespacedLookup(ctx, raw);
  const release = { name: deployed.name, namespace: deployed.namespace || targetNamespace, version: deployed.version };
  return ok({ objects: raw.map((o) => prepareHelmObject(o, release, isNamespaced)), notes, release });
}

/** helm-controller's drift detection: the deployed release's objects, dry-run applied as helm-controller. */
export async function driftHelmRelease(ctx: DriftRunContext): Promise<DriftOutcome> {
  const deployed = await deployedRelease(ctx);
  if (!deployed.ok) return deployed;
  const body = ctx.subject.body;
  const notes = [`Deployed revision v${deployed.value.release.version} of release ${deployed.value.release.namespace}/${deployed.value.release.name}.`, ...deployed.value.notes];
  const mode = body?.spec?.driftDetection?.mode;
  if (mode !== 'enabled' && mode !== 'warn') {
    notes.push(`spec.driftDetection.mode is ${mode ?? 'unset (disabled)'}: helm-controller neither reports nor corrects this drift.`);
  }
  ctx.onPhase?.(`Dry-run of ${deployed.value.objects.length} objects…`);
  const report = await runDrift(clusterDriftApi(ctx.client), deployed.value.objects.map((object) => ({ object })), {
    mode: 'helm-live',
    target: driftTarget(ctx.subject),
    concurrency: ctx.concurrency,
    signal: ctx.signal,
    ignore: helmIgnoreRules(body),
    onProgress: ctx.onProgress,
  });
  return ok({ ...report, notes: [...notes, ...report.notes] });
}

/** "Desired vs deployed": the local `helm template` against the stored manifest (no dry-run). */
export async function helmDesiredVsDeployed(ctx: DriftRunContext): Promise<DriftOutcome> {
  const deployed = await deployedRelease(ctx);
  if (!deployed.ok) return deployed;
  const target = driftTarget(ctx.subject);
  ctx.onPhase?.(`Rendering HelmRelease ${target.namespace}/${target.name}…`);
  const result = await ctx.render(ctx.signal);
  if (!result.ok) {
    return failure(result.error.kind === 'cancelled' ? 'cancelled' : 'render', `Cannot render HelmRelease ${target.namespace}/${target.name}: ${result.error.message}`, result.error.kind);
  }
  if (!('releaseName' in result.value)) return failure('render', `HelmRelease ${target.namespace}/${target.name} did not render as a Helm release`);
  const rendered = result.value;
  const desiredRaw = rendered.objects.map((o) => toManifest(o) as KubeJson);
  const isNamespaced = await namespacedLookup(ctx, desiredRaw);
  const release = { name: rendered.releaseName, namespace: rendered.namespace };
  const desired = desiredRaw.map((o) => prepareHelmObject(o, release, isNamespaced));
  const notes = [...deployed.value.notes, ...rendered.warnings];
  return ok(compareManifests(deployed.value.objects, desired, target, notes));
}

function helmFields(subject: DriftSubject): { storageNamespace: string; releaseName: string; targetNamespace: string } {
  return {
    storageNamespace: subject.storageNamespace ?? subject.target.namespace,
    releaseName: subject.releaseName ?? subject.target.name,
    targetNamespace: subject.targetNamespace ?? subject.target.namespace,
  };
}
