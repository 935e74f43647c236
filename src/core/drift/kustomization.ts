/** What kustomize-controller adds to every object it applies, beyond `kustomize build`. */
import { KS_GROUP } from './metadata';
import { asRules } from './specRules';
import type { IgnoreRule } from './ignore';
import type { KubeJson } from '../kubeJson';
import { isRecord, type DesiredObject } from './types';

/**
 * Owner labels (`kustomize.toolkit.fluxcd.io/name|namespace`) and `spec.commonMetadata`, as flux
 * build sets them; idempotent, so objects a renderer already labelled are unchanged.
 */
export function withKustomizationMetadata(objects: readonly DesiredObject[], ks: KubeJson): DesiredObject[] {
  const name = String(ks.metadata?.name ?? '');
  const namespace = String(ks.metadata?.namespace ?? 'flux-system');
  const common = isRecord(ks.spec?.commonMetadata) ? ks.spec.commonMetadata : {};
  const extraLabels = isRecord(common.labels) ? common.labels : {};
  const extraAnnotations = isRecord(common.annotations) ? common.annotations : {};
  return objects.map((d) => {
    const o = JSON.parse(JSON.stringify(d.object)) as KubeJson;
    if (!isRecord(o.metadata)) o.metadata = {};
    const m = o.metadata;
    m.labels = { ...(isRecord(m.labels) ? m.labels : {}), ...extraLabels, [`${KS_GROUP}/name`]: name, [`${KS_GROUP}/namespace`]: namespace };
    if (Object.keys(extraAnnotations).length) m.annotations = { ...(isRecord(m.annotations) ? m.annotations : {}), ...extraAnnotations };
    return { ...d, object: o };
  });
}

export function kustomizationIgnoreRules(ks: KubeJson): IgnoreRule[] {
  return asRules(ks?.spec?.ignore);
}

/** `spec.prune` (required by the v1 API; absent means off). */
export function pruneEnabled(ks: KubeJson | undefined): boolean {
  return ks?.spec?.prune === true;
}
