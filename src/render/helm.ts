import type { HelmReleaseNode, RepoModel } from '../core/model/graph';
import { fail, type Errorable } from './errors';
import type { HelmRenderResult, RenderOptions } from './types';

export async function renderHelmReleaseImpl(_model: RepoModel, _hr: HelmReleaseNode, _opts: RenderOptions): Promise<Errorable<HelmRenderResult>> {
  return fail('invalid', 'not implemented yet');
}
