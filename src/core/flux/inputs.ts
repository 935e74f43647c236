/**
 * Local files a kustomize build will read that are not in the source artifact (a generator's
 * `files:` entry, a patch file, a folder without kustomization.yaml...). Found before running
 * kustomize so the message names the entry and the kustomization file it is written in.
 */
import type { Workspace } from '../workspace/workspace';
import { isRemoteResource } from '../model/expand';
import { asArray, asRecord, asString } from '../model/objects';
import { joinVirtual, type SourceView } from '../model/view';
import { generatedResources, kustomizationFileOf } from './generator';
import { resolveInSource } from './confine';
import { isFetchedInput } from './fetchedInputs';

export interface MissingInput {
  /** The kustomization file (real path) naming the entry, or undefined for Flux's generated one. */
  file: string | undefined;
  /** Field of the entry, e.g. `configMapGenerator[0].files[2]`. */
  field: string;
  /** The entry as written. */
  entry: string;
  reason: string;
}

/** Path part of a generator source: `key=path` or `path`. */
function generatorPath(entry: string): string {
  const eq = entry.indexOf('=');
  return eq === -1 ? entry : entry.slice(eq + 1);
}

export function missingInputs(ws: Workspace, view: SourceView, vdir: string, components: readonly string[] = []): MissingInput[] {
  const out: MissingInput[] = [];
  const seen = new Set<string>();
  const exists = (vp: string | undefined) => vp !== undefined && (!!view.file(vp) || !!view.listDir(vp));

  const visit = (dir: string, asResourceDir: boolean, from: { file: string | undefined; field: string; entry: string }) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const kfile = kustomizationFileOf(view, dir);
    if (!kfile) {
      if (asResourceDir) {
        out.push({ ...from, reason: `'${from.entry}' is a folder without a kustomization file` });
        return;
      }
      for (const rel of generatedResources(view, dir)) {
        const vp = joinVirtual(dir, rel);
        if (vp !== undefined && view.listDir(vp)) visit(vp, true, { file: undefined, field: 'resources', entry: rel });
      }
      return;
    }
    let config: Record<string, any>;
    try {
      config = asRecord(ws.yamlValue(kfile.real)) ?? {};
    } catch {
      return; // kustomize reports invalid YAML itself, with its position
    }
    const check = (field: string, entry: unknown, kind: 'resource' | 'component' | 'file' | 'generator') => {
      const rel = asString(entry);
      if (rel === undefined || isRemoteResource(rel)) return;
      const path = kind === 'file' || kind === 'generator' ? generatorPath(rel) : rel;
      // kustomize-controller downloads it; the build is given it empty (fetchedInputs.ts).
      if (kind === 'generator' && isFetchedInput(path)) return;
      // Absolute and escaping paths are the confinement check's to refuse, with its own reason.
      if ('reason' in resolveInSource(dir, path)) return;
      const vp = joinVirtual(dir, path);
      if (!exists(vp)) {
        out.push({ file: kfile.real, field, entry: rel, reason: `'${path}' is not in the source` });
        return;
      }
      if ((kind === 'resource' || kind === 'component') && view.listDir(vp!)) visit(vp!, true, { file: kfile.real, field, entry: rel });
    };
    asArray(config.resources).forEach((e, i) => check(`resources[${i}]`, e, 'resource'));
    asArray(config.bases).forEach((e, i) => check(`bases[${i}]`, e, 'resource'));
    asArray(config.components).forEach((e, i) => check(`components[${i}]`, e, 'component'));
    for (const gen of ['configMapGenerator', 'secretGenerator']) {
      asArray(config[gen]).forEach((g, i) => {
        const r = asRecord(g) ?? {};
        asArray(r.files).forEach((f, j) => check(`${gen}[${i}].files[${j}]`, f, 'generator'));
        asArray(r.envs).forEach((f, j) => check(`${gen}[${i}].envs[${j}]`, f, 'generator'));
        if (typeof r.env === 'string') check(`${gen}[${i}].env`, r.env, 'generator');
      });
    }
    asArray(config.patches).forEach((p, i) => check(`patches[${i}].path`, asRecord(p)?.path, 'file'));
    asArray(config.patchesJson6902).forEach((p, i) => check(`patchesJson6902[${i}].path`, asRecord(p)?.path, 'file'));
    asArray(config.patchesStrategicMerge).forEach((p, i) => {
      if (typeof p === 'string' && !p.includes('\n') && /\.ya?ml$/.test(p)) check(`patchesStrategicMerge[${i}]`, p, 'file');
    });
    asArray(config.crds).forEach((p, i) => check(`crds[${i}]`, p, 'file'));
    asArray(config.configurations).forEach((p, i) => check(`configurations[${i}]`, p, 'file'));
    asArray(config.replacements).forEach((p, i) => check(`replacements[${i}].path`, asRecord(p)?.path, 'file'));
    if (asArray(config.helmCharts).length) {
      out.push({ file: kfile.real, field: 'helmCharts', entry: 'helmCharts', reason: 'kustomize-controller does not run kustomize with --enable-helm, so helmCharts fails the build' });
    }
  };

  visit(vdir, false, { file: undefined, field: 'spec.path', entry: vdir });
  components.forEach((c, i) => {
    const vp = joinVirtual(vdir, c);
    if (vp === undefined || !exists(vp)) return; // Flux itself rejects or skips these; reported by the build
    visit(vp, true, { file: undefined, field: `spec.components[${i}]`, entry: c });
  });
  return out;
}
