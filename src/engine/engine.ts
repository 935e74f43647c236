/**
 * The engine: every workspace folder's workspace, model, checks and renders, behind plain-data
 * requests (protocol.ts). The editor runs it in a worker thread (worker.ts) and talks to it through
 * EngineClient; the CLI and tests call it in process. Nothing here blocks on the editor: inputs
 * are applied at once, the model is rebuilt lazily, and notifications are debounced.
 */
import * as os from 'node:os';
import type { BuildOptions, RepoModel } from '../core/model/graph';
import type { Budgets } from '../core/budgets';
import { objectsOf } from '../core/model/objects';
import { schemaCompletion, schemaHover, type AssistOptions } from '../core/schema/assist';
import { schemaCommentFixes } from '../core/fixes/schemaComment';
import { redHatSchemasOf, type RedHatSchemas } from '../core/schema/redHatSchemas';
import { describeSubstitution } from '../core/substitution/describe';
import { quickFixes } from '../core/fixes/index';
import { suppressionFixes } from '../core/fixes/suppress';
import { definitionAt, documentLinks } from '../core/navigation/definition';
import { referencesAt } from '../core/navigation/references';
import { objectAtOffset } from '../core/navigation/locate';
import { liveValueMarks } from '../core/drift/liveValues';
import type { LiveLookup } from '../core/tree/viewModel';
import type { WorkspaceHost } from '../core/workspace/host';
import type { SourceFile } from '../core/yaml/document';
import { docLine } from '../core/yaml/document';
import type { Position } from '../core/yaml/lines';
import { renderHelmRelease, renderKustomization, type RenderOptions } from '../render/index';
import { prestartKustomize } from '../render/kustomize';
import { treeJson, treeText } from '../core/tree/treeData';
import { Folder, toEngineDiagnostic } from './folder';
import { liveLookup, snapshotCache } from './live';
import { hasSkippedSegment } from './pathFilter';
import type { ClusterCrds, EngineDiagnostic, SuppressedEngineDiagnostic, ParseProblem, EngineEvent, UpdateTimings, EngineSettings, EngineInput, EngineMethod, EngineStatus, FileTarget, LiveSnapshot, ParamsOf, ResultOf, TargetRef, TreeItemData } from './protocol';
import { isTargetKind, matches, refOfApplied, refOfObject, targetNodes, type TargetNode } from './targets';
import { TreeIndex } from './tree';
import type { BuildCache } from './buildCache';
import { folderGraph, graphLive, selectionOf, selectionOfTreeNode } from './graph';
import type { HelmModelOptions } from '../render/helmModel';
import { changesAnswer, NO_GIT_READER, type BaseReader } from './changes';
import { helmInstallsOf, MAX_HELM_PASSES } from './helmInstalls';
import type { ParseCache } from './parseCache';
import { fail } from '../core/result';

export interface EngineOptions {
  /** The filesystem (disk in the worker and CLI, memory in tests). */
  host: WorkspaceHost;
  /** Model options per folder (Git remotes, checkout, sha256), given the editor's settings. */
  buildOptions?: (root: string, settings: EngineSettings) => BuildOptions;
  /** Quiet period after an input before `changed`/`diagnostics` are sent; 0 sends at once. */
  debounceMs?: number;
  /** The build cache of a folder (e.g. persisted under `settings.storageDir`); none: the folder keeps its builds in memory. */
  buildCache?: (root: string, settings: EngineSettings, roots: readonly string[], log: (message: string) => void) => (BuildCache & { dispose(): void }) | undefined;
  /**
   * Build every cluster from its root down (refine.ts): Kustomizations are rendered (builds kept in
   * the folder's build cache) and the model rebuilt from them; diagnostics are sent once that is
   * done. False: the static reading only.
   */
  builds?: boolean;
  /** Limits of each folder's reading and of each refinement's builds (core/budgets.ts); default DEFAULT_BUDGETS. */
  budgets?: Budgets;
  /**
   * The chart cache HelmReleases are rendered into the model from (read, never filled: the model
   * makes no network request); absent: workspace charts only.
   */
  charts?: HelmModelOptions;
  /** Where `changes` reads its base (gitBase.ts); absent: `changes` and `changeBases` answer that no repository is read. */
  bases?: BaseReader;
  /** The parses of a folder kept from earlier runs (parseCache.ts); none: every file is parsed. */
  parseCache?: (root: string, settings: EngineSettings, roots: readonly string[], log: (message: string) => void) => ParseCache | undefined;
}

