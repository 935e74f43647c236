/**
 * kustomize-controller's build of one Flux Kustomization, locally: the source artifact's files as
 * an in-memory file set, Flux's kustomization written at spec.path, kustomize's own build compiled
 * to WebAssembly (no process, no host file system), then the post-build layer.
 */
import { parseYaml } from '../core/yaml/document';
import { stringify as stringifyYaml } from 'yaml';
import type { KustomizationNode, RepoModel } from '../core/model/graph';
import type { Workspace } from '../core/workspace/workspace';
import { asRecord, asString } from '../core/model/objects';
import { isKustomizationFile } from '../core/model/bootstrap';
import { joinVirtual, type SourceView } from '../core/model/view';
import { fluxKustomization, generatedResources, kustomizationFileOf } from '../core/flux/generator';
import { missingInputs } from '../core/flux/inputs';
import { withoutFetchedInputs } from '../core/flux/fetchedInputs';
import { describeConfinement, kustomizeConfinement, type SourceTree } from '../core/flux/confine';
import { maskSops, MASK, restoreMasks, scrubValues, secretValues } from '../core/flux/mask';
import { secretGeneratorValues } from '../core/flux/generatorSecrets';
import { postBuildVariables, setCommonMetadata, setOwnerLabels, substitutedSizeBound, substituteObjectText } from '../core/flux/postbuild';
import { Allowance, DEFAULT_BUDGETS, describeBytes } from '../core/budgets';
import { fail, ok, type RenderError } from './errors';
import type { Result } from '../core/result';
import { wasmModule } from '../engine/wasm/pool';
import type { WasmModule } from '../engine/wasm/host';
import type { MemFile } from '../engine/wasm/protocol';
import { InputBudget, memTree } from './files';
import { baseFiles } from './baseFiles';
import type { RenderedObject, RenderOptions, RenderResult } from './types';
import { fromWasm } from './wasm';
import { nullRecord } from '../core/safeRecord';

export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * A call's time limit when it starts: the build's own, cut to what is left before `deadline`
 * (a command's build-time budget), counted from the call rather than from when the build was
 * queued, so waiting for an instance cannot carry a build past the deadline.
 */
export function callTimeoutMs(opts: RenderOptions): number {
  const own = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return opts.deadline === undefined ? own : Math.max(1, Math.min(own, Math.ceil(opts.deadline - performance.now())));
}
const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

function ksLabel(ks: KustomizationNode): string {
  return `Kustomization ${ks.applied.namespace ?? 'default'}/${ks.applied.name}`;
}

/** Checks that need no process: whether the workspace holds everything the build reads. */
export function kustomizationInputsProblem(ws: Workspace, ks: KustomizationNode): Result<SourceView, RenderError> {
  const label = ksLabel(ks);
  if (ks.source.kind === 'none') {
    // Flux rejects it too; a parent's patch that would set one applies only once that parent builds.
    return fail('unavailable', `${label}: it has no spec.sourceRef here, so there is nothing to build (a patch of its parent that sets one applies only when that parent builds).`);
  }
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
  /** Its content as kustomize reads it: YAML, written on first read (a reused build never needs it). */
  readonly text: string;
  /** Its content as canonical JSON: what a build's reads record of it (the same for the same text). */
  key: string;
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
      const written = asRecord(ws.yamlValue(existing.real)) ?? {};
      existingConfig = withoutFetchedInputs(written) ?? written;
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
  const { key, text } = generatedText(generated.config);
  return ok({ path, key, get text() { return text(); }, userOrigins, listed, looked });
}


/**
 * Flux's kustomization as YAML, kept by its JSON: every edit's build generates the same one again,
 * and writing YAML costs about ten times what JSON does. Numbers JSON cannot tell apart (-0, the
 * infinities, NaN) are kept apart in the key (and strings that could look like those marks).
 */
const generatedTexts = new Map<string, string>();
function generatedText(config: Record<string, unknown>): { key: string; text: () => string } {
  const key = JSON.stringify(config, (_, v: unknown) => {
    if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return `\u0000n${Object.is(v, -0) ? '-0' : String(v)}`;
    return typeof v === 'string' && v.startsWith('\u0000') ? `\u0000s${v}` : v;
  });
  const text = (): string => {
    let yaml = generatedTexts.get(key);
    if (yaml === undefined) {
      if (generatedTexts.size >= 256) generatedTexts.clear();
      yaml = stringifyYaml(config, { lineWidth: 0 });
      generatedTexts.set(key, yaml);
    }
    return yaml;
  };
  return { key, text };
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
  const { files: sourceFiles, budget } = baseFiles(model, view);
  const files = sourceFiles.filter((f) => f.path !== generated.value.path);
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
    timeoutMs: callTimeoutMs(opts),
    signal: opts.signal,
  });
  const built = fromWasm(result, label, 'kustomize build', input.value.budget.describe());
  if (!built.ok) return withoutGeneratedSecrets(built.error, memTree(input.value.files), input.value.files.map((f) => f.path));
  return postBuild(model, ks, input.value.view, built.value, opts, !input.value.userOrigins);
}

