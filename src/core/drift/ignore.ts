/**
 * Drift ignore rules: `spec.driftDetection.ignore` of a HelmRelease and `spec.ignore`-style rules,
 * each a list of JSON pointers plus an optional target selector.
 */
import { parsePointer, removeAtPointer } from './jsonPointer';
import { compileSelector, type CompiledSelector, type Selector } from './selector';
import { asRules } from './specRules';
import type { KubeJson } from '../kubeJson';

export interface IgnoreRule {
  paths: string[];
  target?: Selector;
}

export interface CompiledIgnoreRules {
  /** JSON pointers that apply to `obj` ('' = the whole object). */
  pathsFor(obj: KubeJson): string[];
  readonly size: number;
}

/** Throws an Error naming the rule (index) and what is wrong with it. */
export function compileIgnoreRules(rules: readonly IgnoreRule[]): CompiledIgnoreRules {
  const compiled: Array<{ selector: CompiledSelector; paths: string[] }> = rules.map((r, i) => {
    try {
      for (const p of r.paths) parsePointer(p);
      return { selector: compileSelector(r.target), paths: r.paths };
    } catch (e) {
      throw new Error(`ignore rule ${i}: ${(e as Error).message}`);
    }
  });
  return {
    size: compiled.length,
    pathsFor(obj) {
      return compiled.filter((c) => c.selector.matches(obj)).flatMap((c) => c.paths);
    },
  };
}

/** Removes the given pointers from `obj` in place. */
export function stripPaths(obj: KubeJson, paths: readonly string[]): void {
  for (const p of paths) removeAtPointer(obj, p);
}

/** Ignore rules as written in a HelmRelease's `spec.driftDetection.ignore`. */
export function helmIgnoreRules(helmRelease: KubeJson): IgnoreRule[] {
  return asRules(helmRelease?.spec?.driftDetection?.ignore);
}
