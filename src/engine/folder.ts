/**
 * One workspace folder inside the engine: its workspace and model (kept in step by `Repo`), the
 * latest check results and what was last published per file.
 */
import { deferToRedHatYaml } from '../core/checks/redHatYaml';
import type { RedHatSchemas } from '../core/schema/redHatSchemas';
import { checkModel, type Diagnostic, type SuppressedDiagnostic } from '../core/checks/index';
import { buildDependencyGraph, type DependencyGraph } from '../core/graph/index';
import type { BuildOptions, HelmReleaseNode, KustomizationNode, RepoModel } from '../core/model/graph';
import type { BuildSlot } from '../core/model/rendered';
import { Repo } from '../core/repo';
import { DEFAULT_BUDGETS, type Budgets } from '../core/budgets';
import type { WorkspaceHost } from '../core/workspace/host';
import type { RenderOptions, RenderResult } from '../render/types';
import type { BuildCache } from './buildCache';
import type { EngineDiagnostic, FileDiagnostics } from './protocol';
import { Refiner, type RefineResult } from './refine';
import { HelmRefiner, type HelmRefineResult } from './helmRefine';
import { ChartValuesReader } from './chartValues';
import type { ChartValues } from '../core/helm/chartValues';
import type { ClusterCrds } from '../core/schema/clusterCrds';
import { assistUnchanged, completionReadsModel } from '../core/schema/assist';
import { MemoryBuildCache } from './memoryBuildCache';
import type { HelmModelOptions } from '../render/helmModel';

export class Folder {
  readonly repo: Repo;
  /** Latest check results per file (with fix hints, for code actions). */
  private checked: { version: number; clusterCrds: ClusterCrds | undefined; byFile: Map<string, Diagnostic[]>; failures: { rules: string; message: string }[]; suppressed: SuppressedDiagnostic[] } | undefined;
  /** The connected context's CRDs (or the last known ones): the checks judge custom resources by them too. */
  clusterCrds: ClusterCrds | undefined;
  private readonly published = new Map<string, string>();
  /** Dependency graphs of the current version, with and without sources. */
  private graphs: { version: number; clusterCrds: ClusterCrds | undefined; bySources: Map<boolean, DependencyGraph> } | undefined;

  /** Renders Kustomizations so the model sees every object as its parent's build produces it; absent: the static reading only. */
  private readonly refiner: Refiner | undefined;
  /** Renders the HelmReleases whose chart is at hand, once the Kustomization builds are done; absent with the static reading. */
  private readonly helmRefiner: HelmRefiner | undefined;
  private readonly chartValuesReader: ChartValuesReader;

  /**
   * `builds.charts`: the chart cache the model's HelmRelease renders may read (never fill); absent:
   * workspace charts only (tests and corpora stay independent of the machine's cache).
   */
  /** EngineSettings.redHatYaml: schema findings under a `$schema` comment give way to that extension's. */
  deferToRedHatYaml = false;
  /** EngineSettings.redHatYamlSchemas: so do those in files its `yaml.schemas` setting gives a schema. */
  redHatSchemas: RedHatSchemas | undefined;

  constructor(
    readonly root: string,
    host: WorkspaceHost,
    options: BuildOptions,
    builds?: { cache?: BuildCache; charts?: HelmModelOptions },
    private readonly budgets: Budgets = DEFAULT_BUDGETS,
  ) {
    let refiner: Refiner | undefined;
    let helmRefiner: HelmRefiner | undefined;
    const withBuilds: BuildOptions = { ...options, builds: (key, node) => refiner?.lookup(key, node), helmInstalls: (hr, model) => helmRefiner?.lookup(hr, model) };
    this.repo = new Repo(root, host, builds ? withBuilds : options, budgets);
    if (builds) {
      const cache = builds.cache ?? new MemoryBuildCache();
      refiner = new Refiner(this.repo.workspace, cache, budgets);
      helmRefiner = new HelmRefiner(this.repo.workspace, cache, builds.charts ?? { cacheDir: null });
    }
    this.refiner = refiner;
    this.helmRefiner = helmRefiner;
    this.chartValuesReader = new ChartValuesReader(this.repo.workspace);
  }

