/**
 * Every HelmRelease of a folder rendered into its model (core/helm/install.ts), off the editor
 * thread, as the Kustomization builds are (refine.ts): the model asks for each HelmRelease's install
 * by a key digesting all its render's inputs (render/helmModel.ts: the chart's content digest, the
 * merged values, release name and namespace, the Kubernetes version…); the refiner renders the keys
 * it lacks once the Kustomization builds are done (a HelmRelease is then seen as its parent's build
 * produces it), keeps them in the folder's build cache, and has the model rebuilt. An edit that
 * leaves a HelmRelease's inputs alone leaves its key, hence its render; one that changes them
 * renders that HelmRelease alone again.
 *
 * Only charts at hand are rendered: a workspace chart, or one already in the chart cache. The
 * model never fetches: a chart that is not at hand is an answer of its own (`atHand: false`), and
 * the checks fall back to the known-charts table for it.
 */
import type { HelmReleaseNode, RepoModel } from '../core/model/graph';
import type { HelmInstall } from '../core/helm/install';
import { clusterKubeVersion } from '../core/helm/kubeVersion';
import type { Repo } from '../core/repo';
import type { Workspace } from '../core/workspace/workspace';
import { ChartsAtHand, chartCacheOf, helmRenderKey, renderHelmInstall, type HelmModelOptions } from '../render/helmModel';
import { locateChart } from '../render/helm';
import type { RenderOptions } from '../render/types';
import type { BuildCache } from './buildCache';
import { asCachedHelmInstall } from './cachedHelmInstall';
import { wasmModule } from './wasm/pool';
import { DEFAULT_TIMEOUT_MS } from '../render/kustomize';

/** Cache keys of HelmRelease renders, apart from Kustomization build keys in the same cache. */
export const HELM_CACHE_PREFIX = 'helm:';

export interface HelmRefineResult {
  /** HelmReleases rendered (not answered from a cache). */
  rendered: number;
  /** Each render's time, by HelmRelease. */
  renders: { name: string; ms: number }[];
  /** Renders left for the next pass: the time budget ran out, or the workspace changed meanwhile. */
  pending: number;
  /** Whether any HelmRelease's answer changed, so the model was rebuilt. */
  changed: boolean;
}

export class HelmRefiner {
  /** Renders of this session by key. */
  private readonly live = new Map<string, HelmInstall>();
  /** "Not at hand" answers by message, so an unchanged answer is the same object (no model rebuild). */
  private readonly missing = new Map<string, HelmInstall>();
  /**
   * The last answer of each HelmRelease (by cluster and identity): while an edit's render is under
   * way the model keeps it, as it keeps a Kustomization's stale build, rather than falling back
   * to the known-charts table for the moment.
   */
  private readonly last = new Map<string, HelmInstall>();
  private readonly charts: ChartsAtHand;

  constructor(
    private readonly ws: Workspace,
    private readonly cache: BuildCache,
    options: HelmModelOptions = {},
  ) {
    this.charts = new ChartsAtHand(chartCacheOf(options));
  }

  /**
   * The folder of the chart `hr`'s render uses, when it is at hand (a workspace chart, or the chart
   * cache's): what hover and completion inside its values read.
   */
  chartDir(hr: HelmReleaseNode, model: RepoModel): string | undefined {
    const loc = locateChart(model, hr);
    if (!loc.ok) return undefined;
    return loc.value.kind === 'local' ? loc.value.dir : this.charts.cached(loc.value.request)?.dir;
  }

  /** The model's lookup (BuildOptions.helmInstalls). */
  readonly lookup = (hr: HelmReleaseNode, model: RepoModel): HelmInstall | undefined => {
    return this.ask(hr, model).install;
  };

  /** The answer for `hr` now: its render, else its last one while the new one is pending (`key` set). */
  private ask(hr: HelmReleaseNode, model: RepoModel): { install: HelmInstall | undefined; pending?: { key: string; kube: { version: string; origin: string } } } {
    const kube = clusterKubeVersion(model, hr.applied.cluster);
    let key: ReturnType<typeof helmRenderKey>;
    try {
      key = helmRenderKey(model, hr, kube.version, this.charts);
    } catch (err) {
      // A chart folder that vanished while it was read, say: no answer is worth failing the model's build for.
      key = { ok: false, message: `its chart could not be read: ${(err as Error).message}` };
    }
    if (!key.ok) {
      let answer = this.missing.get(key.message);
      if (!answer) this.missing.set(key.message, (answer = { ok: false, atHand: false, message: key.message }));
      return { install: answer };
    }
    const id = identity(hr);
    const live = this.live.get(key.key);
    if (live) {
      this.last.set(id, live);
      return { install: live };
    }
    const cached = this.cache.get(HELM_CACHE_PREFIX + key.key);
    if (cached) {
      const value = asCachedHelmInstall(cached.value);
      if (typeof value === 'string') this.cache.drop(HELM_CACHE_PREFIX + key.key, value);
      else {
        this.live.set(key.key, value);
        this.last.set(id, value);
        return { install: value };
      }
    }
    const stale = this.last.get(id);
    return { install: stale?.ok === false && !stale.atHand ? undefined : stale, pending: { key: key.key, kube } };
  }

