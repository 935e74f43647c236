/**
 * kustomize-controller's build of one Flux Kustomization, locally: the source artifact's files as
 * an in-memory file set, Flux's kustomization written at spec.path, kustomize's own build compiled
 * to WebAssembly (no process, no host file system), then the post-build layer.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { KustomizationNode, RepoModel } from '../core/model/graph';
import type { Workspace } from '../core/workspace/workspace';
import { asRecord, asString } from '../core/model/objects';
import { joinVirtual, type SourceView } from '../core/model/view';
import { fluxKustomization, generatedResources, kustomizationFileOf } from '../core/flux/generator';
import { missingInputs } from '../core/flux/inputs';
import { describeConfinement, kustomizeConfinement, type SourceTree } from '../core/flux/confine';
import { maskSops, MASK, restoreMasks } from '../core/flux/mask';
import { postBuildVariables, setCommonMetadata, setOwnerLabels, substituteObjectText } from '../core/flux/postbuild';
import { fail, ok, type RenderError } from './errors';
import type { Result } from '../core/result';
import { wasmModule } from '../engine/wasm/pool';
import type { WasmModule } from '../engine/wasm/host';
import type { MemFile } from '../engine/wasm/protocol';
import { fileContent, InputBudget, memDirs, memTree, viewFiles, viewListing } from './files';
import type { RenderedObject, RenderOptions, RenderResult } from './types';
import { fromWasm } from './wasm';

export const DEFAULT_TIMEOUT_MS = 60_000;
const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

function ksLabel(ks: KustomizationNode): string {
  return `Kustomization ${ks.applied.namespace ?? 'default'}/${ks.applied.name}`;
}

/** Checks that need no process: whether the workspace holds everything the build reads. */
export function kustomizationInputsProblem(ws: Workspace, ks: KustomizationNode): Result<SourceView, RenderError> {
  const label = ksLabel(ks);
  if (ks.source.kind !== 'view') {
    return fail('unavailable', `${label}: its source ${ks.source.description} is not in this workspace, so it cannot be built locally.`);
  }
  if (ks.remoteResources.length) {
    return fail(
      'unavailable',
      `${label}: kustomize would fetch remote resource(s) ${ks.remoteResources.map((r) => `'${r}'`).join(', ')}; remote bases are not fetched by the preview. Vendor them into the repository to render this Kustomization.`,
    );
  }
  const view = ks.source.view;
  const spec = () => asRecord(ks.applied.object.body.spec) ?? {};
  if (!view.listDir(ks.path)) {
    return fail('invalid', `${label}: spec.path '${asString(spec().path) ?? ''}' does not exist in ${ks.source.description} (kustomize-controller fails with "kustomization path not found").`);
  }
  const components = (Array.isArray(spec().components) ? (spec().components as unknown[]) : []).filter((c): c is string => typeof c === 'string');
  const missing = missingInputs(ws, view, ks.path, components);
  if (missing.length) {
    const root = ws.root + '/';
    const lines = missing.slice(0, 5).map((m) => `  ${m.file ? m.file.replace(root, '') : 'generated kustomization'}: ${m.field} — ${m.reason}`);
    if (missing.length > 5) lines.push(`  ... and ${missing.length - 5} more`);
    return fail('unavailable', `${label}: the build reads files that are not in the workspace:\n${lines.join('\n')}`);
  }
  return ok(view);
}

/** What kustomize builds for `ks`: the source's files with Flux's kustomization at `dir`. */
export interface KustomizeInput {
  files: MemFile[];
  /** spec.path, relative to the source root ('' for the root). */
  dir: string;
  view: SourceView;
  /** The kustomization asked for origin annotations itself (else they are dropped after tracking). */
  userOrigins: boolean;
  /** Files left out of `files` (too large), named if the build fails. */
  budget: InputBudget;
}

/** The kustomization file Flux builds at spec.path (the folder's own with the spec merged in, or a generated one). */
export interface FluxKustomizationText {
  /** Its path in the source ('' root). */
  path: string;
  text: string;
  /** The kustomization asked for origin annotations itself (else they are dropped after tracking). */
  userOrigins: boolean;
  /** What producing it read from the source besides the spec: folders listed, paths looked up (generatedResources). */
  listed: string[];
  looked: string[];
}