type Handler<M extends EngineMethod> = (params: ParamsOf<M>, signal: AbortSignal) => ResultOf<M> | Promise<ResultOf<M>>;

export class Engine {
  private folders: Folder[] = [];
  private indexing = false;
  private filesRead = 0;
  private live: LiveSnapshot | undefined;
  private clusterCrds: ClusterCrds | undefined;
  private readonly tree = new TreeIndex(() => this.liveLookup());
  private readonly listeners: ((e: EngineEvent) => void)[] = [];
  private pending: ReturnType<typeof setTimeout> | undefined;
  private readonly host: WorkspaceHost;
  private caches = new Map<string, BuildCache & { dispose(): void }>();
  private parseCaches = new Map<string, ParseCache>();

  constructor(private readonly options: EngineOptions) {
    // Counts reads so the first index can report progress.
    this.host = {
      readDir: (p) => options.host.readDir(p),
      readFile: (p, maxBytes) => {
        this.filesRead++;
        if (this.indexing && this.filesRead % 500 === 0) this.emit({ type: 'status', status: this.status() });
        return options.host.readFile(p, maxBytes);
      },
      ...(options.host.realPath ? { realPath: (p: string) => options.host.realPath!(p) } : {}),
      ...(options.host.digest ? { digest: (p: string, text: string) => options.host.digest!(p, text) } : {}),
      parsed: (p, text) => options.host.parsed?.(p, text) ?? this.parseCacheOf(p)?.sourceFile(p, text, options.host.digest?.(p, text)),
    };
  }

  onEvent(listener: (e: EngineEvent) => void): void {
    this.listeners.push(listener);
  }

  /** A new version: views re-query, the tree's top level comes with it (EngineEvent 'changed'). */
  private emitChanged(): void {
    let treeRoots: TreeItemData[] | undefined;
    try {
      treeRoots = this.tree.roots(this.treeFolders());
    } catch (err) {
      this.log(`[tree] failed: ${(err as Error).stack ?? err}`);
    }
    this.emit({ type: 'changed', version: this.version(), ...(treeRoots ? { treeRoots } : {}) });
  }

  private emit(e: EngineEvent): void {
    for (const l of this.listeners) l(e);
  }

  private log(message: string): void {
    this.emit({ type: 'log', message });
  }

  // --- inputs ------------------------------------------------------------------------------

  input(msg: EngineInput): void {
    switch (msg.type) {
      case 'open':
        this.open(msg.roots, msg.settings);
        break;
      case 'filesChanged':
        this.filesChanged(msg.paths);
        break;
      case 'buffer':
        this.setBuffer(msg.file, msg.text);
        break;
      case 'reload': {
        const t0 = performance.now();
        for (const f of this.folders) f.repo.workspace.load();
        this.inputTook(t0);
        this.changed();
        break;
      }
      case 'live':
        this.live = msg.snapshot;
        this.tree.reset();
        this.emitChanged();
        break;
      case 'clusterCrds':
        this.clusterCrds = msg.crds;
        for (const f of this.folders) f.clusterCrds = msg.crds;
        this.changed();
        break;
      case 'cancel':
        break; // handled by the transport, which owns the request's AbortController
    }
  }

  /** EngineSettings.redHatYaml of the last `open`. */
  private redHatYaml = false;
  /** EngineSettings.redHatYamlSchemas of the last `open`, read. */
  private redHatSchemas: RedHatSchemas | undefined;
  /** The settings of the last `open` (the base side of `changes` is read with the same). */
  private settings: EngineSettings = {};