  /**
   * Forgets the answers the current model no longer uses (a session's edits of values make a key
   * each): the build cache keeps them, bounded, for a reopen or an undo.
   */
  private forgetUnused(used: ReadonlySet<HelmInstall>, pending: ReadonlyMap<string, unknown>): void {
    for (const [key, install] of this.live) if (!used.has(install) && !pending.has(key)) this.live.delete(key);
    for (const [id, install] of this.last) if (!used.has(install)) this.last.delete(id);
    for (const [message, install] of this.missing) if (!used.has(install)) this.missing.delete(message);
  }

  /**
   * Renders the HelmReleases whose install the model lacks, then has the model rebuilt when any
   * answer changed. Stops early, with what it has, when the workspace changes meanwhile or
   * `signal` aborts.
   */
  async refine(repo: Repo, opts: Pick<RenderOptions, 'signal' | 'timeoutMs' | 'env'>, budgetMs: number): Promise<HelmRefineResult> {
    const deadline = performance.now() + budgetMs;
    // The chart cache and chart folders may have changed since the last pass (a `build hr` fetched
    // a chart, a template was edited): look again, once.
    this.charts.newPass();
    const model = repo.model();
    const version = this.ws.version;
    const pending = new Map<string, { hr: HelmReleaseNode; kube: { version: string; origin: string } }>();
    let changed = false;
    const used = new Set<HelmInstall>();
    for (const cluster of model.clusters) {
      for (const hr of cluster.helmReleases) {
        const asked = this.ask(hr, model);
        if (asked.install !== hr.install) changed = true;
        if (asked.install) used.add(asked.install);
        if (asked.pending && !pending.has(asked.pending.key)) pending.set(asked.pending.key, { hr, kube: asked.pending.kube });
      }
    }
    this.forgetUnused(used, pending);
    const renders: HelmRefineResult['renders'] = [];
    const queue = [...pending];
    // Past the budget the rest keep their last answer (or none) until the next pass.
    const stopped = () => this.ws.version !== version || !!opts.signal?.aborted || performance.now() >= deadline;
    const worker = async () => {
      for (let next = queue.shift(); next && !stopped(); next = queue.shift()) {
        const [key, { hr, kube }] = next;
        const t0 = performance.now();
        const timeoutMs = Math.max(1, Math.min(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, deadline - performance.now()));
        const rendered = await renderHelmInstall(model, hr, kube, this.charts, { ...opts, timeoutMs });
        renders.push({ name: `${hr.applied.namespace ?? 'default'}/${hr.applied.name}`, ms: performance.now() - t0 });
        // A render of files that changed while it ran describes neither the old nor the new content.
        if (rendered === 'cancelled' || this.ws.version !== version) continue;
        done++;
        if (rendered === 'timeout') {
          // Kept for this session only (it depends on the machine's load, not on the files), so
          // that each edit does not spend the time again; a change of its inputs tries again.
          this.live.set(key, { ok: false, atHand: true, message: `${hr.applied.namespace ?? 'default'}/${hr.applied.name}: helm did not finish its render within ${Math.round(timeoutMs / 1000)} s` });
          continue;
        }
        this.live.set(key, rendered);
        this.cache.set(HELM_CACHE_PREFIX + key, { reads: {}, value: { install: rendered } });
      }
    };
    let done = 0;
    // One render more than helm instances is prepared at a time (its chart read, its values merged).
    await Promise.all(Array.from({ length: Math.min(queue.length, wasmModule('helm').size + 1) }, worker));
    if (renders.length || changed) repo.invalidate();
    return { rendered: renders.length, renders, pending: pending.size - done, changed: renders.length > 0 || changed };
  }
}

function identity(hr: HelmReleaseNode): string {
  return `${hr.applied.cluster.name}|${hr.applied.namespace ?? ''}|${hr.applied.name}`;
}
