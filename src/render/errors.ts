import { fail as failWith, ok, type Result } from '../core/result';
import type { ValuesViolation } from '../core/helm/install';

export type { ValuesViolation };

/**
 * Why a render failed, classified so the UI and the CLI can say exactly what to do
 * ("install kustomize", "this entry is remote", "variable X is not set") instead of a stack.
 */
export type RenderErrorKind =
  /** A WebAssembly module (dist/wasm) is missing. */
  | 'missing-binary'
  /** A chart would have to be fetched and the network is not allowed (untrusted workspace) or offline. */
  | 'not-allowed'
  /** The Kustomization's or HelmRelease's inputs are not in the workspace (external source, remote base, missing chart). */
  | 'unavailable'
  /** The object itself is malformed (no spec.path, bad component path, invalid valuesFrom...). */
  | 'invalid'
  /** kustomize build / helm template failed (or panicked, or its module crashed); the message carries its error. */
  | 'build-failed'
  /** postBuild variable substitution failed (strict mode, bad variable name, bad syntax). */
  | 'substitution'
  | 'timeout'
  /** A budget of the command (core/budgets.ts) stopped it: reported as `analysis-limit`, not as the build's fault. */
  | 'budget'
  | 'cancelled';

export interface RenderError {
  kind: RenderErrorKind;
  /** One human paragraph: what is wrong and where. */
  message: string;
  /** The build's own error text (or a failed process's stderr), when there was one. */
  stderr?: string;
  /** A HelmRelease's values the chart's schema refuses, each where it is in the merged values. */
  violations?: ValuesViolation[];
  /** A HelmRelease's values the render could not see (so its failure may not be the cluster's). */
  incompleteValues?: string[];
}


export { ok };

/** A failed render of the given kind. */
export function fail(kind: RenderErrorKind, message: string, stderr?: string): Result<never, RenderError> {
  return failWith(stderr === undefined ? { kind, message } : { kind, message, stderr });
}
