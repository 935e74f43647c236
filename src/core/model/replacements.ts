import type { Workspace } from '../workspace/workspace';
import { asArray, asRecord, asString } from './objects';
import { joinVirtual, type SourceView } from './view';

/**
 * The one kustomize `replacements` pattern the model follows without running kustomize: copying the
 * name of the folder's Namespace into `spec.targetNamespace` of the Flux Kustomizations it builds
 * (a common home-ops layout, where the Namespace itself is renamed by `namespace:`). Replacements
 * run after kustomize's other transformers, so the Namespace's name is the renamed one. Any other
 * replacement is left to the real kustomize build.
 */
export interface TargetNamespaceReplacement {
  /** Workspace files the replacement entries were read from. */
  readonly files: string[];
}

/** Whether the kustomization's `replacements` copy the Namespace name into Kustomizations' targetNamespace. */
export function namespaceToTargetNamespace(ws: Workspace, view: SourceView, vdir: string, config: Record<string, any>): TargetNamespaceReplacement | undefined {
  const files: string[] = [];
  let found = false;
  for (const entry of asArray(config.replacements)) {
    const e = asRecord(entry);
    if (!e) continue;
    const path = asString(e.path);
    let list: unknown[] = [e];
    if (path) {
      const vp = joinVirtual(vdir, path);
      const real = vp === undefined ? undefined : view.file(vp);
      const value = real ? ws.files.get(real)?.docs[0]?.value : undefined;
      if (!real) continue;
      files.push(real);
      list = Array.isArray(value) ? value : [value];
    }
    for (const r of list) if (isNamespaceToTargetNamespace(asRecord(r))) found = true;
  }
  return found ? { files } : undefined;
}

function isNamespaceToTargetNamespace(r: Record<string, any> | undefined): boolean {
  const source = asRecord(r?.source);
  if (!source || source.kind !== 'Namespace' || (source.fieldPath ?? 'metadata.name') !== 'metadata.name') return false;
  return asArray(r?.targets).some((t) => {
    const target = asRecord(t);
    const select = asRecord(target?.select);
    if (!select || select.kind !== 'Kustomization' || target?.reject) return false;
    if (select.group !== undefined && select.group !== 'kustomize.toolkit.fluxcd.io') return false;
    if (select.name !== undefined || select.labelSelector !== undefined || select.annotationSelector !== undefined) return false;
    return asArray(target?.fieldPaths).includes('spec.targetNamespace');
  });
}
