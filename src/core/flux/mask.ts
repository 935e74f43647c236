/**
 * Secrets never leave the extension in clear: SOPS-encrypted values are never decrypted (shown as
 * `***`), and Secret data is masked in anything displayed.
 */
export const MASK = '***';

/**
 * Stands in for a masked value while it travels through text substitution (a bare `***` would be
 * a YAML alias); `restoreMasks` turns it back into `***` once the YAML is parsed.
 */
export const MASK_SENTINEL = 'GITOPS_PREVIEW_MASKED_VALUE';

export function restoreMasks(v: any): any {
  if (typeof v === 'string') return v.includes(MASK_SENTINEL) ? v.split(MASK_SENTINEL).join(MASK) : v;
  if (Array.isArray(v)) return v.map(restoreMasks);
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = restoreMasks(v[k]);
  }
  return v;
}

/** A SOPS-encrypted scalar: `ENC[AES256_GCM,data:...,type:str]`. */
export function isSopsValue(v: unknown): boolean {
  return typeof v === 'string' && v.startsWith('ENC[') && v.endsWith(']');
}

/**
 * Replaces every SOPS `ENC[...]` value by `***` and drops the `sops:` metadata (what
 * kustomize-controller's decryption would remove). Returns whether the object was encrypted.
 */
export function maskSops(obj: Record<string, any>): boolean {
  let found = false;
  const walk = (v: any): any => {
    if (isSopsValue(v)) {
      found = true;
      return MASK;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      for (const k of Object.keys(v)) v[k] = walk(v[k]);
      return v;
    }
    return v;
  };
  walk(obj);
  if (obj.sops && typeof obj.sops === 'object' && !Array.isArray(obj.sops)) {
    delete obj.sops;
    found = true;
  }
  return found;
}

/** A display copy: Secret `data`/`stringData` values become `***` (keys stay visible). */
export function maskSecrets<T extends { kind?: unknown }>(obj: T): T {
  if (obj.kind !== 'Secret') return obj;
  const copy: Record<string, any> = { ...(obj as Record<string, any>) };
  for (const field of ['data', 'stringData']) {
    const d = copy[field];
    if (d && typeof d === 'object' && !Array.isArray(d)) copy[field] = Object.fromEntries(Object.keys(d).map((k) => [k, MASK]));
  }
  return copy as T;
}

/** The object without render bookkeeping (`origin`), as it would be sent to a cluster. */
export function toManifest<T extends { origin?: unknown }>(obj: T): Omit<T, 'origin'> {
  const { origin: _origin, ...rest } = obj;
  return rest;
}
