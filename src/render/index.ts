/**
 * Local rendering of Flux objects, as the controllers would build them:
 *   - `renderKustomization`: kustomize-controller v1.9 (generated kustomization, spec fields merged in,
 *     kustomize's build with load restrictions off inside the source, postBuild substitution, owner
 *     labels, commonMetadata), from the workspace including unsaved buffers.
 *   - `renderHelmRelease`: helm-controller v1.6 (`helm template` with the merged values, release name
 *     and namespace as the controller computes them, then its kustomize post-renderers).
 * kustomize and helm are their own Go code compiled to WebAssembly (src/engine/wasm), run over an
 * in-memory copy of exactly the source's files: no binary needed, no process, no host file system.
 * SOPS-encrypted values are never decrypted: `ENC[...]` strings come out as `***`. Secret values
 * otherwise stay in the objects (drift needs them); `maskSecrets` masks them for display.
 * Nothing starts a process. Only fetching a chart that is not in the chart cache uses the network,
 * never when `opts.allowNetwork` is false or `opts.offline` is true.
 */
import type { HelmReleaseNode, KustomizationNode, RepoModel } from '../core/model/graph';
import type { Result } from '../core/result';
import type { RenderError } from './errors';
import type { HelmRenderResult, RenderOptions, RenderResult } from './types';
import { renderKustomizationImpl } from './kustomize';
import { renderHelmReleaseImpl } from './helm';

export type { RenderError, RenderErrorKind } from './errors';
export type { RenderedObject, RenderOptions, RenderResult, HelmRenderResult } from './types';
export { maskSecrets, toManifest } from '../core/flux/mask';
export { OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../core/flux/postbuild';

/** What kustomize-controller would apply for `ks` (objects in kustomize's output order). */
export function renderKustomization(model: RepoModel, ks: KustomizationNode, opts: RenderOptions): Promise<Result<RenderResult, RenderError>> {
  return renderKustomizationImpl(model, ks, opts);
}

/** What helm-controller would install for `hr` (the manifests of `helm template`, hooks excluded). */
export function renderHelmRelease(model: RepoModel, hr: HelmReleaseNode, opts: RenderOptions): Promise<Result<HelmRenderResult, RenderError>> {
  return renderHelmReleaseImpl(model, hr, opts);
}