  /** Indexes the folders (synchronously: call it off the editor's thread). */
  open(roots: readonly string[], settings: EngineSettings = {}): void {
    const started = performance.now();
    this.indexing = true;
    this.filesRead = 0;
    this.emit({ type: 'status', status: this.status() });
    this.disposeCaches();
    // The instance's start (compiling, Go's start, the schema) beside the parse, where a core is spare
    // for it: on two cores it slowed bjw-s-labs-home-ops' open (hence the tree) from 0.7-0.8 to 1.0-1.8 s.
    if (this.options.builds && os.availableParallelism() > 2) prestartKustomize();
    for (const root of roots) {
      const cache = this.options.buildCache?.(root, settings, roots, (m) => this.log(m));
      if (cache) this.caches.set(root, cache);
      const parses = this.options.parseCache?.(root, settings, roots, (m) => this.log(m));
      if (parses) this.parseCaches.set(root, parses);
    }
    this.folders = roots.map((root) => new Folder(root, this.host, this.options.buildOptions?.(root, settings) ?? {}, this.options.builds ? { cache: this.caches.get(root), charts: this.options.charts } : undefined, this.options.budgets));
    this.redHatYaml = !!settings.redHatYaml;
    this.redHatSchemas = this.redHatYaml ? redHatSchemasOf(settings.redHatYamlSchemas) : undefined;
    this.settings = settings;
    for (const f of this.folders) f.deferToRedHatYaml = this.redHatYaml;
    for (const f of this.folders) f.redHatSchemas = this.redHatSchemas;
    for (const f of this.folders) f.clusterCrds = this.clusterCrds;
    const t0 = performance.now();
    for (const f of this.folders) f.model();
    this.indexing = false;
    const clusters = this.folders.reduce((n, f) => n + f.model().clusters.length, 0);
    this.log(`[open] ${roots.length} folder(s), ${this.filesRead} file(s) read, ${clusters} cluster(s) in ${Math.round(performance.now() - started)} ms (the model ${Math.round(performance.now() - t0)} ms)`);
    this.flush();
  }

  filesChanged(paths: readonly string[]): void {
    const t0 = performance.now();
    let changed = false;
    for (const path of paths) {
      if (hasSkippedSegment(path)) continue;
      const folder = this.folderOf(path);
      if (folder && folder.repo.fileChanged(path)) changed = true;
    }
    if (!changed) return;
    this.inputTook(t0);
    this.changed();
  }

  setBuffer(file: string, text: string | undefined): void {
    const t0 = performance.now();
    const folder = this.folderOf(file);
    if (!folder?.repo.setBuffer(file, text)) return;
    this.inputTook(t0);
    this.changed();
  }

  /** The update in progress since the first input it covers (sent as a `timings` event with its diagnostics). */
  private timings: (UpdateTimings & { start: number }) | undefined;

  private inputTook(t0: number): void {
    const t = (this.timings ??= { start: t0, inputMs: 0, renders: [], modelMs: 0, checksMs: 0, totalMs: 0 });
    t.inputMs += performance.now() - t0;
  }

