/**
 * Names the cause of each mismatch from what the two builds say. The rules are deliberately
 * plain string tests on the diff and the error messages; docs/fidelity.md lists the causes with
 * one worked example each. `unclassified` is a cause too: it means "read the entry".
 *
 * Two families: *input* (`input-differs`, with one `input-differs:spec.FIELD` per field): the
 * parent's flux build hands the child a spec that differs from the model's reading of the child's
 * file; the renderer is then run again on flux's input, and when that agrees the input is the only
 * cause. Every other cause is found on a build from the same input: a renderer (or harness,
 * or corpus) difference.
 */
import type { Entry } from './harness';

export const CAUSES = {
  inputDiffers: 'input-differs',
  substitution: 'substitution',
  ownerLabels: 'owner-labels',
  objectSet: 'object-set',
  namespace: 'namespace',
  secretData: 'secret-data',
  remoteBase: 'remote-base-not-fetched',
  missingInput: 'input-missing-from-repo',
  strictSubstitution: 'strict-substitution',
  substituteFromMissing: 'substituteFrom-missing',
  kustomizeError: 'kustomize-error',
  fluxOnlyError: 'flux-error',
  oursOnlyError: 'our-error',
  unclassified: 'unclassified',
} as const;

function hasVar(v: unknown): boolean {
  return typeof v === 'string' ? v.includes('${') : v !== null && typeof v === 'object' ? JSON.stringify(v).includes('${') : false;
}

function errorCause(full: string): string {
  // Our messages start with the Kustomization's name, which must not look like a cause.
  const msg = full.replace(/^Kustomization [^\s:]+: /, '');
  if (/WebAssembly module is missing/.test(msg)) return 'wasm-module-missing';
  if (/remote (resource|base)|would fetch remote/i.test(msg)) return CAUSES.remoteBase;
  if (/var substitution failed|post build failed|envsubst|strict mode/i.test(msg)) return CAUSES.strictSubstitution;
  if (/not in the workspace|no such file|does not exist|must build at directory|not found in|missing|unable to find|lstat/i.test(msg)) return CAUSES.missingInput;
  if (/variable|substitut|\$\{/i.test(msg)) return CAUSES.strictSubstitution;
  if (/kustomize|accumulat|patch|resmap|may not add resource/i.test(msg)) return CAUSES.kustomizeError;
  return CAUSES.unclassified;
}

export function classify(e: Entry): string[] {
  if (e.outcome !== 'identical' && e.inputSpecDiffers) {
    const input = [CAUSES.inputDiffers, ...e.inputFields.map((f) => `${CAUSES.inputDiffers}:${f}`)];
    // What remains when our renderer is given flux's input is a renderer difference.
    const rest = e.givenInput && e.givenInput.outcome !== 'identical' ? buildCauses({ ...e, ...e.givenInput, oursError: e.givenInput.oursError }) : [];
    return [...new Set([...input, ...rest])].sort();
  }
  return buildCauses(e);
}

function buildCauses(e: Pick<Entry, 'outcome' | 'notes' | 'fluxError' | 'oursError' | 'diff'>): string[] {
  const causes = new Set<string>();
  if (e.notes.some((n) => /^substituteFrom .* not found$/.test(n))) causes.add(CAUSES.substituteFromMissing);
  if (e.outcome === 'only-flux' && e.oursError) causes.add(`${CAUSES.oursOnlyError}:${errorCause(e.oursError)}`);
  if (e.outcome === 'only-ours' && e.fluxError) causes.add(`${CAUSES.fluxOnlyError}:${errorCause(e.fluxError)}`);
  if (e.outcome === 'neither') {
    if (e.fluxError) causes.add(`${CAUSES.fluxOnlyError}:${errorCause(e.fluxError)}`);
    if (e.oursError) causes.add(`${CAUSES.oursOnlyError}:${errorCause(e.oursError)}`);
  }
  const d = e.diff;
  if (d && e.outcome === 'differ') {
    if (d.onlyFlux.length || d.onlyOurs.length) causes.add(CAUSES.objectSet);
    for (const c of d.changed) {
      for (const f of c.fields) {
        if (hasVar(f.flux) || hasVar(f.ours)) causes.add(CAUSES.substitution);
        else if (f.path.startsWith('.metadata.labels.kustomize.toolkit.fluxcd.io')) causes.add(CAUSES.ownerLabels);
        else if (f.path === '.metadata.namespace') causes.add(CAUSES.namespace);
        else if (c.key.startsWith('Secret/') && /^\.(data|stringData)/.test(f.path)) causes.add(CAUSES.secretData);
        else causes.add(`${CAUSES.unclassified}:${c.key.split('/')[0]}${f.path}`);
      }
    }
  }
  return [...causes].sort();
}
