/**
 * What the helm refiner keeps in the folder's build cache per HelmRelease render, and the check an
 * entry read back must pass (as cachedRefinement.ts does for Kustomization builds): an entry of
 * another shape is dropped and rendered again, never handed to the model.
 */
import type { HelmInstall } from '../core/helm/install';
import { isBuiltObject, isRecord } from './cachedRefinement';

/** `value` (a cache entry's) as a HelmInstall, or why it is not one. */
export function asCachedHelmInstall(value: unknown): HelmInstall | string {
  if (!isRecord(value) || !isRecord(value.install)) return 'not an object holding an install';
  const install = value.install;
  if (install.ok === false) {
    if (typeof install.message !== 'string' || typeof install.atHand !== 'boolean') return 'a failed render without its message';
    if (install.incomplete !== undefined && !isStrings(install.incomplete)) return 'a failed render with a bad list of incomplete values';
    if (install.violations !== undefined && !(Array.isArray(install.violations) && install.violations.every(isViolation))) return 'a failed render with a bad list of values violations';
    return install as unknown as HelmInstall;
  }
  if (install.ok !== true) return 'neither rendered nor failed';
  const chart = install.chart;
  if (!isRecord(chart) || typeof chart.name !== 'string' || typeof chart.version !== 'string' || typeof chart.digest !== 'string' || (chart.from !== 'workspace' && chart.from !== 'chart cache')) return 'no chart';
  const kube = install.kubeVersion;
  if (!isRecord(kube) || typeof kube.version !== 'string' || typeof kube.origin !== 'string') return 'no Kubernetes version';
  if (!isStrings(install.incomplete)) return 'no list of incomplete values';
  if (install.unread !== undefined && !(isRecord(install.unread) && isStrings(install.unread.keys) && isStrings(install.unread.known))) return 'a bad list of unread values';
  for (const list of [install.crds, install.objects]) {
    if (!Array.isArray(list)) return 'no list of objects';
    const bad = (list as unknown[]).findIndex((o) => !isBuiltObject(o));
    if (bad >= 0) return `object ${bad + 1} has no apiVersion, kind or metadata.name`;
  }
  return install as unknown as HelmInstall;
}

function isStrings(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string');
}

function isViolation(v: unknown): boolean {
  return isRecord(v) && isStrings(v.path) && typeof v.chart === 'string' && typeof v.message === 'string' && (v.value === undefined || ['string', 'number', 'boolean'].includes(typeof v.value));
}
