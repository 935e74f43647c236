/**
 * Builds a folder's clusters from their roots down (core/model/rendered.ts): the model asks for
 * each Kustomization's build, the refiner renders the ones it lacks (kustomize as WebAssembly, no
 * process), and the model is rebuilt until nothing is pending. Builds are kept while the files
 * they read are unchanged: an edit re-renders the Kustomizations whose build read the edited file,
 * then only children whose rendered spec (hence key) changed.
 */
import type { KustomizationNode, RepoModel } from '../core/model/graph';
import { spliceBuild, type BuiltObject, type KustomizationBuild } from '../core/model/rendered';
import type { Repo } from '../core/repo';
import type { ModelProblem } from '../core/model/types';
import type { Workspace } from '../core/workspace/workspace';
import { fluxKustomizationText, kustomizationInputsProblem, renderKustomizationRecorded, warmKustomizeInstances, type FluxKustomizationText, type ReadKind, type RecordedBuild } from '../render/kustomize';
import { Allowance, DEFAULT_BUDGETS, describeMs, type Budgets } from '../core/budgets';
import { sameMap, syntheticFiles } from '../render/baseFiles';
import type { SourceView } from '../core/model/view';
import type { RenderedObject, RenderOptions, RenderResult } from '../render/types';
import { fail } from '../render/errors';
import type { BuildCache, CachedBuild } from './buildCache';
import { asCachedRefinement } from './cachedRefinement';
import type { RenderTiming } from './protocol';
import { fileDigest, readDigests, readsHold, watchedPaths, type SourceState } from './buildReads';
import { MemoryBuildCache } from './memoryBuildCache';
import { wasmModule } from './wasm/pool';
import { strictPostBuild } from '../core/flux/featureGates';

/**
 * Rounds of "render what is pending, rebuild": each round reaches one level deeper, so this bounds
 * the nesting followed (real repositories nest a handful of levels).
 */
export const MAX_REFINE_ROUNDS = 30;

/** A build in use this session, with the paths whose change makes it stale. */
interface LiveBuild {
  readonly build: KustomizationBuild;
  readonly files: ReadonlySet<string>;
  readonly dirs: ReadonlySet<string>;
  /** Failed before kustomize ran (inputs missing, say): any change may matter. */
  readonly anyChange: boolean;
  /** What the build read (source paths) and the kustomization Flux generated for it. */
  readonly recorded?: { readonly reads: Readonly<Record<string, ReadKind>>; readonly generated: FluxKustomizationText };
  /**
   * The whole build's render, warnings included, as `renderKustomization` gives it with the
   * refinement's options: a render request may take it instead of building again. Absent for a build
   * redone in part, or taken from a cache entry that has no warnings (CachedRefinement.warnings).
   */
  readonly rendered?: RenderResult;
}

/**
 * Render failures that are the build's own, as Flux would report them (others: it cannot be built
 * here). A build stopped for its time or a budget is reported too: silence would read as "no
 * findings" for a build that never finished.
 */
const REPORTABLE = new Set(['build-failed', 'substitution', 'invalid', 'timeout', 'budget']);

/** Failures that depend on this run (its budgets, the machine's load), not on the files: never persisted. */
const TRANSIENT = new Set(['timeout', 'budget']);

/** What one refinement may spend on its builds together (Budgets), counted from its start. */
interface RefineBudget {
  readonly deadline: number;
  readonly substituted: Allowance;
}

export interface RefineResult {
  /** Kustomizations rendered (not answered from a cache). */
  rendered: number;
  rounds: number;
  /** Builds still pending when the round limit stopped the loop. */
  pending: number;
  /** Each render, in order, with why it ran and where its time went. */
  renders: RenderTiming[];
  /** Time spent rebuilding the model. */
  modelMs: number;
}

