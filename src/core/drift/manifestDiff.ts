/**
 * "Desired vs deployed" for a HelmRelease: the local render against the manifest of the deployed
 * release, object by object, with no cluster call — a values change shows before it is pushed.
 */
import { deepEqual, fieldChanges } from './compare';
import { isSecret, maskSecretPair } from './mask';
import type { KubeJson } from '../kubeJson';
import { idOf, subjectOf, type DriftEntry, type DriftReport, type DriftTarget } from './types';
import { withoutNoise } from './normalize';

export function compareManifests(
  deployed: readonly KubeJson[],
  desired: readonly KubeJson[],
  target: DriftTarget,
  notes: string[] = [],
): DriftReport {
  const key = (o: KubeJson): string => {
    const id = idOf(o);
    return `${id.apiVersion.split('/').length > 1 ? id.apiVersion.split('/')[0] : ''}/${id.kind}/${id.namespace ?? ''}/${id.name}`;
  };
  const before = new Map(deployed.map((o) => [key(o), o]));
  const entries: DriftEntry[] = [];
  const seen = new Set<string>();
  for (const d of desired) {
    const k = key(d);
    seen.add(k);
    const id = idOf(d);
    const old = before.get(k);
    const live = old ? withoutNoise(old) : undefined;
    const want = withoutNoise(d);
    if (isSecret(live) || isSecret(want)) maskSecretPair(live, want);
    if (!old) {
      entries.push({ id, subject: subjectOf(id), verdict: 'created', reason: 'not in the deployed release', changes: [], desired: want });
    } else if (deepEqual(withoutNoise(old), withoutNoise(d))) {
      entries.push({ id, subject: subjectOf(id), verdict: 'unchanged', changes: [], live, desired: want });
    } else {
      entries.push({ id, subject: subjectOf(id), verdict: 'drifted', changes: fieldChanges(live, want), live, desired: want });
    }
  }
  for (const [k, o] of before) {
    if (seen.has(k)) continue;
    const id = idOf(o);
    const live = withoutNoise(o);
    if (isSecret(live)) maskSecretPair(live, undefined);
    entries.push({ id, subject: subjectOf(id), verdict: 'deleted', reason: 'no longer rendered', changes: [], live });
  }
  return { target, mode: 'helm-desired', entries, cancelled: false, notes, requests: 0 };
}
