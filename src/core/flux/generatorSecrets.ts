/**
 * What a kustomize `secretGenerator` turns into Secret values: its `literals` and the lines of its
 * env files. kustomize quotes a malformed one in its error ("invalid literal source hunter2,
 * expected key=value"), so a failed build's message is scrubbed of these before it is shown.
 */
import { parse as parseYaml } from 'yaml';
import { MAX_ALIASES, QUIET } from '../yaml/document';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
import { ParsedByText } from '../yaml/byText';
import { resolveInSource, type SourceTree } from './confine';

/**
 * Secret values written in the secretGenerators of the kustomization files among `paths` (source
 * paths read through `tree`): each literal and env line whole, and its value after the first `=`.
 */
export function secretGeneratorValues(tree: SourceTree, paths: Iterable<string>): Set<string> {
  const out = new Set<string>();
  const add = (entry: string) => {
    out.add(entry);
    const eq = entry.indexOf('=');
    if (eq !== -1) out.add(entry.slice(eq + 1));
  };
  for (const path of paths) {
    const slash = path.lastIndexOf('/');
    if (!KUSTOMIZATION_FILE_NAMES.includes(path.slice(slash + 1))) continue;
    const dir = slash === -1 ? '' : path.slice(0, slash);
    const text = tree.readFile(path) ?? '';
    // Most kustomizations have no secretGenerator: they are not parsed (a failed build reads them all).
    if (!/[sſ]ecretgenerator/i.test(text)) continue;
    let config: unknown;
    try {
      config = parsed.get(text);
    } catch {
      continue;
    }
    for (const generator of listOf(field(config, 'secretGenerator'))) {
      for (const literal of listOf(field(generator, 'literals'))) if (typeof literal === 'string') add(literal);
      for (const env of [...listOf(field(generator, 'envs')), field(generator, 'env')]) {
        if (typeof env !== 'string') continue;
        const at = resolveInSource(dir, env);
        const envText = 'vpath' in at ? tree.readFile(at.vpath) : undefined;
        for (const line of envText?.split(/\r?\n/) ?? []) if (line.trim() && !line.trimStart().startsWith('#')) add(line);
      }
    }
  }
  return out;
}

/** Kustomization files by text: every failed build of a source reads the same ones. */
const parsed = new ParsedByText((text): unknown => parseYaml(text, { ...QUIET, maxAliasCount: MAX_ALIASES }), 256);

/** A field as kustomize (Go's encoding/json) reads it: the key matched with Unicode simple case folding (`ſecretGenerator`). */
function field(obj: unknown, name: string): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const fold = (key: string) => key.toUpperCase().toLowerCase();
  const want = fold(name);
  for (const [k, v] of Object.entries(obj)) if (fold(k) === want) return v;
  return undefined;
}

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