export class Refiner {
  private readonly live = new Map<string, LiveBuild>();
  /** Inferred file contents of the last model, for checking a cached build's reads. */
  private overrides: ReadonlyMap<string, string> = new Map();
  private limitProblems: ModelProblem[] = [];
  /** Keys whose live build an edit made stale (a render under such a key is for changed reads). */
  private readonly stale = new Set<string>();
  /**
   * Builds that failed before kustomize ran, made stale by an edit: no reads tell which edits
   * matter, but the failure is the first check a render makes (`kustomizationInputsProblem`), so
   * while that check still fails with the same message a render would give the same build.
   */
  private readonly recheck = new Map<string, LiveBuild>();
  private renders: RenderTiming[] = [];
  /**
   * Stale builds that one file's edits made stale, with that file: they can be redone in part
   * (renderKustomizationRecorded's `only`) while nothing else they read changes.
   */
  private readonly edited = new Map<string, { previous: LiveBuild & { build: { ok: true } }; file: string; stale: KustomizationBuild }>();
  /** The model the last refinement ended with: builds in part start from it (startEarly). */
  private lastModel: RepoModel | undefined;
  /** Builds in part started from the last model, before the model of the edit is rebuilt. */
  private readonly early = new Map<string, EarlyBuild>();

  constructor(
    private readonly ws: Workspace,
    private readonly cache: BuildCache = new MemoryBuildCache(),
    private readonly budgets: Budgets = DEFAULT_BUDGETS,
  ) {
    // With nothing cached (a first open), builds will follow: the kustomize instance starts and
    // parses its OpenAPI schema while the workspace is read. A warm reopen may build nothing, so it
    // starts no instance.
    if (cache.size === 0) void wasmModule('kustomize').call('warm', {}, []);
    ws.onChange((change) => {
      const file = change.kind === 'file' ? change.path : undefined;
      const dir = file ? file.slice(0, file.lastIndexOf('/')) : '';
      const touches = (b: LiveBuild) => !file || b.anyChange || b.files.has(file) || b.dirs.has(dir);
      for (const [key, e] of this.edited) if (file !== e.file && touches(e.previous)) this.edited.delete(key);
      for (const [key, b] of this.live) {
        if (!touches(b)) continue;
        this.live.delete(key);
        this.stale.add(key);
        if (b.anyChange && !b.build.ok) this.recheck.set(key, b);
        if (file && b.build.ok && b.recorded && b.files.has(file)) this.edited.set(key, { previous: b as LiveBuild & { build: { ok: true } }, file, stale: { ok: true, objects: b.build.objects, stale: true } });
      }
    });
  }

  /** The model's lookup (BuildOptions.builds): a live build, else a cached one whose reads still hold. */
  readonly lookup = (key: string, node: KustomizationNode): KustomizationBuild | undefined => {
    const live = this.live.get(key);
    if (live) return live.build;
    const failed = this.recheck.get(key);
    if (failed && !failed.build.ok) {
      this.recheck.delete(key);
      const now = kustomizationInputsProblem(this.ws, node);
      if (!now.ok && failed.build.message === shorten(now.error.message) && failed.build.reportable === REPORTABLE.has(now.error.kind)) {
        this.live.set(key, failed);
        this.stale.delete(key);
        return failed.build;
      }
    }
    // While it is redone in part, the model keeps the last build's objects (it then reuses every
    // subtree they apply) instead of falling back to the static reading.
    const stale = this.edited.get(key)?.stale;
    if (node.source.kind !== 'view') return stale;
    const view = node.source.view;
    let generated: ReturnType<typeof fluxKustomizationText> | undefined;
    for (const { key: at, entry: cached } of candidates(this.cache, key)) {
      const value = asCachedRefinement(cached.value);
      if (typeof value === 'string') {
        this.cache.drop(at, value);
        continue;
      }
      if (this.editChangedRead(key, view, cached.reads)) continue;
      generated ??= fluxKustomizationText(this.ws, node, view);
      if (!generated.ok) return stale;
      const state: SourceState = { ws: this.ws, view, overrides: this.overrides, generated: generated.value };
      if (!readsHold(state, cached.reads)) continue;
      const watched = watchedPaths(view, value.reads);
      // A whole build's render is its objects and warnings: a render request takes it as it takes a build of this session.
      const rendered = value.build.ok && value.warnings ? { rendered: { objects: value.build.objects as unknown as RenderedObject[], warnings: [...value.warnings] } } : {};
      this.live.set(key, { build: value.build, files: watched.files, dirs: watched.dirs, anyChange: false, recorded: { reads: value.reads, generated: generated.value }, ...rendered });
      return value.build;
    }
    return stale;
  };

