/**
 * kustomize-controller's build of one Flux Kustomization, locally: the source artifact's files as
 * an in-memory file set, Flux's kustomization written at spec.path, kustomize's own build compiled
 * to WebAssembly (no process, no host file system), then the post-build layer.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { KustomizationNode, RepoModel } from '../core/model/graph';
import { asRecord, asString } from '../core/model/objects';
import { joinVirtual, type SourceView } from '../core/model/view';
import { fluxKustomization, generatedResources, kustomizationFileOf } from '../core/flux/generator';
import { missingInputs } from '../core/flux/inputs';
import { describeConfinement, kustomizeConfinement } from '../core/flux/confine';
import { maskSops, MASK, restoreMasks } from '../core/flux/mask';
import { postBuildVariables, setCommonMetadata, setOwnerLabels, substituteObjectText } from '../core/flux/postbuild';
import { fail, ok, type Errorable } from './errors';
import { wasmModule } from '../engine/wasm/host';
import type { MemFile } from '../engine/wasm/protocol';
import { InputBudget, memTree, viewFiles } from './files';
import type { RenderedObject, RenderOptions, RenderResult } from './types';
import { fromWasm } from './wasm';

export const DEFAULT_TIMEOUT_MS = 60_000;
const ORIGIN_ANNOTATION = 'config.kubernetes.io/origin';

function ksLabel(ks: KustomizationNode): string {
  return `Kustomization ${ks.applied.namespace ?? 'default'}/${ks.applied.name}`;
}

/** Checks that need no process: whether the workspace holds everything the build reads. */
export function kustomizationInputsProblem(model: RepoModel, ks: KustomizationNode): Errorable<SourceView> {
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
  const missing = missingInputs(model.workspace, view, ks.path, components);
  if (missing.length) {
    const root = model.workspace.root + '/';
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

export function kustomizeInput(model: RepoModel, ks: KustomizationNode): Errorable<KustomizeInput> {
  const inputs = kustomizationInputsProblem(model, ks);
  if (!inputs.ok) return inputs;
  const view = inputs.value;
  const label = ksLabel(ks);
  const ws = model.workspace;
  // The model's targetNamespace already holds what the parent gives this Kustomization (its
  // substitution, its patches); the written spec alone would lose it.
  const written = asRecord(ks.applied.object.body.spec) ?? {};
  const spec = ks.targetNamespace ? { ...written, targetNamespace: ks.targetNamespace } : written;
  const existing = kustomizationFileOf(view, ks.path);
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
    generated: () => generatedResources(view, ks.path),
    exists: (rel) => {
      const vp = joinVirtual(ks.path, rel);
      return vp !== undefined && (!!view.file(vp) || !!view.listDir(vp));
    },
  });
  if ('error' in generated) return fail('invalid', `${label}: ${generated.error}`);

  // Origins let the UI jump from a rendered object to its file; dropped again unless the user asked for them.
  const buildMetadata = Array.isArray(generated.config.buildMetadata) ? (generated.config.buildMetadata as string[]) : [];
  const userOrigins = buildMetadata.includes('originAnnotations');
  if (!userOrigins) generated.config.buildMetadata = [...buildMetadata, 'originAnnotations'];

  const generatedPath = ks.path ? `${ks.path}/${generated.fileName}` : generated.fileName;
  const budget = new InputBudget();
  const files = viewFiles(ws, view, syntheticFiles(model), budget).filter((f) => f.path !== generatedPath);
  files.push({ path: generatedPath, data: stringifyYaml(generated.config, { lineWidth: 0 }) });
  // The file set already holds nothing else, so nothing outside can be read; this names what
  // kustomize-controller would refuse (absolute or escaping paths, exec plugins, helm inflation)
  // with kustomize-controller's reason instead of a bare "file not found".
  const problems = kustomizeConfinement(memTree(files), ks.path);
  if (problems.length) {
    return fail('invalid', `${label}: the build would read outside the source artifact or run something, which kustomize-controller refuses:\n${describeConfinement(problems)}`);
  }
  return ok({ files, dir: ks.path, view, userOrigins, budget });
}

export async function renderKustomizationImpl(model: RepoModel, ks: KustomizationNode, opts: RenderOptions): Promise<Errorable<RenderResult>> {
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

/** Flux's layer after the build: substitution, SOPS masking, owner labels, commonMetadata. */
export function postBuild(model: RepoModel, ks: KustomizationNode, view: SourceView, output: string, opts: RenderOptions, dropOrigins: boolean): Errorable<RenderResult> {
  const label = ksLabel(ks);
  const warnings: string[] = [];
  const pb = postBuildVariables(model, ks, opts.revealSecretValues === true);
  warnings.push(...pb.warnings);
  const strict = opts.strictSubstitution ?? true;
  const spec = asRecord(ks.applied.object.body.spec) ?? {};
  const common = asRecord(spec.commonMetadata);
  const objects: RenderedObject[] = [];
  let sopsCount = 0;
  for (const text of splitDocuments(output)) {
    let obj: Record<string, any>;
    try {
      obj = asRecord(parseYaml(text)) ?? {};
    } catch (err) {
      return fail('build-failed', `${label}: kustomize output is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
    const meta = asRecord(obj.metadata);
    if (!asString(obj.apiVersion) || !asString(obj.kind) || !asString(meta?.name)) {
      return fail('build-failed', `${label}: failed to decode Kubernetes apiVersion, kind and name from: ${text.slice(0, 200)}`);
    }
    const origin = originOf(model, ks, view, obj);
    const sub = substituteObjectText(text, obj, pb, strict);
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