  private changed(): void {
    this.tree.reset();
    const ms = this.options.debounceMs ?? 150;
    if (ms <= 0) {
      this.flush();
      return;
    }
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => this.flush(), ms);
  }

  /** Sends what changed: the version, the status and every file whose diagnostics changed. */
  flush(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    // A flush is already waiting for its early builds to be sent: it covers this one.
    if (this.early) return;
    if (this.options.builds) {
      let started = false;
      for (const f of this.folders) if (f.startEarly({ allowNetwork: false })) started = true;
      if (started) {
        // The builds reach the kustomize worker only once this thread is free: it rebuilds the
        // model (in status()) after that, while they run.
        this.early = setImmediate(() => {
          this.early = undefined;
          this.flush();
        });
        return;
      }
    }
    this.tree.reset();
    // The status names each folder's clusters: the model is rebuilt here.
    const t0 = performance.now();
    this.emit({ type: 'status', status: this.status() });
    this.emitChanged();
    if (this.timings) this.timings.modelMs += performance.now() - t0;
    // With builds, diagnostics wait for them: the static reading would show findings the builds refute.
    if (this.options.builds) void this.refined();
    else this.publishDiagnostics();
  }

  private refining: Promise<void> | undefined;
  /** Callers of refinedBuilds waiting for the current round's Kustomization builds. */
  private buildsWaiters: (() => void)[] = [];
  /** A flush waiting for the builds it started early to be sent (flush). */
  private early: NodeJS.Immediate | undefined;
  private refineWanted = false;

  /**
   * Settles when every folder's builds are done for the current files: renders what is pending,
   * then sends the refined tree and diagnostics. Inputs meanwhile make it go round again.
   */
  /**
   * Settles when every folder's Kustomization builds are done for the current files, without
   * waiting for the HelmRelease renders that follow them (a command that needs no chart's render).
   */
  refinedBuilds(): Promise<void> {
    if (!this.options.builds) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.buildsWaiters.push(resolve));
    void this.refined();
    return done;
  }

  private buildsRefined(): void {
    for (const resolve of this.buildsWaiters.splice(0)) resolve();
  }

  refined(): Promise<void> {
    if (!this.options.builds) return Promise.resolve();
    this.refineWanted = true;
    this.refining ??= (async () => {
      try {
        while (this.refineWanted) {
          this.refineWanted = false;
          for (const f of this.folders) {
            const t0 = performance.now();
            try {
              const r = await f.refine({ allowNetwork: false });
              if (r && this.timings) {
                this.timings.renders.push(...r.renders);
                this.timings.modelMs += r.modelMs;
              }
              if (r?.rendered) this.log(`[builds] ${f.root}: ${r.rendered} Kustomization build(s) in ${r.rounds} round(s), ${Math.round(performance.now() - t0)} ms${r.pending ? `, ${r.pending} still pending` : ''}`);
            } catch (err) {
              this.log(`[builds] failed: ${(err as Error).stack ?? err}`);
            }
          }
          if (this.refineWanted) continue;
          this.published();
          this.buildsRefined();
          // Then what the HelmReleases install (seconds per chart render on a cold cache): its
          // diagnostics follow when any answer changed.
          let changed = false;
          for (const f of this.folders) {
            const t0 = performance.now();
            try {
              const h = await f.refineHelm({});
              if (h?.changed) changed = true;
              if (h?.rendered) this.log(`[builds] ${f.root}: ${h.rendered} HelmRelease render(s), ${Math.round(performance.now() - t0)} ms${h.pending ? `, ${h.pending} left for the next pass (time budget)` : ''}`);
            } catch (err) {
              this.log(`[builds] HelmRelease renders failed: ${(err as Error).stack ?? err}`);
            }
          }
          if (changed && !this.refineWanted) this.published();
        }
      } finally {
        this.refining = undefined;
        this.buildsRefined();
      }
    })();
    return this.refining;
  }

  /** The refined tree and diagnostics, sent. */
  private published(): void {
    this.tree.reset();
    this.emitChanged();
    this.publishDiagnostics();
  }

  private publishDiagnostics(): void {
    // No one to tell (a CLI command asks for what it needs): the checks are not run for nothing.
    if (this.listeners.length === 0) return;
    const t0 = performance.now();
    const files = this.folders.flatMap((f) => {
      try {
        return f.changedDiagnostics((m) => this.log(m));
      } catch (err) {
        this.log(`[checks] failed: ${(err as Error).stack ?? err}`);
        return [];
      }
    });
    const checked = performance.now();
    if (files.length) this.emit({ type: 'diagnostics', files });
    const timings = this.timings;
    this.timings = undefined;
    if (timings) {
      const { start, ...rest } = timings;
      this.emit({ type: 'timings', timings: { ...rest, checksMs: checked - t0, totalMs: performance.now() - start } });
    }
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.pending = undefined;
    if (this.early) clearImmediate(this.early);
    this.early = undefined;
    this.disposeCaches();
  }

  /** The build cache of an open folder, when the engine was given one (see EngineOptions.buildCache). */
  buildCache(root: string): BuildCache | undefined {
    return this.caches.get(root);
  }

  private disposeCaches(): void {
    for (const c of this.caches.values()) c.dispose();
    this.caches.clear();
    for (const c of this.parseCaches.values()) c.dispose();
    this.parseCaches.clear();
  }

  /** The parse cache of the folder holding `file` (the innermost open root above it). */
  private parseCacheOf(file: string): ParseCache | undefined {
    let best: string | undefined;
    for (const root of this.parseCaches.keys()) if ((file === root || file.startsWith(root.endsWith('/') ? root : `${root}/`)) && (!best || root.length > best.length)) best = root;
    return best === undefined ? undefined : this.parseCaches.get(best);
  }

  // --- requests ----------------------------------------------------------------------------

  async request<M extends EngineMethod>(method: M, params: ParamsOf<M>, signal: AbortSignal = new AbortController().signal): Promise<ResultOf<M>> {
    const handler = this.handlers[method] as Handler<M>;
    if (!handler) throw new Error(`unknown engine method '${method}'`);
    return handler(params, signal);
  }

  private readonly handlers: { [M in EngineMethod]: Handler<M> } = {
    status: () => this.status(),
    check: async ({ root }) => {
      await this.refined();
      const diagnostics: EngineDiagnostic[] = [];
      const failures: { rules: string; message: string }[] = [];
      const suppressed: SuppressedEngineDiagnostic[] = [];
      for (const f of this.folders) {
        if (root !== undefined && f.root !== root) continue;
        const result = f.check(() => undefined);
        for (const list of result.byFile.values()) diagnostics.push(...list.map(toEngineDiagnostic));
        failures.push(...result.failures);
        suppressed.push(...result.suppressed.map((d) => ({ ...toEngineDiagnostic(d), suppression: d.suppression })));
      }
      return { diagnostics, failures, suppressed };
    },
    treeJson: ({ root }) => treeJson(this.folderAt(root).model()),
    treeText: ({ root }) => treeText(this.folderAt(root).model()),
    parseProblems: ({ root }) => {
      const out: ParseProblem[] = [];
      for (const file of this.folderAt(root).repo.workspace.files.values()) {
        for (const p of file.problems) out.push({ file: file.path, line: p.range.start.line + 1, message: p.message });
        for (const doc of file.docs) {
          for (const p of doc.problems) out.push({ file: file.path, line: p.range.start.line + 1, column: p.range.start.character + 1, message: p.message });
        }
      }
      return out;
    },
    treeChildren: ({ id }) => (id === undefined ? this.tree.roots(this.treeFolders()) : this.tree.children(id, this.treeFolders())),
    treePath: ({ file, position, text }) => {
      const at = this.at(file, text);
      const object = at && objectAtOffset(at.folder.model(), at.file, at.file.lines.offset(position));
      return object ? this.tree.pathTo(this.treeFolders(), at.folder, object.id) : [];
    },
    objectAt: ({ file, position, text }) => {
      const at = this.at(file, text);
      if (!at) return undefined;
      const model = at.folder.model();
      const object = objectAtOffset(model, at.file, at.file.lines.offset(position));
      if (!object) return undefined;
      const applied = model.appliedById.get(object.id) ?? [];
      return { ref: refOfObject(model, object), applied: applied.map((a) => ({ ...refOfApplied(a), cluster: a.cluster.name, root: at.folder.root })) };
    },
    definition: ({ file, position, text }) => {
      const at = this.at(file, text);
      if (!at) return [];
      return definitionAt(at.folder.model(), at.file, position).map((t) => ({ file: t.file, range: t.range, ...(t.folder ? { folder: t.folder } : {}) }));
    },
    references: ({ file, position, includeDeclaration, text }) => {
      const at = this.at(file, text);
      if (!at) return [];
      return referencesAt(at.folder.model(), at.file, position, includeDeclaration).map((r) => ({ file: r.file, range: r.range, why: r.why }));
    },
    documentLinks: ({ file, text }) => {
      const at = this.at(file, text);
      if (!at) return [];
      return documentLinks(at.folder.model(), at.file).map((l) => ({
        range: l.range,
        tooltip: l.tooltip,
        target: { file: l.target.file, range: l.target.range, ...(l.target.folder ? { folder: l.target.folder } : {}) },
      }));
    },
    hover: ({ file, position, text }) => {
      const at = this.at(file, text);
      if (!at) return undefined;
      const model = at.folder.model();
      const offset = at.file.lines.offset(position);
      const info = describeSubstitution(model, at.file.path, offset) ?? schemaHover(model, at.file.path, offset, (hr) => at.folder.chartValues(hr), this.assistOptions());
      if (!info) return undefined;
      return { markdown: info.markdown, range: at.file.lines.range(info.start, info.end) };
    },
    completion: ({ file, position, text }) => {
      const at = this.at(file, text, false);
      if (!at) return [];
      const offset = at.file.lines.offset(position);
      const model = at.folder.assistModel(at.file.path, offset);
      return schemaCompletion(model, at.file.path, offset, (hr) => at.folder.chartValues(hr, model), this.assistOptions());
    },
    codeActions: ({ file, range, text }) => {
      const at = this.at(file, text);
      if (!at) return [];
      const model = at.folder.model();
      const out: ResultOf<'codeActions'> = [];
      for (const d of at.folder.diagnostics((m) => this.log(m)).get(file) ?? []) {
        if (!overlaps(d.range, range)) continue;
        for (const fix of [...quickFixes(d, model), ...suppressionFixes(d, at.file)]) {
          out.push({
            title: fix.title,
            edits: fix.edits.map((e) => ({ file: e.file, range: e.range, newText: e.newText })),
            preferred: !!fix.preferred,
            diagnostic: { rule: d.rule, start: d.range.start },
          });
        }
      }
      for (const fix of schemaCommentFixes(model, file, range)) out.push({ title: fix.title, edits: fix.edits.map((e) => ({ ...e })), preferred: false });
      return out;
    },
    fileTargets: ({ file }) => {
      const folder = this.folderOf(file);
      const source = folder?.repo.workspace.files.get(file);
      if (!folder || !source) return [];
      const model = folder.model();
      const out: FileTarget[] = [];
      for (const o of objectsOf(source)) {
        if (!isTargetKind(o.kind) || o.synthetic || !o.fluxKind) continue;
        out.push({ ...refOfObject(model, o), line: Math.max(0, docLine(o.doc) - 1), applied: model.appliedById.has(o.id) });
      }
      return out;
    },
    targets: (q) =>
      this.folders
        .filter((f) => q.root === undefined || f.root === q.root)
        .flatMap((f) => targetNodes(f.model(), f.root, q.includeInferred).map((t) => t.ref))
        .filter((r) => matches(r, q)),
    driftSubject: ({ target }) => {
      const node = this.node(target);
      if (!node) return undefined;
      const body = JSON.parse(JSON.stringify(node.applied.object.body ?? {})) as Record<string, any>;
      if (node.kind === 'Kustomization') return { target, body };
      return { target, body, releaseName: node.releaseName, targetNamespace: node.targetNamespace, storageNamespace: node.storageNamespace };
    },
    render: async (params, signal) => {
      let node = this.node(params.target);
      const notFound = { ok: false as const, error: { kind: 'not-found', message: `${params.target.kind} ${params.target.namespace}/${params.target.name} is not in cluster '${params.target.cluster}' of ${params.target.root}` } };
      if (!node) return notFound;
      const folder = this.folderOf(params.target.root)!;
      // Substitution as the repository's kustomize-controller does it, unless asked otherwise.
      const strict = params.strictSubstitution ?? folder.strictSubstitution;
      // The open (or the last edit) built it already, with these options: no second build. While
      // the refinement has it still to build, its answer waits for that build rather than running
      // another beside it.
      if (node.kind === 'Kustomization' && !params.revealSecretValues && strict === folder.strictSubstitution) {
        for (;;) {
          const refined = folder.refinedRender(node);
          if (refined) return { ok: true, value: refined };
          if (signal?.aborted || !folder.awaitsBuild(node)) break;
          await untilAborted(folder.roundEnded(), signal);
          if (signal?.aborted) return { ok: false, error: { kind: 'cancelled', message: `the render of ${params.target.kind} ${params.target.namespace}/${params.target.name} was cancelled` } };
          node = this.node(params.target);
          if (!node) return notFound;
          if (node.kind !== 'Kustomization') break;
        }
      }
      const model = folder.model();
      const opts: RenderOptions = {
        allowNetwork: params.allowNetwork,
        offline: params.offline,
        revealSecretValues: params.revealSecretValues,
        timeoutMs: params.timeoutMs,
        strictSubstitution: strict,
        env: params.env,
        ...(params.kubeVersion ? { kubeVersion: params.kubeVersion } : {}),
        signal,
      };
      if (node.kind !== 'Kustomization') return renderHelmRelease(model, node, opts);
      const r = await renderKustomization(model, node, opts);
      // Made as the refinement makes its builds: kept, so that the next request (or run) takes it.
      if (r.ok && !params.revealSecretValues && strict === folder.strictSubstitution && folder.model() === model) folder.keepRender(node, r.value);
      return r;
    },
    helmInstalls: async ({ root }, signal) => {
      await this.refined();
      const folder = this.folderAt(root);
      // Past the refinement's time budget, renders are left for its next pass: `changes` wants them all.
      for (let pass = 0; pass < MAX_HELM_PASSES && !signal?.aborted; pass++) {
        const r = await folder.refineHelm({ signal });
        if (!r?.pending || !r.rendered) break;
      }
      return helmInstallsOf(folder.model(), folder.root);
    },
    isNamespaced: ({ root, types }) => {
      const model = this.folderOf(root)?.model();
      return types.map((t) => model?.isNamespaced(t.kind, t.apiVersion) ?? true);
    },
    liveValueMarks: ({ reports }) =>
      liveValueMarks(reports, (p) => this.folderOf(p)?.repo.workspace.files.get(p)).map((m) => ({ file: m.file, line: m.line, text: m.text, subject: m.subject })),
    clusterOnly: () => this.liveLookup()?.clusterOnly() ?? [],
    graph: ({ root, cluster, sources }) => folderGraph(this.folderAt(root), { cluster, sources }, (m) => this.log(m)),
    graphLive: ({ root }) => graphLive(this.folderAt(root).graph(true, (m) => this.log(m)), this.liveLookup()),
    graphNodesAt: (params) => {
      const log = (m: string) => this.log(m);
      if ('treeItem' in params) {
        const held = this.treeNode(params.treeItem);
        const folder = held && this.folders.find((f) => f === held.folder);
        return folder ? selectionOfTreeNode(folder, held.node, log) : undefined;
      }
      const at = this.at(params.file, params.text);
      const model = at?.folder.model();
      const object = at && objectAtOffset(model!, at.file, at.file.lines.offset(params.position));
      if (!at || !object) return undefined;
      return selectionOf(at.folder, model!.appliedById.get(object.id) ?? [], log);
    },
    changeBases: async ({ root }) => (this.options.bases ? this.options.bases.bases(this.folderAt(root).root) : fail(NO_GIT_READER)),
    changes: async ({ root, base, fetchCharts }) => {
      this.folderAt(root);
      // The working tree first: the base side then takes from its cache every build whose inputs match.
      await this.refined();
      return changesAnswer((m, p) => this.request(m, p), this.options.bases, root, base, {
        shared: this.caches.get(root),
        settings: this.settings,
        charts: this.options.charts,
        fetch: fetchCharts,
        parsed: (path, text) => {
          const file = this.folderOf(path)?.repo.workspace.files.get(path);
          return file?.text === text ? file : this.parseCaches.get(root)?.sourceFile(path, text);
        },
        text: (path) => this.folderOf(path)?.repo.workspace.files.get(path)?.text,
      });
    },
  };

  // --- helpers -----------------------------------------------------------------------------

  status(): EngineStatus {
    return {
      indexing: this.indexing,
      files: this.filesRead,
      folders: this.indexing ? [] : this.treeFolders().map((f) => ({ root: f.root, clusters: f.model().clusters.map((c) => c.name), objects: f.model().allObjects.length })),
      version: this.version(),
      ignoredFolders: this.indexing ? [] : this.folders.flatMap((f) => [...f.repo.workspace.skippedDirs]),
    };
  }

  private version(): number {
    return this.folders.reduce((n, f) => n + f.version, 0);
  }

  /** Folders shown in the tree: those holding Flux objects. */
  private treeFolders(): Folder[] {
    return this.folders.filter((f) => f.hasFlux());
  }

  models(): RepoModel[] {
    return this.folders.map((f) => f.model());
  }

  private assistOptions(): AssistOptions {
    return { besideRedHatYaml: this.redHatYaml, redHatSchemas: this.redHatSchemas, clusterCrds: this.clusterCrds };
  }

  private liveLookup(): LiveLookup | undefined {
    const live = this.live;
    if (!live?.connected) return undefined;
    return liveLookup(snapshotCache(live.statuses, live.syncedKinds), () => this.models());
  }

  /** The innermost folder containing `path` (nested folders: the deepest root wins). */
  private folderOf(path: string): Folder | undefined {
    let best: Folder | undefined;
    for (const f of this.folders) if (f.owns(path) && (!best || f.root.length > best.root.length)) best = f;
    return best;
  }

  /**
   * The folder and parse of `file`, in step with the editor: a query that carries the editor's
   * text feeds it in first (the same path as a buffer change), so positions always match.
   */
  /** `rebuild` false: the caller picks its model (Folder.assistModel) instead of the current one being built here. */
  private at(file: string, text: string | undefined, rebuild = true): { folder: Folder; file: SourceFile } | undefined {
    const folder = this.folderOf(file);
    if (!folder || folder.repo.workspace.isIgnored(file)) return undefined;
    if (text !== undefined && folder.repo.workspace.readText(file) !== text) this.setBuffer(file, text);
    const source = folder.repo.workspace.files.get(file);
    if (!source || (text !== undefined && source.text !== text)) return undefined;
    if (rebuild) folder.model();
    return { folder, file: folder.repo.workspace.files.get(file)! };
  }

  private folderAt(root: string): Folder {
    const folder = this.folders.find((f) => f.root === root);
    if (!folder) throw new Error(`${root} is not an open folder`);
    return folder;
  }

  /**
   * The view-model node behind a tree item. Items are forgotten on every model change until the
   * tree lists them again; the top two levels (folders, clusters) are re-listed here on demand.
   */
  private treeNode(id: string): ReturnType<TreeIndex['nodeOf']> {
    let held = this.tree.nodeOf(id);
    if (!held) {
      for (const item of this.tree.roots(this.treeFolders())) if (item.collapsible !== 'none') this.tree.children(item.id);
      held = this.tree.nodeOf(id);
    }
    return held;
  }

  private node(target: TargetRef): TargetNode | undefined {
    const folder = this.folderOf(target.root);
    if (!folder) return undefined;
    return nodesOf(folder.model(), folder.root).find((t) => matches(t.ref, target))?.node;
  }
}

/**
 * A model's targets (inferred included), listed once per model and root: `changes` asks for each of
 * a repository's targets in turn, and listing them all for each (targetNodes) made that quadratic.
 */
const listedNodes = new WeakMap<RepoModel, { root: string; nodes: ReturnType<typeof targetNodes> }>();
function nodesOf(model: RepoModel, root: string): ReturnType<typeof targetNodes> {
  const hit = listedNodes.get(model);
  if (hit?.root === root) return hit.nodes;
  const nodes = targetNodes(model, root, true);
  listedNodes.set(model, { root, nodes });
  return nodes;
}

/** `promise`, or sooner when `signal` aborts. */
function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return promise;
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    void promise.then(done);
  });
}

function overlaps(a: { start: Position; end: Position }, b: { start: Position; end: Position }): boolean {
  const before = (p: Position, q: Position) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}
