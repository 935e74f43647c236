import { asRecord } from '../model/objects';

export const SSA_KEY = 'kustomize.toolkit.fluxcd.io/ssa';

/**
 * Whether kustomize-controller leaves the object to whoever else applies it: `IfNotPresent` creates
 * it only when it does not exist yet and `Ignore` never applies it, so several Kustomizations holding
 * it do not fight over it. Flux reads the key from the labels or the annotations.
 */
export function yieldsToOthers(body: Record<string, unknown>): boolean {
  const metadata = asRecord(body.metadata);
  for (const field of ['annotations', 'labels']) {
    const value = asRecord(metadata?.[field])?.[SSA_KEY];
    if (value === 'IfNotPresent' || value === 'Ignore') return true;
  }
  return false;
}
