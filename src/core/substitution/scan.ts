import { visit } from 'yaml';
import type { YamlDoc } from '../yaml/document';
import { asRecord, type KubeObject } from '../model/objects';
import { findSubstitutions, type SubstitutionRef, type SubstitutionSyntaxError } from './parse';

export interface DocSubstitutions {
  /** Every `${…}` in the document's keys and values (comments excluded, as Flux re-serialises the YAML). */
  readonly refs: SubstitutionRef[];
  /**
   * Syntax envsubst rejects; Flux fails the whole Kustomization on these ("variable substitution
   * failed"). With `limit`, nesting past our depth limit, which Flux reads.
   */
  readonly errors: SubstitutionSyntaxError[];
}

const EMPTY: DocSubstitutions = { refs: [], errors: [] };
const cache = new WeakMap<YamlDoc, DocSubstitutions>();

/** Substitutions of one document, with file offsets; memoised per parsed document. */
export function substitutionsInDoc(doc: YamlDoc): DocSubstitutions {
  const cached = cache.get(doc);
  if (cached) return cached;
  let result = EMPTY;
  const text = doc.file.text;
  if (text.slice(doc.start, doc.end).includes('${')) {
    const refs: SubstitutionRef[] = [];
    const errors: SubstitutionSyntaxError[] = [];
    const scan = (range: readonly [number, number]) => {
      const found = findSubstitutions(text.slice(range[0], range[1]), range[0]);
      for (const r of found.refs) refs.push(r);
      if (found.error) errors.push(found.error);
    };
    if (doc.substitutionScalars) doc.substitutionScalars.forEach(scan);
    else {
      try {
        visit(doc.node, {
          Scalar(_key, node) {
            if (node.range) scan([node.range[0], node.range[1]]);
          },
        });
      } catch {
        // A document nested deeper than the stack allows: its parse already carries a problem.
      }
    }
    result = refs.length || errors.length ? { refs, errors } : EMPTY;
  }
  cache.set(doc, result);
  return result;
}

/** The `${…}` under an offset of a document, if any (innermost wins). */
export function substitutionAt(doc: YamlDoc, offset: number): SubstitutionRef | undefined {
  let best: SubstitutionRef | undefined;
  for (const r of substitutionsInDoc(doc).refs) {
    if (offset >= r.start && offset <= r.end && (!best || r.start >= best.start)) best = r;
  }
  return best;
}

export const SUBSTITUTE_KEY = 'kustomize.toolkit.fluxcd.io/substitute';

/** `kustomize.toolkit.fluxcd.io/substitute: disabled` as a label or annotation opts an object out. */
export function substitutionDisabled(obj: KubeObject): boolean {
  const meta = asRecord(obj.body.metadata);
  return asRecord(meta?.labels)?.[SUBSTITUTE_KEY] === 'disabled' || asRecord(meta?.annotations)?.[SUBSTITUTE_KEY] === 'disabled';
}