  /**
   * Whether the file an edit changed no longer has the digest a cached build recorded for it: then
   * the build cannot be reused, and Flux's kustomization need not be generated to tell. A read of
   * Flux's kustomization itself (recorded with the generated text's digest) may give a false yes:
   * the build is then redone, never reused wrongly.
   */
  private editChangedRead(key: string, view: SourceView, digests: Readonly<Record<string, string>>): boolean {
    const file = this.edited.get(key)?.file;
    if (!file) return false;
    for (const [entry, digest] of Object.entries(digests)) {
      if (!entry.startsWith('file:') || view.file(entry.slice('file:'.length)) !== file) continue;
      if (fileDigest({ ws: this.ws, overrides: this.overrides }, file) !== digest) return true;
    }
    return false;
  }

  /** Problems of the last refinement (the round limit), to add to the model the checks see. */
  problems(): readonly ModelProblem[] {
    return this.limitProblems;
  }

  /**
   * Renders pending builds and rebuilds the model until nothing is pending (or the round limit).
   * Stops early, with what it has, when the workspace changes meanwhile or `signal` aborts.
   */
  async refine(repo: Repo, opts: RenderOptions): Promise<RefineResult> {
    this.running++;
    try {
      return await this.rounds(repo, this.asFlux(opts));
    } finally {
      this.running--;
      this.endRound();
    }
  }

  /** Whether the refinement substitutes strictly: as the workspace's kustomize-controller does. */
  get strictSubstitution(): boolean {
    return strictPostBuild(this.ws);
  }

  private asFlux(opts: RenderOptions): RenderOptions {
    return { ...opts, strictSubstitution: opts.strictSubstitution ?? this.strictSubstitution };
  }

  /** Refinements running (refine). */
  private running = 0;
  private roundEnd: { promise: Promise<void>; resolve: () => void } | undefined;

  /** Whether a refinement is running: its rounds will build what its model has pending. */
  get refining(): boolean {
    return this.running > 0;
  }