  /** What the chart of `hr` (of `model`) says of its values (hover and completion in spec.values), when the chart is at hand. */
  chartValues(hr: HelmReleaseNode, model: RepoModel = this.model()): ChartValues | undefined {
    const dir = this.helmRefiner?.chartDir(hr, model);
    return dir ? this.chartValuesReader.read(dir) : undefined;
  }

  /**
   * The model completion at `offset` in `file` answers from: the one built before the keystrokes
   * since, when only `file` changed and the answer cannot tell (it reads the text alone,
   * completionReadsModel, or the edit left what it reads of the model, assistUnchanged), so a
   * keystroke's answer does not wait for the rebuild; else the current model. The caller reads the
   * position and its context from the workspace's current parse of `file`.
   */
  assistModel(file: string, offset: number): RepoModel {
    const last = this.repo.lastModel(file);
    const now = this.repo.workspace.files.get(file);
    if (last && (!last.before || (now && (!completionReadsModel(now, offset) || assistUnchanged(last.before, now))))) return last.model;
    return this.model();
  }

  model(): RepoModel {
    const model = this.repo.model();
    const extra = this.refiner?.problems() ?? [];
    if (extra.length && !model.problems.includes(extra[0])) model.problems.push(...extra);
    return model;
  }

  get version(): number {
    return this.repo.version;
  }

  /** Starts the builds in part an edit asks for from the last refined model (Refiner.startEarly). */
  startEarly(opts: RenderOptions): boolean {
    return this.refiner?.startEarly(opts) ?? false;
  }

  /** Renders the Kustomization builds the model lacks, rebuilding it until none is pending. */
  async refine(opts: RenderOptions): Promise<RefineResult | undefined> {
    return this.refiner?.refine(this.repo, opts);
  }

  /**
   * Renders the HelmReleases whose install the model lacks, each as its parent's build gives it:
   * run after `refine`. Renders of charts such as app-template take seconds each, so the engine
   * publishes the Kustomization builds' diagnostics first and these after.
   */
  async refineHelm(opts: Pick<RenderOptions, 'signal' | 'timeoutMs' | 'env'>): Promise<HelmRefineResult | undefined> {
    return this.helmRefiner?.refine(this.repo, opts, this.budgets.buildMs);
  }

  /** Whether this folder's builds substitute strictly, as its kustomize-controller does (StrictPostBuildSubstitutions). */
  get strictSubstitution(): boolean {
    return this.refiner?.strictSubstitution ?? false;
  }

  /**
   * `node`'s render (of this folder's current model) from the refinement's build of it, when the
   * model holds a whole build of this session: as `renderKustomization` with the refinement's
   * options (allowNetwork false, secret values masked, `strictSubstitution`) would give it. A copy.
   */
  refinedRender(node: KustomizationNode): RenderResult | undefined {
    const slot = this.buildSlot(node);
    if (slot?.state !== 'built') return undefined;
    const rendered = this.refiner?.rendered(slot.key);
    return rendered && structuredClone(rendered);
  }

  /** A render request's whole render of `node` with the refinement's options (Refiner.keepRender). */
  keepRender(node: KustomizationNode, render: RenderResult): void {
    const slot = this.buildSlot(node);
    if (slot?.state === 'built') this.refiner?.keepRender(slot.key, render);
  }

  /** Whether a refinement running now is yet to build `node` (its slot in the current model is pending). */
  awaitsBuild(node: KustomizationNode): boolean {
    return !!this.refiner?.refining && this.buildSlot(node)?.state === 'pending';
  }

  private buildSlot(node: KustomizationNode): BuildSlot | undefined {
    return this.model().builds.find((s) => s.node === node);
  }

