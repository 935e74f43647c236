/**
 * Secret values never leave this module unmasked: `***` for values present on one side or equal on
 * both, `*** (before)` / `*** (after)` for values that differ (fluxcd/pkg ssa SanitizeUnstructuredData
 * and jsondiff MaskSecretPatchData).
 */
import { LAST_APPLIED_ANNOTATION, MASK, scrubValues, secretValues } from '../flux/mask';
import type { KubeJson } from '../kubeJson';
import { isRecord } from './types';

export const MASK_BEFORE = `${MASK} (before)`;
export const MASK_AFTER = `${MASK} (after)`;

const SECRET_FIELDS = ['data', 'stringData'] as const;

export function isSecret(obj: KubeJson | undefined): boolean {
  return !!obj && obj.kind === 'Secret' && obj.apiVersion === 'v1';
}

/** Masks in place; either side may be undefined (created / deleted objects). */
export function maskSecretPair(live: KubeJson | undefined, desired: KubeJson | undefined): void {
  for (const field of SECRET_FIELDS) {
    const l = isRecord(live?.[field]) ? (live![field] as Record<string, unknown>) : undefined;
    const d = isRecord(desired?.[field]) ? (desired![field] as Record<string, unknown>) : undefined;
    const lOrig = l ? { ...l } : undefined;
    if (l) {
      for (const k of Object.keys(l)) l[k] = d && k in d && d[k] !== l[k] ? MASK_BEFORE : MASK;
    }
    if (d) {
      for (const k of Object.keys(d)) d[k] = lOrig && k in lOrig && lOrig[k] !== d[k] ? MASK_AFTER : MASK;
    }
  }
  for (const o of [live, desired]) {
    const ann = o?.metadata?.annotations;
    if (isRecord(ann) && LAST_APPLIED_ANNOTATION in ann) ann[LAST_APPLIED_ANNOTATION] = MASK;
  }
}

/**
 * Removes Secret values from a server message (an Invalid error may quote the rejected value),
 * in plain and base64 form.
 */
export function scrubSecretValues(message: string, ...secrets: Array<KubeJson | undefined>): string {
  return scrubValues(message, secretValues(secrets.filter((s): s is KubeJson => isSecret(s))));
}