/**
 * kustomize's error quotes what it failed on, a secretGenerator's malformed literal or env line
 * included: those values are masked in the message, as Secret values are everywhere else.
 */
function withoutGeneratedSecrets({ kind, message, stderr }: RenderError, tree: SourceTree, paths: Iterable<string>): Result<never, RenderError> {
  const values = secretGeneratorValues(tree, paths);
  return fail(kind, scrubValues(message, values), stderr === undefined ? undefined : scrubValues(stderr, values));
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
  // Redone in part, the build's last run passed these checks, and since then only `only`'s content
  // changed: unless it is a kustomization file, the checks (which read kustomization files and
  // look up paths) would pass again. Flux's kustomization is compared with the last one by the caller.
  const layoutHolds = only !== undefined && !isKustomizationFile(only);
  const inputs = layoutHolds && ks.source.kind === 'view' ? ok(ks.source.view) : kustomizationInputsProblem(model.workspace, ks);
  if (!inputs.ok) return { result: inputs, timing: prepared() };
  const view = inputs.value;
  const label = ksLabel(ks);
  const gen = fluxKustomizationText(model.workspace, ks, view);
  if (!gen.ok) return { result: gen, timing: prepared() };
  const generated = gen.value;
  const base = baseFiles(model, view);
  const tree: SourceTree = { readFile: (vp) => (vp === generated.path ? generated.text : base.tree.readFile(vp)), isDir: (vp) => base.tree.isDir(vp) };
  const sourcePaths = () => [...base.files.map((f) => f.path), generated.path];
  const confinement = layoutHolds ? [] : kustomizeConfinement(tree, ks.path);
  if (confinement.length) {
    return { result: fail('invalid', `${label}: the build would read outside the source artifact or run something, which kustomize-controller refuses:\n${describeConfinement(confinement)}`), timing: prepared() };
  }
  prepared();
  const t1 = performance.now();
  const overlay = [{ path: generated.path, data: generated.text }];
  const outcome = await wasmModule('kustomize').lease(
    async (instance): Promise<{ output?: string; failed?: Result<RenderResult, RenderError> }> => {
      const call = (args: Record<string, unknown>, files: MemFile[]) =>
        instance.call('kustomize', { dir: ks.path, reads: true, base: base.key, ...(only === undefined ? {} : { only }), ...args }, files, { timeoutMs: callTimeoutMs(opts), signal: opts.signal });
      // The instance is sent what it lacks: nothing when it holds this set; the edit from the set it
      // was edited from, together with the build (one request); else, once that is refused, the
      // whole set and the build again.
      const delta = heldBases.get(instance) === base.key ? undefined : base.delta;
      let sendEdit = delta !== undefined && heldBases.get(instance) === delta.from;
      let editSent = false;
      let wholeSent = false;
      let output: string | undefined;
      for (;;) {
        const withEdit = sendEdit && delta ? delta : undefined;
        const answer = withEdit
          ? await call({ update: { from: withEdit.from, remove: withEdit.remove, count: withEdit.files.length } }, [...withEdit.files, ...overlay])
          : await call({}, overlay);
        editSent ||= withEdit !== undefined;
        if (!answer.ok) {
          heldBases.delete(instance);
          const failed = fromWasm(answer, label, 'kustomize build', base.budget.describe());
          return { failed: failed.ok ? fail('build-failed', `${label}: no answer`) : withoutGeneratedSecrets(failed.error, tree, sourcePaths()) };
        }
        output = answer.output;
        // Only an answer as short as this asks for the files; a build's answer is read once the
        // instance is free again (below), not while another build waits for it.
        if (!(output.length <= NEED_BASE_MAX && (parseAnswer(output)?.needBase ?? false))) {
          heldBases.set(instance, base.key);
          break;
        }
        heldBases.delete(instance);
        if (delta && !editSent) {
          sendEdit = true;
          continue;
        }
        if (wholeSent) break;
        const loaded = await call({ full: true }, base.files);
        if (!loaded.ok) return { failed: withoutGeneratedSecrets({ kind: 'build-failed', message: `${label}: ${loaded.message}` }, tree, sourcePaths()) };
        heldBases.set(instance, base.key);
        wholeSent = true;
        sendEdit = false;
      }
      return { output };
    },
    // An instance that holds this set (or the one it was edited from) needs no files sent.
    (instance) => {
      const held = heldBases.get(instance);
      return held === base.key ? 2 : held !== undefined && held === base.delta?.from ? 1 : 0;
    },
  );
  timing.kustomizeMs = performance.now() - t1;
  if (outcome.failed) return { result: leftOutByBudget(outcome.failed, base.budget), timing };
  // The next build waiting for the instance is sent before this one's answer is read and its
  // post-build runs: both take this thread, and the instance would wait for them.
  await new Promise((resolve) => setImmediate(resolve));
  const recorded = outcome.output === undefined ? undefined : parseAnswer(outcome.output);
  if (outcome.output !== undefined && !recorded) return { result: fail('build-failed', `${label}: the kustomize module answered something that is not JSON`), timing };
  if (!recorded || recorded.needBase) return { result: fail('build-failed', `${label}: the kustomize module did not take the source's files`), timing };
  if (only !== undefined) {
    const refused = recorded.refused ?? (recorded.ok ? undefined : `the build in part failed: ${scrubValues(recorded.error ?? '', secretGeneratorValues(tree, sourcePaths()))}`);
    if (refused) return { result: fail('build-failed', `${label}: ${refused}`), generated, timing, refused };
    const t2 = performance.now();
    const docs = (recorded.objects ?? []).map((o): OutputDocument => ({ obj: o.json, text: o.yaml }));
    const result = postBuild(model, ks, view, docs, opts, !generated.userOrigins);
    timing.postBuildMs = performance.now() - t2;
    if (!result.ok) return { result, generated, timing, refused: `its post-build failed: ${result.error.message}` };
    return { result, generated, timing };
  }
  const reads = nullRecord<ReadKind>();
  const note = (vp: string, how: ReadKind) => {
    const rank = { stat: 1, list: 2, file: 3 };
    const prev = reads[vp];
    if (!prev || rank[how] > rank[prev]) reads[vp] = how;
  };
  for (const [vp, how] of Object.entries(recorded.reads ?? {})) note(vp === '.' ? '' : vp, how);
  for (const vp of generated.listed) note(vp, 'list');
  for (const vp of generated.looked) note(vp, 'stat');
  const built = recorded.ok ? ok((recorded.objects ?? []).map((o): OutputDocument => ({ obj: o.json, text: o.yaml }))) : fromWasm({ ok: false, kind: 'failed', message: recorded.error ?? '' }, label, 'kustomize build', base.budget.describe());
  if (!built.ok) return { result: leftOutByBudget(withoutGeneratedSecrets(built.error, tree, sourcePaths()), base.budget), reads, generated, timing };
  const t2 = performance.now();
  const result = postBuild(model, ks, view, built.value, opts, !generated.userOrigins);
  timing.postBuildMs = performance.now() - t2;
  return { result, reads, generated, timing };
}

