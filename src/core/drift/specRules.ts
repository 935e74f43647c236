import type { IgnoreRule } from './ignore';
import type { Selector } from './selector';
import { isRecord } from './types';

const SELECTOR_FIELDS = ['group', 'version', 'kind', 'name', 'namespace', 'annotationSelector', 'labelSelector'] as const;

/** Reads `[{paths: [...], target: {...}}]` leniently: malformed entries are dropped. */
export function asRules(v: unknown): IgnoreRule[] {
  if (!Array.isArray(v)) return [];
  const rules: IgnoreRule[] = [];
  for (const r of v) {
    if (!isRecord(r) || !Array.isArray(r.paths)) continue;
    const paths = r.paths.filter((p: unknown): p is string => typeof p === 'string');
    let target: Selector | undefined;
    if (isRecord(r.target)) {
      target = {};
      for (const f of SELECTOR_FIELDS) if (typeof r.target[f] === 'string') target[f] = r.target[f];
    }
    rules.push(target ? { paths, target } : { paths });
  }
  return rules;
}
