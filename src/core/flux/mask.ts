import { fromBase64Utf8 } from '../drift/normalize';

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
  // A secretGenerator's file or env file encrypted with SOPS: kustomize-controller decrypts it
  // before the build, so the Secret holds values the preview never has, not this ciphertext.
  const data = obj.kind === 'Secret' ? obj.data : undefined;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    for (const [k, v] of Object.entries(data)) {
      if (typeof v !== 'string' || v === MASK) continue;
      const plain = fromBase64Utf8(v);
      if (plain !== undefined && (isSopsValue(plain.trim()) || isSopsText(plain))) {
        data[k] = MASK;
        found = true;
      }
    }
  }
  return found;
}

/** A file as SOPS writes it: YAML or JSON with `ENC[...]` values and its `sops` metadata, or a dotenv with `sops_` keys. */
function isSopsText(text: string): boolean {
  return text.includes('ENC[AES256_GCM,') && (/^sops:\s*$/m.test(text) || /"sops"\s*:/.test(text) || /^sops_[a-z_]+=/m.test(text));
}

/** kubectl's client-side-apply annotation: the whole object as last applied, a Secret's values included. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

const SECRET_FIELDS = ['data', 'stringData'] as const;

/** A display copy: Secret `data`/`stringData` values and its last-applied annotation become `***` (keys stay visible). */
export function maskSecrets<T extends { kind?: unknown }>(obj: T): T {
  if (obj.kind !== 'Secret') return obj;
  const copy: Record<string, any> = { ...(obj as Record<string, any>) };
  for (const field of SECRET_FIELDS) {
    const d = copy[field];
    if (d && typeof d === 'object' && !Array.isArray(d)) copy[field] = Object.fromEntries(Object.keys(d).map((k) => [k, MASK]));
  }
  const annotations = copy.metadata?.annotations;
  if (annotations && typeof annotations === 'object' && Object.hasOwn(annotations, LAST_APPLIED_ANNOTATION)) {
    copy.metadata = { ...copy.metadata, annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: MASK } };
  }
  return copy as T;
}

/** Shorter values are not looked for elsewhere: they would match too much, and tell little. */
const MIN_SCRUBBED_LENGTH = 3;

/** The values of the Secrets among `objects`, as written and, for `data`, base64-decoded. */
export function secretValues(objects: Iterable<{ kind?: unknown }>): Set<string> {
  const values = new Set<string>();
  for (const obj of objects) {
    if (obj.kind !== 'Secret') continue;
    for (const field of SECRET_FIELDS) {
      const m = (obj as Record<string, any>)[field];
      if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
      for (const v of Object.values(m)) {
        if (typeof v !== 'string') continue;
        values.add(v);
        const plain = field === 'data' ? fromBase64Utf8(v) : undefined;
        if (plain !== undefined) values.add(plain);
      }
    }
  }
  return values;
}

/** `text` with every occurrence of each value (3 characters or more, longest first) replaced by `***`. */
export function scrubValues(text: string, values: Iterable<string>): string {
  return valueMasker(values, false)?.(text) ?? text;
}

/**
 * Display copies of rendered objects: Secrets masked (`maskSecrets`), and wherever a Secret's
 * value (3 characters or more, as written or base64-decoded) stands as a word in another string —
 * where a kustomize `replacements` entry copied it, say — it becomes `***`. A word: not preceded
 * or followed by a letter or digit, so `admin` is not looked for inside `administrator`.
 */
export function maskRenderedSecrets<T extends { kind?: unknown }>(objects: readonly T[]): T[] {
  const mask = valueMasker(secretValues(objects), true);
  if (!mask) return objects.map(maskSecrets);
  const scrub = (v: unknown): unknown => {
    if (typeof v === 'string') return mask(v);
    if (Array.isArray(v)) return v.map(scrub);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]));
    return v;
  };
  return objects.map((o) => scrub(maskSecrets(o)) as T);
}

/**
 * Replaces the values (3 characters or more) found in a text by `***`, the longest first at each
 * position; with `words`, only where not preceded or followed by a letter or digit. Values are
 * indexed by their first 3 characters, so a text is read once whatever the number of values
 * (a build may hold thousands of Secret values, and a regular expression of them all costs that
 * many tries at every position). Undefined when there is no value to look for.
 */
function valueMasker(values: Iterable<string>, words: boolean): ((text: string) => string) | undefined {
  const byPrefix = new Map<string, string[]>();
  for (const v of new Set(values)) {
    if (v.length < MIN_SCRUBBED_LENGTH || v === MASK) continue;
    const key = v.slice(0, MIN_SCRUBBED_LENGTH);
    const bucket = byPrefix.get(key);
    if (bucket) bucket.push(v);
    else byPrefix.set(key, [v]);
  }
  if (!byPrefix.size) return undefined;
  for (const bucket of byPrefix.values()) bucket.sort((a, b) => b.length - a.length);
  const wordAt = (text: string, i: number) => i >= 0 && i < text.length && /[\p{L}\p{N}]/u.test(String.fromCodePoint(text.codePointAt(i)!));
  // The code point ending just before `i` (a surrogate pair's start when `i - 1` is its end).
  const wordBefore = (text: string, i: number) => wordAt(text, i >= 2 && /[\udc00-\udfff]/.test(text[i - 1]) ? i - 2 : i - 1);
  return (text) => {
    let out = '';
    let kept = 0;
    for (let i = 0; i + MIN_SCRUBBED_LENGTH <= text.length; ) {
      const bucket = byPrefix.get(text.slice(i, i + MIN_SCRUBBED_LENGTH));
      const found = bucket && (!words || !wordBefore(text, i)) ? bucket.find((v) => text.startsWith(v, i) && (!words || !wordAt(text, i + v.length))) : undefined;
      if (found === undefined) {
        i++;
        continue;
      }
      out += text.slice(kept, i) + MASK;
      i += found.length;
      kept = i;
    }
    return kept === 0 ? text : out + text.slice(kept);
  };
}

/** The object without render bookkeeping (`origin`), as it would be sent to a cluster. */
export function toManifest<T extends { origin?: unknown }>(obj: T): Omit<T, 'origin'> {
  const { origin: _origin, ...rest } = obj;
  return rest;
}