export function fluxKustomizationText(ws: Workspace, ks: KustomizationNode, view: SourceView): Result<FluxKustomizationText, RenderError> {
  const label = ksLabel(ks);
  // The model's targetNamespace already holds what the parent gives this Kustomization (its
  // substitution, its patches); the written spec alone would lose it.
  const written = asRecord(ks.applied.object.body.spec) ?? {};
  const spec = ks.targetNamespace ? { ...written, targetNamespace: ks.targetNamespace } : written;
  const listed: string[] = [];
  const looked: string[] = [];
  const recording: SourceView = {
    key: view.key,
    file: (vp) => (looked.push(vp), view.file(vp)),
    listDir: (vp) => (listed.push(vp), artifactListing(ws, view.listDir(vp))),
    realDir: (vp) => view.realDir(vp),
    hasDir: (vp) => (looked.push(vp), view.hasDir(vp)),
  };
  const existing = kustomizationFileOf(recording, ks.path);
  let existingConfig: Record<string, unknown> | undefined;
  if (existing) {
    try {
      existingConfig = asRecord(parseYaml(ws.readText(existing.real) ?? '')) ?? {};
    } catch (err) {
      return fail('invalid', `${existing.real}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
    }
  }
  const generated = fluxKustomization({
    spec,
    existing: existing && existingConfig ? { fileName: existing.fileName, config: existingConfig } : undefined,
    generated: () => generatedResources(recording, ks.path),
    exists: (rel) => {
      const vp = joinVirtual(ks.path, rel);
      return vp !== undefined && (!!recording.file(vp) || !!recording.listDir(vp));
    },
  });
  if ('error' in generated) return fail('invalid', `${label}: ${generated.error}`);

  // Origins let the UI jump from a rendered object to its file; dropped again unless the user asked for them.
  const buildMetadata = Array.isArray(generated.config.buildMetadata) ? (generated.config.buildMetadata as string[]) : [];
  const userOrigins = buildMetadata.includes('originAnnotations');
  if (!userOrigins) generated.config.buildMetadata = [...buildMetadata, 'originAnnotations'];
  const path = ks.path ? `${ks.path}/${generated.fileName}` : generated.fileName;
  return ok({ path, text: stringifyYaml(generated.config, { lineWidth: 0 }), userOrigins, listed, looked });
}

/**
 * The file set without documents whose aliases the workspace refused to expand (alias bombs,
 * self-referencing or excessive aliases): kustomize's YAML parser would expand them and exhaust
 * the engine's memory. A build reading one fails as reading a missing file; the file itself
 * carries the yaml-syntax finding.
 */
function withoutAliasBombs(ws: Workspace, view: SourceView, files: MemFile[]): MemFile[] {
  return files.filter((f) => {
    const real = view.file(f.path);
    return real === undefined || !refusedFile(ws, real);
  });
}

/** A manifest that holds an alias bomb: no build is given it (kustomize's YAML parser would expand it). */
function refusedFile(ws: Workspace, real: string): boolean {
  const file = ws.files.get(real);
  return !!file && isParsedWithAliasProblem(file);
}

function isParsedWithAliasProblem(file: { text: string; docs: readonly { problems: readonly { message: string }[] }[] }): boolean {
  // Only a file with aliases can hold one; the rest is not parsed for this.
  if (!file.text.includes('*')) return false;
  return file.docs.some((d) => d.problems.some((p) => /\balias|\banchors\b/i.test(p.message)));
}

/**
 * A folder as the source artifact has it: source-controller archives regular files only, so a
 * link leaving the workspace, a broken link or a FIFO (reported as file-unreadable) is not there
 * for Flux's generated kustomization to list.
 */
function artifactListing(ws: Workspace, listing: ReturnType<SourceView['listDir']>): ReturnType<SourceView['listDir']> {
  if (!listing || ![...listing.files.values()].some((real) => ws.notRead.get(real)?.notRead === 'unreadable')) return listing;
  return { files: new Map([...listing.files].filter(([, real]) => ws.notRead.get(real)?.notRead !== 'unreadable')), dirs: listing.dirs };
}

export function kustomizeInput(model: RepoModel, ks: KustomizationNode): Result<KustomizeInput & { generated: FluxKustomizationText }, RenderError> {
  const inputs = kustomizationInputsProblem(model.workspace, ks);
  if (!inputs.ok) return inputs;
  const view = inputs.value;
  const label = ksLabel(ks);
  const generated = fluxKustomizationText(model.workspace, ks, view);
  if (!generated.ok) return generated;
  const budget = new InputBudget();
  const files = withoutAliasBombs(model.workspace, view, viewFiles(model.workspace, view, syntheticFiles(model), budget)).filter((f) => f.path !== generated.value.path);
  files.push({ path: generated.value.path, data: generated.value.text });
  // The file set already holds nothing else, so nothing outside can be read; this names what
  // kustomize-controller would refuse (absolute or escaping paths, exec plugins, helm inflation)
  // with kustomize-controller's reason instead of a bare "file not found".
  const problems = kustomizeConfinement(memTree(files), ks.path);
  if (problems.length) {
    return fail('invalid', `${label}: the build would read outside the source artifact or run something, which kustomize-controller refuses:\n${describeConfinement(problems)}`);
  }
  return ok({ files, dir: ks.path, view, userOrigins: generated.value.userOrigins, budget, generated: generated.value });
}

export async function renderKustomizationImpl(model: RepoModel, ks: KustomizationNode, opts: RenderOptions): Promise<Result<RenderResult, RenderError>> {
  const input = kustomizeInput(model, ks);
  if (!input.ok) return input;
  const label = ksLabel(ks);
  const result = await wasmModule('kustomize').call('kustomize', { dir: input.value.dir }, input.value.files, {
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: opts.signal,
  });
  const built = fromWasm(result, label, 'kustomize build', input.value.budget.describe());
  if (!built.ok) return built;
  return postBuild(model, ks, input.value.view, built.value, opts, !input.value.userOrigins);
}

/** How a build used a path of its source (wasm/cmd/kustomize/reads.go): existence, folder listing, content. */
export type ReadKind = 'stat' | 'list' | 'file';

export interface RecordedBuild {
  result: Result<RenderResult, RenderError>;
  /**
   * Every source path (relative to the source root, '' its root) the build looked at and how,
   * including what producing Flux's kustomization read; undefined when it failed before kustomize
   * ran (then any change may matter).
   */
  reads?: Record<string, ReadKind>;
  /** The kustomization Flux builds at spec.path (its content stands for the spec.path file's). */
  generated?: FluxKustomizationText;
  /** Where the time went (ms): preparing the input, kustomize (WebAssembly calls), Flux's post-build layer. */
  timing: BuildTiming;
  /** Asked for a build in part (`only`), why it cannot stand for the whole build: run that instead. */
  refused?: string;
}

export interface BuildTiming {
  prepareMs: number;
  kustomizeMs: number;
  postBuildMs: number;
}

/**
 * `renderKustomization`, also telling what the build read, so it can be cached by that content.
 * With `only` (a source path the build read as a resource, the one file changed since its last
 * build), the build is redone in part: kustomize builds the same kustomizations with their resources
 * cut to those leading to that file (wasm/cmd/kustomize/partial.go). Its objects stand for that
 * file's objects in the whole build, which the caller splices into the last one (`spliceBuild`);
 * `refused` says when they cannot. Such a build records no reads: the last build's still hold.
 */
export async function renderKustomizationRecorded(model: RepoModel, ks: KustomizationNode, opts: RenderOptions, only?: string): Promise<RecordedBuild> {
  const t0 = performance.now();
  const timing: BuildTiming = { prepareMs: 0, kustomizeMs: 0, postBuildMs: 0 };
  const prepared = () => ((timing.prepareMs = performance.now() - t0), timing);
  const inputs = kustomizationInputsProblem(model.workspace, ks);
  if (!inputs.ok) return { result: inputs, timing: prepared() };
  const view = inputs.value;
  const label = ksLabel(ks);
  const gen = fluxKustomizationText(model.workspace, ks, view);
  if (!gen.ok) return { result: gen, timing: prepared() };
  const generated = gen.value;
  const base = baseFiles(model, view);
  const tree: SourceTree = { readFile: (vp) => (vp === generated.path ? generated.text : base.tree.readFile(vp)), isDir: (vp) => base.tree.isDir(vp) };
  const confinement = kustomizeConfinement(tree, ks.path);
  if (confinement.length) {
    return { result: fail('invalid', `${label}: the build would read outside the source artifact or run something, which kustomize-controller refuses:\n${describeConfinement(confinement)}`), timing: prepared() };
  }
  prepared();
  const t1 = performance.now();
  const overlay = [{ path: generated.path, data: generated.text }];
  type Answer = { ok: boolean; needBase?: boolean; objects?: { json: Record<string, any>; yaml?: string }[]; error?: string; reads?: Record<string, ReadKind>; refused?: string };
  const outcome = await wasmModule('kustomize').lease(
    async (instance): Promise<{ recorded?: Answer; failed?: Result<RenderResult, RenderError> }> => {
      const call = (args: Record<string, unknown>, files: MemFile[]) =>
        instance.call('kustomize', { dir: ks.path, reads: true, base: base.key, ...(only === undefined ? {} : { only }), ...args }, files, { timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: opts.signal });
      let recorded: Answer | undefined;
      for (let attempt = 0; attempt < 3; attempt++) {
        const answer = await call({}, overlay);
        if (!answer.ok) {
          heldBases.delete(instance);
          const failed = fromWasm(answer, label, 'kustomize build', base.budget.describe());
          return { failed: failed.ok ? fail('build-failed', `${label}: no answer`) : failed };
        }
        try {
          recorded = JSON.parse(answer.output) as Answer;
        } catch {
          return { failed: fail('build-failed', `${label}: the kustomize module answered something that is not JSON`) };
        }
        if (!recorded?.needBase) break;
        // The instance does not hold this source's files yet: after an edit, it is sent what changed
        // since the set it holds; else (a fresh instance, another source) the whole set.
        heldBases.delete(instance);
        const delta = base.delta;
        if (delta) {
          const updated = await call({ from: delta.from, remove: delta.remove }, delta.files);
          if (updated.ok && !(JSON.parse(updated.output) as { needBase?: boolean }).needBase) {
            heldBases.set(instance, base.key);
            continue;
          }
        }
        const loaded = await call({ full: true }, base.files);
        if (!loaded.ok) return { failed: fail('build-failed', `${label}: ${loaded.message}`) };
        heldBases.set(instance, base.key);
      }
      return { recorded };
    },
    // An instance that holds this set (or the one it was edited from) needs no files sent.
    (instance) => {
      const held = heldBases.get(instance);
      return held === base.key ? 2 : held !== undefined && held === base.delta?.from ? 1 : 0;
    },
  );
  timing.kustomizeMs = performance.now() - t1;
  if (outcome.failed) return { result: outcome.failed, timing };
  const recorded = outcome.recorded;
  if (!recorded || recorded.needBase) return { result: fail('build-failed', `${label}: the kustomize module did not take the source's files`), timing };
  if (only !== undefined) {
    const refused = recorded.refused ?? (recorded.ok ? undefined : `the build in part failed: ${recorded.error ?? ''}`);
    if (refused) return { result: fail('build-failed', `${label}: ${refused}`), generated, timing, refused };
    const t2 = performance.now();
    const docs = (recorded.objects ?? []).map((o): OutputDocument => ({ obj: o.json, text: o.yaml }));
    const result = postBuild(model, ks, view, docs, opts, !generated.userOrigins);
    timing.postBuildMs = performance.now() - t2;
    if (!result.ok) return { result, generated, timing, refused: `its post-build failed: ${result.error.message}` };
    return { result, generated, timing };
  }
  const reads: Record<string, ReadKind> = {};
  const note = (vp: string, how: ReadKind) => {
    const rank = { stat: 1, list: 2, file: 3 };
    const prev = reads[vp];
    if (!prev || rank[how] > rank[prev]) reads[vp] = how;
  };
  for (const [vp, how] of Object.entries(recorded.reads ?? {})) note(vp === '.' ? '' : vp, how);
  for (const vp of generated.listed) note(vp, 'list');
  for (const vp of generated.looked) note(vp, 'stat');
  const built = recorded.ok ? ok((recorded.objects ?? []).map((o): OutputDocument => ({ obj: o.json, text: o.yaml }))) : fromWasm({ ok: false, kind: 'failed', message: recorded.error ?? '' }, label, 'kustomize build', base.budget.describe());
  if (!built.ok) return { result: built, reads, generated, timing };
  const t2 = performance.now();
  const result = postBuild(model, ks, view, built.value, opts, !generated.userOrigins);
  timing.postBuildMs = performance.now() - t2;
  return { result, reads, generated, timing };
}

/**
 * Starts a kustomize instance now, if none runs, which sets itself up (the module's compilation
 * and start, kyaml's OpenAPI schema: about 1.5 s on bjw-s-labs-home-ops' cold open) on its own
 * thread while the caller reads and parses the workspace.
 */
export function prestartKustomize(): void {
  wasmModule('kustomize').prestart('warm');
}

/**
 * Starts kustomize instances that are not running yet, in the background, up to `count`: each
 * sets itself up (the module's start, kyaml's OpenAPI schema: most of a fresh instance's cost)
 * and takes `ks`'s source's files, so the builds that follow find them ready.
 */
export function warmKustomizeInstances(model: RepoModel, ks: KustomizationNode, count: number): void {
  if (ks.source.kind !== 'view' || count <= 0) return;
  const view = ks.source.view;
  wasmModule('kustomize').warm(count, async (instance) => {
    if (!(await instance.call('warm', {}, [])).ok) return;
    const base = baseFiles(model, view);
    const loaded = await instance.call('kustomize', { dir: '', reads: true, base: base.key, full: true }, base.files);
    if (loaded.ok) heldBases.set(instance, base.key);
  });
}

/** A source's files as the kustomize module keeps them between builds: named by workspace, its version and the view. */
interface BaseFiles {
  key: string;
  /** `key` without the workspace version: equal scopes differ only by edits. */
  scope: string;
  files: MemFile[];
  tree: SourceTree;
  /** Files left out (too large), named if a build fails. */
  budget: InputBudget;
  /** What changed since the set of the same scope the instance may hold. */
  delta?: { from: string; files: MemFile[]; remove: string[] };
  /** For the next version's set (baseFiles): */
  workspace: Workspace;
  version: number;
  overrides: ReadonlyMap<string, string>;
  /** Every file of the view, those refused (alias bombs) or unreadable included: an edit may change that. */
  entries: readonly BaseEntry[];
  dirs: ReadonlySet<string>;
}

interface BaseEntry {
  path: string;
  real: string;
  data: MemFile['data'] | undefined;
  refused: boolean;
}

const workspaceIds = new WeakMap<Workspace, number>();
let lastWorkspaceId = 0;
let lastBase: BaseFiles | undefined;
/**
 * The set each kustomize instance was last given (a hint for choosing one: the instance itself
 * answers needBase when it does not hold the set named).
 */
const heldBases = new WeakMap<WasmModule, string>();

/** Manifests whose content changed since `from` (the version of the last set made), or all: folders or files came or went. */
interface ChangeLog {
  from: number;
  paths: Set<string>;
  all: boolean;
}
const changeLogs = new WeakMap<Workspace, ChangeLog>();

function changeLog(ws: Workspace): ChangeLog {
  let log = changeLogs.get(ws);
  if (!log) {
    const created: ChangeLog = (log = { from: -1, paths: new Set(), all: true });
    changeLogs.set(ws, created);
    ws.onChange((change) => {
      if (change.kind === 'file' && !created.all) created.paths.add(change.path);
      else {
        created.all = true;
        created.paths.clear();
      }
    });
  }
  return log;
}

function baseFiles(model: RepoModel, view: SourceView): BaseFiles {
  const ws = model.workspace;
  let id = workspaceIds.get(ws);
  if (id === undefined) workspaceIds.set(ws, (id = ++lastWorkspaceId));
  const scope = `${id}|${view.key}`;
  const key = `${scope}|${ws.version}`;
  if (lastBase?.key === key) return lastBase;
  const log = changeLog(ws);
  const overrides = syntheticFiles(model);
  const previous = lastBase?.scope === scope && lastBase.workspace === ws && log.from === lastBase.version && !log.all && sameMap(lastBase.overrides, overrides) ? lastBase : undefined;
  const next = (previous && editedBase(previous, log.paths, key, overrides)) ?? wholeBase(ws, view, key, scope, overrides);
  if (lastBase?.scope === scope) {
    const before = new Map(lastBase.files.map((f) => [f.path, f.data]));
    const changed = next.files.filter((f) => !sameData(before.get(f.path), f.data));
    const now = new Set(next.files.map((f) => f.path));
    next.delta = { from: lastBase.key, files: changed, remove: [...before.keys()].filter((p) => !now.has(p)) };
  }
  log.from = ws.version;
  log.paths.clear();
  log.all = false;
  lastBase = next;
  return next;
}

function wholeBase(ws: Workspace, view: SourceView, key: string, scope: string, overrides: ReadonlyMap<string, string>): BaseFiles {
  const budget = new InputBudget();
  const entries = viewListing(view).map(({ path: vpath, real }): BaseEntry => {
    const data = overrides.get(real) ?? fileContent(ws, real, ws.root, budget, vpath);
    return { path: vpath, real, data, refused: data !== undefined && refusedFile(ws, real) };
  });
  return fromEntries(ws, key, scope, overrides, entries, budget);
}

/**
 * The last set with only the manifests edited since read again (an edit in the editor: the view's
 * folders and files are the ones it had). Files other than manifests are read again as a whole set
 * reads them: the workspace does not follow their content. Undefined when files had to be left out
 * (which ones depends on every size), so the whole set is made instead.
 */
function editedBase(prev: BaseFiles, edited: ReadonlySet<string>, key: string, overrides: ReadonlyMap<string, string>): BaseFiles | undefined {
  if (prev.budget.skipped.length) return undefined;
  const ws = prev.workspace;
  const budget = new InputBudget();
  const entries = prev.entries.map((e): BaseEntry => {
    if (!edited.has(e.real) && ws.files.has(e.real) && !overrides.has(e.real)) {
      if (e.data !== undefined && !budget.take(e.path, e.data.length)) return { ...e, data: undefined };
      return e;
    }
    const data = overrides.get(e.real) ?? fileContent(ws, e.real, ws.root, budget, e.path);
    return { ...e, data, refused: data !== undefined && refusedFile(ws, e.real) };
  });
  if (budget.skipped.length) return undefined;
  const sameFiles = entries.every((e, i) => (e.data === undefined) === (prev.entries[i].data === undefined) && e.refused === prev.entries[i].refused);
  return fromEntries(ws, key, prev.scope, overrides, entries, budget, sameFiles ? prev.dirs : undefined);
}

function fromEntries(ws: Workspace, key: string, scope: string, overrides: ReadonlyMap<string, string>, entries: BaseEntry[], budget: InputBudget, dirs?: ReadonlySet<string>): BaseFiles {
  const files: MemFile[] = [];
  for (const e of entries) if (e.data !== undefined && !e.refused) files.push({ path: e.path, data: e.data });
  const folders = dirs ?? memDirs(files);
  return { key, scope, files, tree: memTree(files, folders), budget, workspace: ws, version: ws.version, overrides, entries, dirs: folders };
}

function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function sameData(a: MemFile['data'] | undefined, b: MemFile['data']): boolean {
  if (a === undefined) return false;
  if (typeof a === 'string' || typeof b === 'string') return typeof a === typeof b && a === b;
  return Buffer.compare(a, b) === 0;
}

/**
 * Files whose objects the model inferred (a placeholder gotk-sync.yaml): built with the inferred
 * objects, so the render shows what the bootstrapped cluster applies. Objects a FluxInstance or a
 * ResourceSet generates (they have an origin) live in the cluster only: their files stay as written.
 */
export function syntheticFiles(model: RepoModel): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of model.allObjects) if (o.synthetic && !o.origin) out.set(o.doc.file.path, o.doc.file.text);
  return out;
}

/** Splits kustomize's output into per-object YAML texts (kyaml writes `---` separators at column 0). */
export function splitDocuments(output: string): string[] {
  return output
    .split(/^---[ \t]*$\n?/m)
    .filter((d) => d.trim() !== '');
}

/**
 * One resource of kustomize's output: its YAML as kustomize prints it, its decoded object, or both
 * (the module sends the object, with the YAML only when substitution could change it).
 */
export type OutputDocument = { text: string; obj?: Record<string, any> } | { text?: string; obj: Record<string, any> };

/** Flux's layer after the build: substitution, SOPS masking, owner labels, commonMetadata. */
export function postBuild(
  model: RepoModel,
  ks: KustomizationNode,
  view: SourceView,
  output: string | readonly OutputDocument[],
  opts: RenderOptions,
  dropOrigins: boolean,
): Result<RenderResult, RenderError> {
  const label = ksLabel(ks);
  const warnings: string[] = [];
  const pb = postBuildVariables(model, ks, opts.revealSecretValues === true);
  warnings.push(...pb.warnings);
  const strict = opts.strictSubstitution ?? true;
  const spec = asRecord(ks.applied.object.body.spec) ?? {};
  const common = asRecord(spec.commonMetadata);
  const objects: RenderedObject[] = [];
  let sopsCount = 0;
  const docs: readonly OutputDocument[] = typeof output === 'string' ? splitDocuments(output).map((text) => ({ text })) : output;
  for (const doc of docs) {
    let obj: Record<string, any>;
    if (doc.obj) obj = doc.obj;
    else {
      try {
        obj = asRecord(parseYaml(doc.text!)) ?? {};
      } catch (err) {
        return fail('build-failed', `${label}: kustomize output is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    const meta = asRecord(obj.metadata);
    if (!asString(obj.apiVersion) || !asString(obj.kind) || !asString(meta?.name)) {
      return fail('build-failed', `${label}: failed to decode Kubernetes apiVersion, kind and name from: ${(doc.text ?? JSON.stringify(obj)).slice(0, 200)}`);
    }
    const origin = originOf(model, ks, view, obj);
    // Without its YAML the object holds no `$`, so substitution leaves it as it is.
    const sub = doc.text === undefined ? { text: '', changed: false } : substituteObjectText(doc.text, obj, pb, strict);
    if ('error' in sub) {
      const where = origin ? ` (${origin.file})` : '';
      return fail('substitution', `${label}: post build failed for '${obj.kind}/${meta!.name}'${where}: ${sub.error}`);
    }
    if (sub.changed) {
      try {
        obj = restoreMasks(asRecord(parseYaml(sub.text)) ?? {});
      } catch (err) {
        return fail('substitution', `${label}: after substitution '${asString(obj.kind)}/${asString(meta?.name)}' is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    if (maskSops(obj)) sopsCount++;
    if (dropOrigins) dropOriginAnnotation(obj);
    setOwnerLabels(obj, ks.applied.name, ks.applied.namespace ?? 'default');
    if (common) setCommonMetadata(obj, asRecord(common.labels), asRecord(common.annotations));
    const rendered = obj as RenderedObject;
    if (origin) rendered.origin = origin;
    objects.push(rendered);
  }
  if (sopsCount) warnings.push(`${sopsCount} SOPS-encrypted object(s): encrypted values are shown as ${MASK}; the preview never decrypts.`);
  return ok({ objects, warnings });
}

function dropOriginAnnotation(obj: Record<string, any>): void {
  const annotations = asRecord(obj.metadata?.annotations);
  if (!annotations || !(ORIGIN_ANNOTATION in annotations)) return;
  delete annotations[ORIGIN_ANNOTATION];
  if (Object.keys(annotations).length === 0) delete obj.metadata.annotations;
}

/** The workspace file and document an output object came from, via kustomize's origin annotation. */
function originOf(model: RepoModel, ks: KustomizationNode, view: SourceView, obj: Record<string, any>): RenderedObject['origin'] {
  const raw = asString(asRecord(obj.metadata?.annotations)?.[ORIGIN_ANNOTATION]);
  if (!raw) return undefined;
  let rel: string | undefined;
  try {
    const o = asRecord(parseYaml(raw));
    rel = asString(o?.path) ?? asString(o?.configuredIn);
  } catch {
    return undefined;
  }
  if (!rel) return undefined;
  const vp = joinVirtual(ks.path, rel);
  const real = vp === undefined ? undefined : view.file(vp);
  if (!real) return undefined;
  const file = model.workspace.files.get(real);
  let docIndex = 0;
  if (file) {
    const kind = obj.kind;
    const name = String(obj.metadata?.name ?? '');
    const docs = file.docs.filter((d) => asRecord(d.value)?.kind === kind);
    const exact = docs.find((d) => asRecord(asRecord(d.value)?.metadata)?.name === name);
    const partial = docs.find((d) => {
      const n = asString(asRecord(asRecord(d.value)?.metadata)?.name);
      return !!n && name.includes(n);
    });
    docIndex = (exact ?? partial ?? docs[0])?.index ?? 0;
  }
  return { file: real, docIndex };
}
