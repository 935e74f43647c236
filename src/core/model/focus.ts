/**
 * BuildOptions.focus (`build ks NAME`): which Kustomizations a model asked about one name alone
 * leaves unbuilt.
 */
import type { Expansion } from './expand';
import type { KustomizationNode } from './graph';
import type { KubeObject } from './objects';
import type { BuildOptions } from './types';

/**
 * Left unbuilt: not of the name asked for, and its files, read whole without a build (nothing
 * remote, no reading problem), hold no Kustomization for a build to apply, nor an object that
 * generates objects (a ResourceSet's Kustomizations).
 */
export function outOfFocus(focus: BuildOptions['focus'], node: KustomizationNode, expansion: Expansion | undefined, generates: (o: KubeObject) => boolean): boolean {
  if (!focus || node.applied.name === focus.kustomization || !expansion) return false;
  if (expansion.remote.length > 0 || expansion.problems.length > 0) return false;
  return !expansion.objects.some((e) => e.object.fluxKind === 'Kustomization' || generates(e.object));
}
