/**
 * Names the cause of each mismatch from what the two builds say. The rules are deliberately
 * plain string tests on the diff and the error messages; docs/fidelity.md lists the causes with
 * one worked example each. `unclassified` is a cause too: it means "read the entry".
 */
import type { Entry } from './harness';

export const CAUSES = {
  parentRender: 'child-from-own-file',
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

function errorCause(msg: string): string {
  if (/remote (resource|base)|would fetch remote/i.test(msg)) return CAUSES.remoteBase;
  if (/not in the workspace|no such file|does not exist|must build at directory|not found in|missing|unable to find|lstat/i.test(msg)) return CAUSES.missingInput;
  if (/variable|substitut|\$\{/i.test(msg)) return CAUSES.strictSubstitution;
  if (/kustomize|accumulat|patch|resmap|may not add resource/i.test(msg)) return CAUSES.kustomizeError;
  return CAUSES.unclassified;
}

export function classify(e: Entry): string[] {
  const causes = new Set<string>();
  if (e.notes.some((n) => /^substituteFrom .* not found$/.test(n))) causes.add(CAUSES.substituteFromMissing);
  if (e.outcome === 'only-flux' && e.oursError) causes.add(`${CAUSES.oursOnlyError}:${errorCause(e.oursError)}`);
  if (e.outcome === 'only-ours' && e.fluxError) causes.add(`${CAUSES.fluxOnlyError}:${errorCause(e.fluxError)}`);
  if (e.outcome === 'neither') {
    if (e.fluxError) causes.add(`${CAUSES.fluxOnlyError}:${errorCause(e.fluxError)}`);
    if (e.oursError) causes.add(`${CAUSES.oursOnlyError}:${errorCause(e.oursError)}`);
  }
  // The model reads a child Kustomization from its own file; when the parent's build renders it
  // differently (patches, substitution), that difference explains whatever follows from it.
  if (e.outcome !== 'identical' && e.inputSpecDiffers) {
    causes.add(CAUSES.parentRender);
    return [...causes].sort();
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
