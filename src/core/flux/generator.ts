/**
 * The kustomization file kustomize-controller v1.9 builds (fluxcd/pkg/kustomize v1.35
 * `Generator.GenerateManifest`): the one at `spec.path`, or a generated one listing the folder's
 * manifests, with the Flux Kustomization's spec fields merged in.
 */
import { asArray, asRecord, asString } from '../model/objects';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
import type { SourceView } from '../model/view';
import { joinVirtual } from '../model/view';

export const KUSTOMIZE_API_VERSION = 'kustomize.config.k8s.io/v1beta1';

/**
 * Flux's generator rule: walk the folder in lexical order (as Go's filepath.Walk), listing every
 * `.yaml`/`.yml` file as `./rel/path`; a sub-folder with its own kustomization file is listed as a
 * unit (`./rel/dir`) and not descended into.
 */
export function generatedResources(view: SourceView, vdir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    const listing = view.listDir(dir);
    if (!listing) return;
    const entries = [...[...listing.files.keys()].map((n) => ({ n, dir: false })), ...[...listing.dirs].map((n) => ({ n, dir: true }))];
    entries.sort((a, b) => (a.n < b.n ? -1 : a.n > b.n ? 1 : 0));
    for (const e of entries) {
      const sub = dir ? `${dir}/${e.n}` : e.n;
      const relPath = `${rel}/${e.n}`;
      if (e.dir) {
        if (KUSTOMIZATION_FILE_NAMES.some((k) => view.file(`${sub}/${k}`))) out.push(relPath);
        else walk(sub, relPath);
      } else if (e.n.endsWith('.yaml') || e.n.endsWith('.yml')) out.push(relPath);
    }
  };
  walk(vdir, '.');
  return out;
}

/** Flux's `IsLocalRelativePath` (kustomize's remote-spec prefixes, absolute paths). */
export function isLocalRelativePath(path: string): boolean {
  for (const p of ['git::', 'gh:', 'ssh://', 'https://', 'http://', 'git@', 'github.com:', 'github.com/']) {
    if (p.length < path.length && path.slice(0, p.length).toLowerCase() === p) return false;
  }
  return !path.startsWith('/') && !path.toLowerCase().replace(/^file:\/\//, '').startsWith('/');
}

function selector(target: unknown): Record<string, string> | undefined {
  const t = asRecord(target);
  if (!t) return undefined;
  const out: Record<string, string> = {};
  for (const k of ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector']) {
    const v = asString(t[k]);
    if (v) out[k] = v;
  }
  return out;
}

export interface FluxKustomizationFile {
  /** The kustomization content to write at `spec.path` (plain data; serialise with any YAML writer). */
  config: Record<string, unknown>;
  /** 'created' when Flux generates it, 'unchanged' when the folder had one. */
  action: 'created' | 'unchanged';
  /** File name to write it as (the existing one's, else kustomization.yaml). */
  fileName: string;
}

export interface GenerateInput {
  /** The Flux Kustomization's `spec`. */
  spec: Record<string, unknown>;
  /** The existing kustomization file's name and parsed content, when the folder has one. */
  existing?: { fileName: string; config: Record<string, unknown> };
  /** Resources for a generated kustomization (`generatedResources`). */
  generated: () => string[];
  /** Whether `rel` (relative to spec.path) exists; for `ignoreMissingComponents`. */
  exists: (rel: string) => boolean;
}

/** Returns the kustomization Flux builds, or a message when Flux would refuse the spec. */
export function fluxKustomization(input: GenerateInput): FluxKustomizationFile | { error: string } {
  const { spec } = input;
  let config: Record<string, any>;
  let action: FluxKustomizationFile['action'];
  if (input.existing) {
    action = 'unchanged';
    config = { apiVersion: KUSTOMIZE_API_VERSION, kind: 'Kustomization', ...structuredClone(input.existing.config) };
    // Flux's guard against kustomize's "kustomization.yaml is empty" error: it also makes kustomize
    // annotate every object with config.kubernetes.io/origin, which then reaches the cluster.
    if (asArray(config.resources).length === 0) config.buildMetadata = ['originAnnotations'];
  } else {
    action = 'created';
    const resources = input.generated();
    config = { apiVersion: KUSTOMIZE_API_VERSION, kind: 'Kustomization' };
    if (resources.length === 0) config.namespace = '_placeholder';
    else config.resources = resources;
  }

  if (typeof spec.targetNamespace === 'string') config.namespace = spec.targetNamespace;
  if (typeof spec.namePrefix === 'string') config.namePrefix = spec.namePrefix;
  if (typeof spec.nameSuffix === 'string') config.nameSuffix = spec.nameSuffix;

  const patches = asArray(spec.patches);
  if (patches.length) {
    const list = asArray(config.patches).slice();
    for (const p of patches) {
      const r = asRecord(p) ?? {};
      const entry: Record<string, unknown> = {};
      if (typeof r.patch === 'string') entry.patch = r.patch;
      const target = selector(r.target);
      if (target) entry.target = target;
      list.push(entry);
    }
    config.patches = list;
  }

  const components = asArray(spec.components);
  if (components.length) {
    const list = asArray(config.components).slice();
    for (const c of components) {
      if (typeof c !== 'string') return { error: `spec.components must be a list of strings` };
      if (!isLocalRelativePath(c)) return { error: `component path '${c}' must be local and relative` };
      if (spec.ignoreMissingComponents === true && !input.exists(c)) continue;
      list.push(c);
    }
    config.components = list;
  }

  const sm = asArray(spec.patchesStrategicMerge);
  if (sm.length) config.patchesStrategicMerge = [...asArray(config.patchesStrategicMerge), ...sm.map((p) => JSON.stringify(p))];
  const json6902 = asArray(spec.patchesJson6902);
  if (json6902.length) {
    config.patchesJson6902 = [
      ...asArray(config.patchesJson6902),
      ...json6902.map((p) => ({ patch: JSON.stringify(asRecord(p)?.patch ?? []), target: selector(asRecord(p)?.target) })),
    ];
  }

  const images = asArray(spec.images);
  if (images.length) {
    const list = asArray(config.images).map((i) => ({ ...(asRecord(i) ?? {}) }));
    for (const i of images) {
      const img = asRecord(i) ?? {};
      const name = asString(img.name) ?? '';
      const existing = list.find((e) => e.name === name);
      if (existing) {
        // Field-wise merge; newTag and digest change together (fluxcd/pkg#1266).
        if (img.newName) existing.newName = img.newName;
        if (img.newTag || img.digest) {
          if (img.newTag) existing.newTag = img.newTag;
          else delete existing.newTag;
          if (img.digest) existing.digest = img.digest;
          else delete existing.digest;
        }
      } else {
        const entry: Record<string, unknown> = { name };
        for (const k of ['newName', 'newTag', 'digest']) if (img[k]) entry[k] = img[k];
        list.push(entry);
      }
    }
    config.images = list;
  }

  const buildMetadata = asArray(spec.buildMetadata).filter((b): b is string => typeof b === 'string');
  if (buildMetadata.length) config.buildMetadata = buildMetadata;

  return { config, action, fileName: input.existing?.fileName ?? 'kustomization.yaml' };
}

/** The existing kustomization file of a folder in a view: its name and real path. */
export function kustomizationFileOf(view: SourceView, vdir: string): { fileName: string; real: string } | undefined {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const vp = joinVirtual(vdir, name);
    const real = vp === undefined ? undefined : view.file(vp);
    if (real) return { fileName: name, real };
  }
  return undefined;
}
