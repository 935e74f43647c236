/**
 * Parses of kustomize output documents, kept by their text: a re-render after an edit yields
 * mostly the same documents (a parent's build re-run because one of its many files changed), and
 * parsing each again was most of the post-build layer's time. Bounded by the texts' total size;
 * the least recently used go first. Callers get their own copy (the post-build layer mutates it).
 */
import { parse as parseYaml } from 'yaml';

/** Enough for the outputs of the few builds an edit re-runs (bjw-s' largest, cluster-apps, is ~0.2 MB), small beside the engine's memory. */
const MAX_BYTES = 4 * 2 ** 20;

const parsed = new Map<string, unknown>();
let bytes = 0;

/** `parse(text)` of the yaml package (its errors included), from the cache when the same text was parsed before. */
export function parseDocument(text: string): unknown {
  if (parsed.has(text)) {
    const value = parsed.get(text);
    // Most recently used last, so eviction takes the oldest.
    parsed.delete(text);
    parsed.set(text, value);
    return structuredClone(value);
  }
  const value: unknown = parseYaml(text);
  if (text.length <= MAX_BYTES / 16) {
    parsed.set(text, structuredClone(value));
    bytes += text.length;
    for (const old of parsed.keys()) {
      if (bytes <= MAX_BYTES) break;
      parsed.delete(old);
      bytes -= old.length;
    }
  }
  return value;
}

/** How many document texts are kept and their total length (for tests). */
export function parsedDocumentsSize(): { documents: number; bytes: number } {
  return { documents: parsed.size, bytes };
}
