/**
 * Generator inputs kustomize-controller fetches: kustomize's file loader downloads a `files`/`envs`
 * entry that is an http(s) URL (Flux allows it, as it allows remote bases), so Flux builds such a
 * kustomization and applies everything in it. The preview never fetches: it builds the same
 * generators with the fetched content left empty, so the build, its patches and everything else in
 * it stay what Flux applies; only the generated ConfigMap or Secret's data under that key is unknown.
 */
import { asArray, asRecord, asString } from '../model/objects';

/** A generator source kustomize would download (`https://…`, `key=https://…`). */
export function isFetchedInput(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

const GENERATORS = ['configMapGenerator', 'secretGenerator'];

/**
 * The kustomization with each fetched `files` entry as an empty literal of the same key (kustomize
 * names a file entry without `key=` by the last segment of its path) and each fetched env file
 * dropped. Undefined when it fetches nothing.
 */
export function withoutFetchedInputs(config: Record<string, unknown>): Record<string, unknown> | undefined {
  let changed = false;
  const out: Record<string, unknown> = { ...config };
  for (const field of GENERATORS) {
    if (!Array.isArray(config[field])) continue;
    out[field] = asArray(config[field]).map((entry) => {
      const g = asRecord(entry);
      if (!g) return entry;
      const files = asArray(g.files);
      const envs = asArray(g.envs);
      const fetched = files.filter((f) => isFetchedFileEntry(f));
      const envFetched = envs.some((e) => typeof e === 'string' && isFetchedInput(e)) || (typeof g.env === 'string' && isFetchedInput(g.env));
      if (!fetched.length && !envFetched) return entry;
      changed = true;
      const next: Record<string, unknown> = { ...g };
      if (fetched.length) {
        next.files = files.filter((f) => !isFetchedFileEntry(f));
        next.literals = [...asArray(g.literals), ...fetched.map((f) => `${fileKey(f as string)}=`)];
      }
      if (envFetched) {
        next.envs = envs.filter((e) => !(typeof e === 'string' && isFetchedInput(e)));
        if (typeof g.env === 'string' && isFetchedInput(g.env)) delete next.env;
      }
      return next;
    });
  }
  return changed ? out : undefined;
}

/** `key=path` splits at the first `=`, as kustomize's ParseFileSource does. */
function isFetchedFileEntry(entry: unknown): boolean {
  const text = asString(entry);
  if (text === undefined) return false;
  const eq = text.indexOf('=');
  return isFetchedInput(eq === -1 ? text : text.slice(eq + 1));
}

function fileKey(entry: string): string {
  const eq = entry.indexOf('=');
  if (eq !== -1) return entry.slice(0, eq);
  return entry.slice(entry.lastIndexOf('/') + 1);
}
