/**
 * What a kustomize `secretGenerator` turns into Secret values: its `literals` and the lines of its
 * env files. kustomize quotes a malformed one in its error ("invalid literal source hunter2,
 * expected key=value"), so a failed build's message is scrubbed of these before it is shown.
 */
import { parse as parseYaml } from 'yaml';
import { MAX_ALIASES, QUIET } from '../yaml/document';
import { KUSTOMIZATION_FILE_NAMES } from '../kinds';
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
    let config: unknown;
    try {
      config = parseYaml(tree.readFile(path) ?? '', { ...QUIET, maxAliasCount: MAX_ALIASES });
    } catch {
      continue;
    }
    for (const generator of listOf(field(config, 'secretGenerator'))) {
      for (const literal of listOf(field(generator, 'literals'))) if (typeof literal === 'string') add(literal);
      for (const env of [...listOf(field(generator, 'envs')), field(generator, 'env')]) {
        if (typeof env !== 'string') continue;
        const at = resolveInSource(dir, env);
        const text = 'vpath' in at ? tree.readFile(at.vpath) : undefined;
        for (const line of text?.split(/\r?\n/) ?? []) if (line.trim() && !line.trimStart().startsWith('#')) add(line);
      }
    }
  }
  return out;
}

/** A field as kustomize (Go's encoding/json) reads it: the key matched without regard to case. */
function field(obj: unknown, name: string): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const want = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === want) return v;
  return undefined;
}

function listOf(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