  /** Settles when the running refinement has rebuilt its model after a round of builds, or stopped; at once when none runs. */
  roundEnded(): Promise<void> {
    if (!this.refining) return Promise.resolve();
    if (!this.roundEnd) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.roundEnd = { promise, resolve };
    }
    return this.roundEnd.promise;
  }

  private endRound(): void {
    const ended = this.roundEnd;
    this.roundEnd = undefined;
    ended?.resolve();
  }

  private async rounds(repo: Repo, opts: RenderOptions): Promise<RefineResult> {
    let rendered = 0;
    let rounds = 0;
    let modelMs = 0;
    const timedModel = () => {
      const t = performance.now();
      const m = repo.model();
      modelMs += performance.now() - t;
      return m;
    };
    let model = timedModel();
    this.limitProblems = [];
    this.renders = [];
    const budget: RefineBudget = { deadline: performance.now() + this.budgets.buildMs, substituted: new Allowance(this.budgets.substitutedBytes) };
    const result = (pending: number): RefineResult => {
      this.lastModel = model;
      this.early.clear();
      if (pending === 0) {
        this.stale.clear();
        this.recheck.clear();
        this.edited.clear();
      }
      return { rendered, rounds, pending, renders: this.renders, modelMs };
    };
    for (;;) {
      // From the root down: a Kustomization is built once its applier's build is in (or failed), so
      // it is built from the spec that build gives it, not from its file only to be built again.
      const waiting = new Set<KustomizationNode>();
      for (const slot of model.builds) if (slot.state === 'pending') waiting.add(slot.node);
      const pending = new Map<string, KustomizationNode>();
      for (const slot of model.builds) {
        if (slot.state !== 'pending' || pending.has(slot.key)) continue;
        let ready = true;
        for (let a = slot.node.applied.appliedBy; a && ready; a = a.applied.appliedBy) if (waiting.has(a)) ready = false;
        if (ready) pending.set(slot.key, slot.node);
      }
      if (pending.size === 0 || opts.signal?.aborted) return result(pending.size);
      if (performance.now() >= budget.deadline) {
        this.limitProblems = outOfTimeProblems(waiting, this.budgets.buildMs);
        return result(pending.size);
      }
      if (rounds >= MAX_REFINE_ROUNDS) {
        this.limitProblems = limitProblems(model, pending);
        return result(pending.size);
      }
      rounds++;
      this.overrides = syntheticFiles(model);
      const version = this.ws.version;
      const stopped = () => this.ws.version !== version || !!opts.signal?.aborted;
      // The round's builds do not depend on each other: they run side by side, one per kustomize
      // instance. Each build's result depends on its inputs only, so the model is the same whichever
      // instance ran it and in whichever order they finish.
      const concurrency = renderConcurrency(pending.size);
      // Many builds to come (a cold open): instances this round leaves free get ready meanwhile.
      if (waiting.size >= 2 * BUILDS_PER_EXTRA_INSTANCE) warmKustomizeInstances(model, pending.values().next().value!, wasmModule('kustomize').size - concurrency);
      const queue = [...pending];
      const worker = async () => {
        // Past the time budget the rest stay pending: the next round reports each of them.
        for (let next = queue.shift(); next && !stopped() && performance.now() < budget.deadline; next = queue.shift()) {
          await this.render(model, next[0], next[1], opts, budget);
          rendered++;
        }
      };
      // One build more than instances is prepared at a time: its input is ready when an instance
      // finishes, so the instance does not wait for this thread to prepare it.
      const loops = Math.min(pending.size, concurrency + 1);
      await Promise.all(Array.from({ length: loops }, worker));
      if (stopped()) return result(pending.size);
      repo.invalidate();
      model = timedModel();
      this.endRound();
    }
  }

  private async render(model: RepoModel, key: string, node: KustomizationNode, given: RenderOptions, budget: RefineBudget): Promise<void> {
    // A build never runs past the refinement's time budget (callTimeoutMs).
    const opts: RenderOptions = { ...given, deadline: budget.deadline, substitution: { perBuild: this.budgets.substitutedBytesPerBuild, total: budget.substituted } };
    if (this.edited.has(key) && (await this.renderInPart(model, key, node, opts))) return;
    const version = this.ws.version;
    const recorded = await renderGuarded(model, node, { ...opts, revealSecretValues: false });
    this.renders.push({ name: `${node.applied.namespace ?? 'default'}/${node.applied.name}`, reason: this.stale.delete(key) ? 'reads-changed' : 'new-key', ...recorded.timing });
    // A build of files that changed while it ran describes neither the old nor the new content.
    if (this.ws.version !== version) return;
    const r = recorded.result;
    // Cancelled: still pending.
    if (!r.ok && r.error.kind === 'cancelled') return;
    // The time limit of a call cut by the deadline fires at or after it; its own limit, before.
    const cutByBudget = !r.ok && r.error.kind === 'timeout' && performance.now() >= budget.deadline;
    const build: KustomizationBuild = r.ok
      ? { ok: true, objects: r.value.objects as unknown as BuiltObject[] }
      : cutByBudget
        ? { ok: false, message: `${ksName(node)} was stopped when the ${describeMs(this.budgets.buildMs)} build-time budget of all builds together ran out (gitops-preview --max-build-seconds raises it); what it applies is read from its files as written.`, reportable: true, limit: true }
        : { ok: false, message: shorten(r.error.message), reportable: REPORTABLE.has(r.error.kind), ...(r.error.kind === 'budget' ? { limit: true } : {}) };
    if (!r.ok && TRANSIENT.has(r.error.kind)) {
      this.live.set(key, { build, files: new Set(), dirs: new Set(), anyChange: true });
      return;
    }
    if (!recorded.reads || node.source.kind !== 'view' || !recorded.generated) {
      this.live.set(key, { build, files: new Set(), dirs: new Set(), anyChange: true });
      return;
    }
    const view = node.source.view;
    const state: SourceState = { ws: this.ws, view, overrides: this.overrides, generated: recorded.generated };
    const watched = watchedPaths(view, recorded.reads);
    this.live.set(key, { build, files: watched.files, dirs: watched.dirs, anyChange: false, recorded: { reads: recorded.reads, generated: recorded.generated }, ...(r.ok ? { rendered: r.value } : {}) });
    this.cache.set(key, { reads: readDigests(state, recorded.reads), value: { build, reads: recorded.reads, ...(r.ok ? { warnings: r.value.warnings } : {}) } });
  }

  /**
   * The render of the build the model holds under `key`, when it is a whole build of this session
   * still current: what `renderKustomization` would answer with the refinement's options (secret
   * values masked, strict substitution), without building again.
   */
  rendered(key: string): RenderResult | undefined {
    return this.live.get(key)?.rendered;
  }

  /**
   * A render request's whole render of the build under `key` (made with the refinement's options,
   * because this build had none kept: a cache entry written without warnings, a build redone in
   * part): kept for the next request, and its warnings added to the cache entry when the render's
   * objects are the build's, so that a reopened cache answers the next run's request too.
   */
  keepRender(key: string, render: RenderResult): void {
    const live = this.live.get(key);
    if (!live || live.rendered || !live.build.ok || this.stale.has(key)) return;
    if (JSON.stringify(live.build.objects) !== JSON.stringify(render.objects)) return;
    this.live.set(key, { ...live, rendered: structuredClone(render) });
    const cached = this.cache.get(key);
    const value = cached && asCachedRefinement(cached.value);
    if (!cached || !value || typeof value === 'string' || value.warnings || value.build !== live.build && JSON.stringify(value.build) !== JSON.stringify(live.build)) return;
    this.cache.set(key, { reads: cached.reads, value: { ...value, warnings: [...render.warnings] } });
  }

  /**
   * Starts, from the last refined model, the builds in part that the edits since then ask for, so
   * that kustomize works on them while this thread rebuilds the model (the model of an edit is
   * needed to know which builds are pending, and takes as long as a small build). The refinement
   * takes such a build only when the rebuilt model asks for the same key from the same files
   * (renderInPart); otherwise it is dropped. True when one was started.
   */
  startEarly(given: RenderOptions): boolean {
    const opts = this.asFlux(given);
    const last = this.lastModel;
    if (!last || this.edited.size === 0 || opts.signal?.aborted) return false;
    let started = false;
    let overrides: ReadonlyMap<string, string> | undefined;
    for (const slot of last.builds) {
      const edit = this.edited.get(slot.key);
      if (!edit || slot.state !== 'built' || this.early.get(slot.key)?.version === this.ws.version) continue;
      const only = inPartPath(slot.node, edit.previous, edit.file)?.only;
      if (only === undefined) continue;
      overrides ??= syntheticFiles(last);
      const recorded = renderKustomizationRecorded(last, slot.node, { ...opts, revealSecretValues: false }, only);
      recorded.catch(() => undefined);
      this.early.set(slot.key, { node: slot.node, only, version: this.ws.version, overrides, recorded });
      started = true;
    }
    return started;
  }

  /**
   * Redoes in part a build that one file's edits made stale: kustomize builds only that file's way
   * through the build, and its objects replace the file's objects of the last build. True when done
   * (or when the workspace changed meanwhile: the next round tries again); false when the whole
   * build must run (the module refused, the file's objects changed identity, Flux's kustomization
   * at spec.path changed).
   */
  private async renderInPart(model: RepoModel, key: string, node: KustomizationNode, opts: RenderOptions): Promise<boolean> {
    const { previous, file } = this.edited.get(key)!;
    const refuse = () => (this.edited.delete(key), false);
    const way = inPartPath(node, previous, file);
    if (!way) return refuse();
    const { only, view, last } = way;
    const version = this.ws.version;
    const early = this.early.get(key);
    this.early.delete(key);
    // Started from the last model for the same key (so the same spec and substituted values), the
    // same files and the same inferred ones: the build this one would be.
    const taken = early && early.version === version && early.only === only && sameNode(early.node, node) && sameMap(early.overrides, this.overrides);
    const recorded = taken ? await early.recorded : await renderKustomizationRecorded(model, node, { ...opts, revealSecretValues: false }, only);
    const timing: RenderTiming = { name: `${node.applied.namespace ?? 'default'}/${node.applied.name}`, reason: 'in-part', ...(taken ? { early: true } : {}), ...recorded.timing };
    this.renders.push(recorded.refused ? { ...timing, refused: recorded.refused } : timing);
    if (this.ws.version !== version) return true;
    const r = recorded.result;
    if (!r.ok && r.error.kind === 'cancelled') return true;
    if (!r.ok || recorded.refused || recorded.generated?.text !== last.generated.text) return refuse();
    const objects = spliceBuild(previous.build.objects, r.value.objects as unknown as BuiltObject[], file);
    if (!objects) {
      this.renders[this.renders.length - 1] = { ...timing, refused: `${file} now yields objects of other names or number` };
      return refuse();
    }
    this.edited.delete(key);
    this.stale.delete(key);
    const build: KustomizationBuild = { ok: true, objects };
    const { reads, generated } = last;
    this.live.set(key, { ...previous, build, recorded: { reads, generated }, rendered: undefined });
    const state: SourceState = { ws: this.ws, view, overrides: this.overrides, generated };
    this.cache.set(key, { reads: readDigests(state, reads), value: { build, reads } });
    return true;
  }
}