  /** Settles when the running refinement ends a round (Refiner.roundEnded). */
  roundEnded(): Promise<void> {
    return this.refiner?.roundEnded() ?? Promise.resolve();
  }

  /** Holds anything Flux applies or could apply: only such folders get a tree. */
  hasFlux(): boolean {
    const m = this.model();
    return m.clusters.length > 0 || m.unapplied.length > 0;
  }

  owns(path: string): boolean {
    return this.repo.workspace.isUnderRoot(path);
  }

  /** Runs the checks when the model changed since the last run; rule failures go to `log`. */
  /** What the editor shows: the check's findings, those Red Hat YAML shows already left out (deferToRedHatYaml). */
  diagnostics(log: (m: string) => void): Map<string, Diagnostic[]> {
    const { byFile } = this.check(log);
    if (!this.deferToRedHatYaml) return byFile;
    if (this.shown?.of === byFile) return this.shown.byFile;
    const shown = new Map<string, Diagnostic[]>();
    for (const d of deferToRedHatYaml(this.model(), [...byFile.values()].flat(), this.redHatSchemas)) {
      const list = shown.get(d.file);
      if (list) list.push(d);
      else shown.set(d.file, [d]);
    }
    this.shown = { of: byFile, byFile: shown };
    return shown;
  }

  /** Derived from one check result (`of`): a new run, for a new version or new cluster CRDs, derives it anew. */
  private shown: { of: Map<string, Diagnostic[]>; byFile: Map<string, Diagnostic[]> } | undefined;

  check(log: (m: string) => void): { byFile: Map<string, Diagnostic[]>; failures: { rules: string; message: string }[]; suppressed: SuppressedDiagnostic[] } {
    if (this.checked?.version === this.version && this.checked.clusterCrds === this.clusterCrds) return this.checked;
    const result = checkModel(this.model(), { clusterCrds: this.clusterCrds });
    for (const f of result.failures) log(`[checks] internal error in ${f.rules}: ${f.message}`);
    const byFile = new Map<string, Diagnostic[]>();
    for (const d of result.diagnostics) {
      const list = byFile.get(d.file);
      if (list) list.push(d);
      else byFile.set(d.file, [d]);
    }
    this.checked = { version: this.version, clusterCrds: this.clusterCrds, byFile, failures: result.failures, suppressed: result.suppressed };
    return this.checked;
  }

  /** The dependency graph, from the model and this version's check results (one check run serves both). */
  graph(sources: boolean, log: (m: string) => void): DependencyGraph {
    if (this.graphs?.version !== this.version || this.graphs.clusterCrds !== this.clusterCrds) this.graphs = { version: this.version, clusterCrds: this.clusterCrds, bySources: new Map() };
    let graph = this.graphs.bySources.get(sources);
    if (!graph) {
      const diagnostics = [...this.diagnostics(log).values()].flat();
      graph = buildDependencyGraph(this.model(), diagnostics, { sources });
      this.graphs.bySources.set(sources, graph);
    }
    return graph;
  }

  /** Files whose diagnostics differ from the last publication (an empty list clears a file). */
  changedDiagnostics(log: (m: string) => void): FileDiagnostics[] {
    const byFile = this.diagnostics(log);
    const out: FileDiagnostics[] = [];
    for (const file of [...this.published.keys()]) {
      if (byFile.has(file)) continue;
      this.published.delete(file);
      out.push({ file, diagnostics: [] });
    }
    for (const [file, list] of byFile) {
      const plain = list.map(toEngineDiagnostic);
      const key = JSON.stringify(plain);
      if (this.published.get(file) === key) continue;
      this.published.set(file, key);
      out.push({ file, diagnostics: plain });
    }
    return out;
  }
}

export function toEngineDiagnostic(d: Diagnostic): EngineDiagnostic {
  return {
    file: d.file,
    range: d.range,
    rule: d.rule,
    severity: d.severity,
    message: d.message,
    related: d.related.map((r) => ({ file: r.file, range: r.range, message: r.message })),
  };
}