/**
 * A build that failed without files its budget left out (the read budget, InputBudget) failed
 * for the tool's limit, not for the repository: a 'budget' failure (analysis-limit), whose message
 * names the files.
 */
function leftOutByBudget<T>(result: Result<T, RenderError>, budget: InputBudget): Result<T, RenderError> {
  if (result.ok || result.error.kind !== 'build-failed' || budget.skipped.length === 0) return result;
  return fail('budget', result.error.message, result.error.stderr);
}

/** The longest answer that can be the module's request for the source's files (`{"ok":false,"needBase":true}`). */
const NEED_BASE_MAX = 64;

/** What the module answers a `kustomize` request with (wasm/cmd/kustomize/kustomize.go). */
interface ModuleAnswer {
  ok: boolean;
  needBase?: boolean;
  objects?: { json: Record<string, any>; yaml?: string }[];
  error?: string;
  reads?: Record<string, ReadKind>;
  refused?: string;
}

function parseAnswer(text: string): ModuleAnswer | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The set each kustomize instance was last given (a hint for choosing one: the instance itself
 * answers needBase when it does not hold the set named).
 */
const heldBases = new WeakMap<WasmModule, string>();

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
  const perBuild = new Allowance(opts.substitution?.perBuild ?? DEFAULT_BUDGETS.substitutedBytesPerBuild);
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
      const quoted = scrubValues((doc.text ?? JSON.stringify(obj)).slice(0, 200), secretValues([obj]));
      return fail('build-failed', `${label}: failed to decode Kubernetes apiVersion, kind and name from: ${quoted}`);
    }
    const origin = originOf(model, ks, view, obj);
    const overBudget = pb.vars && doc.text?.includes('${') ? substitutionOverBudget(substitutedSizeBound(doc.text, pb.vars), perBuild, opts.substitution?.total) : undefined;
    if (overBudget) {
      const where = origin ? ` (${origin.file})` : '';
      return fail('budget', `${label}: post-build substitution stopped at '${obj.kind}/${meta!.name}'${where}: ${overBudget}; the objects of this build are read from its files as written.`);
    }
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
        // Flux substitutes an unset variable as empty when not strict: the usual cause (an image tag
        // ending in a bare `:`), so the variables that were unset are named.
        const unset = [...new Set([...(doc.text ?? '').matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]))].filter((n) => !pb.vars?.has(n));
        const why = unset.length ? `; ${unset.slice(0, 5).join(', ')}${unset.length > 5 ? ` and ${unset.length - 5} more` : ''} ${unset.length === 1 ? 'is' : 'are'} not set, so substituted empty` : '';
        return fail('substitution', `${label}: after substitution '${asString(obj.kind)}/${asString(meta?.name)}' is not valid YAML: ${(err as Error).message.split('\n')[0].replace(/:\s*$/, '')}${why}`);
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

/**
 * Why substituting an object that may grow to `bound` characters would exceed the build's or the
 * command's substitution budget (a 1 MB variable used 400 times is 400 MB); undefined when it fits.
 */
function substitutionOverBudget(bound: number, perBuild: Allowance, total: Allowance | undefined): string | undefined {
  if (!perBuild.take(bound)) return `with it, substitution would produce up to ${describeBytes(perBuild.used + bound)}, past the ${describeBytes(perBuild.limit)} substitution budget of one Kustomization (gitops-preview --max-substitution-mb raises it)`;
  if (total && !total.take(bound)) return `with it, the substitutions of this command would produce up to ${describeBytes(total.used + bound)}, past the ${describeBytes(total.limit)} substitution budget of all builds together (gitops-preview --max-substitution-mb raises it)`;
  return undefined;
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