/**
 * Builds to run at once: one per kustomize instance, but a round of a few builds (an edit's) stays
 * on the running instance rather than paying another's start (module set-up, the source's files).
 */
function renderConcurrency(builds: number): number {
  return Math.max(1, Math.min(wasmModule('kustomize').size, Math.floor(builds / BUILDS_PER_EXTRA_INSTANCE)));
}

/** A round needs this many builds per instance before another instance is worth starting. */
const BUILDS_PER_EXTRA_INSTANCE = 4;

/**
 * A build that throws on this thread (a call stack or heap exhausted by its output, a bug) is that
 * build's failure, reported as such: the other builds and the refinement go on.
 */
async function renderGuarded(model: RepoModel, node: KustomizationNode, opts: RenderOptions): Promise<RecordedBuild> {
  try {
    return await renderKustomizationRecorded(model, node, opts);
  } catch (err) {
    const why = err instanceof RangeError ? `it exhausted the tool's ${/call stack/i.test(err.message) ? 'call stack' : 'memory'} (${err.message})` : `it failed: ${(err as Error).message}`;
    return { result: fail('build-failed', `${ksName(node)}: the build stopped: ${why}.`), timing: { prepareMs: 0, kustomizeMs: 0, postBuildMs: 0 } };
  }
}

function ksName(node: KustomizationNode): string {
  return `Kustomization ${node.applied.namespace ?? 'default'}/${node.applied.name}`;
}

