/** Label/annotation switches Flux reads on objects it applies. */
import type { KubeJson } from '../kubeJson';
import { isRecord } from './types';

export const KS_GROUP = 'kustomize.toolkit.fluxcd.io';
export const RECONCILE_KEY = `${KS_GROUP}/reconcile`;
export const SSA_KEY = `${KS_GROUP}/ssa`;
export const FORCE_KEY = `${KS_GROUP}/force`;
export const PRUNE_KEY = `${KS_GROUP}/prune`;
export const HELM_DRIFT_KEY = 'helm.toolkit.fluxcd.io/driftDetection';

export type Selector = Record<string, string>;

/** kustomize-controller's diff options (flux2 internal/build/diff.go). */
export const KS_EXCLUSIONS: Selector = { [RECONCILE_KEY]: 'disabled', [SSA_KEY]: 'ignore' };
export const KS_IF_NOT_PRESENT: Selector = { [SSA_KEY]: 'ifnotpresent' };
export const KS_FORCE: Selector = { [FORCE_KEY]: 'enabled' };
/** helm-controller's exclusion selector (api/v2 DriftDetectionMetadataKey / DisabledValue). */
export const HELM_EXCLUSIONS: Selector = { [HELM_DRIFT_KEY]: 'disabled' };

/** The first `key=value` found in the object's labels or annotations (values compared case-insensitively, like fluxcd/pkg AnyInMetadata). */
export function matchInMetadata(obj: KubeJson | undefined, selector: Selector): string | undefined {
  if (!obj) return undefined;
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const labels = isRecord(meta.labels) ? meta.labels : {};
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  for (const [key, val] of Object.entries(selector)) {
    for (const m of [labels, annotations]) {
      const v = m[key];
      if (typeof v === 'string' && v !== '' && v.toLowerCase() === val.toLowerCase()) return `${key}: ${v}`;
    }
  }
  return undefined;
}