/** One finding per Kustomization left unbuilt when the build-time budget ran out. */
function outOfTimeProblems(waiting: ReadonlySet<KustomizationNode>, buildMs: number): ModelProblem[] {
  return [...waiting].map((node) => ({
    code: 'analysis-limit',
    message: `${ksName(node)} was not built: the builds reached the ${describeMs(buildMs)} build-time budget of all builds together (gitops-preview --max-build-seconds raises it); what it applies is read from its files as written.`,
    doc: node.applied.object.doc,
    path: ['spec', 'path'],
    related: [],
  }));
}

function limitProblems(model: RepoModel, pending: Map<string, KustomizationNode>): ModelProblem[] {
  const [first] = pending.values();
  if (!first || model.clusters.length === 0) return [];
  return [
    {
      code: 'analysis-limit',
      message: `Kustomizations were built ${MAX_REFINE_ROUNDS} levels down from their cluster roots and ${pending.size} build(s) are still pending; what they apply is read from the files as written, not as their parents' builds produce it.`,
      doc: first.applied.object.doc,
      path: ['spec', 'path'],
      related: [],
    },
  ];
}

/** kustomize can quote whole resources in an error; a diagnostic keeps the start. */
function shorten(message: string, max = 2000): string {
  return message.length <= max ? message : `${message.slice(0, max)}… (${message.length - max} more characters)`;
}

/** A build in part started before the model of its edit (Refiner.startEarly). */
interface EarlyBuild {
  readonly node: KustomizationNode;
  readonly only: string;
  readonly version: number;
  readonly overrides: ReadonlyMap<string, string>;
  readonly recorded: ReturnType<typeof renderKustomizationRecorded>;
}

/** The one path through which `node`'s last build read `file` (what a build in part follows), if just one. */
function inPartPath(node: KustomizationNode, previous: LiveBuild, file: string): { only: string; view: SourceView; last: NonNullable<LiveBuild['recorded']> } | undefined {
  const last = previous.recorded;
  if (node.source.kind !== 'view' || !last) return undefined;
  const view = node.source.view;
  const paths = Object.entries(last.reads).filter(([vp, how]) => how === 'file' && view.file(vp) === file);
  return paths.length === 1 ? { only: paths[0][0], view, last } : undefined;
}

function sameNode(a: KustomizationNode, b: KustomizationNode): boolean {
  return a.applied.name === b.applied.name && a.applied.namespace === b.applied.namespace && a.source.kind === 'view' && b.source.kind === 'view' && a.source.view.key === b.source.view.key;
}

/** The cached entries that may stand for `key`, most specific first (BuildCache.variants), else its one entry. */
function candidates(cache: BuildCache, key: string): { key: string; entry: CachedBuild }[] {
  if (cache.variants) return cache.variants(key);
  const entry = cache.get(key);
  return entry ? [{ key, entry }] : [];
}
