/**
 * What `changes` reports (issue 27): its JSON output is this shape, one to one, but for each
 * object's `yaml` (the views that lay both sides out: the HTML page, the editor's diff).
 */
import type { RelativeFinding } from '../checks/relative';

export type Change = 'added' | 'removed' | 'changed';

export interface ObjectChange {
  kind: string;
  name: string;
  namespace: string;
  change: Change;
  /** Lines `+ path: value`, `- path: value`, `~ path: moved from 2 to 0`; Secret values `***`. */
  diff: string;
  /** The object as YAML on each side, Secret values masked as in `diff`; '' on the side it is not on. */
  yaml: { before: string; after: string };
}

/** One Kustomization's (or HelmRelease's) objects that differ between the base and the working tree. */
export interface ProducerChanges {
  cluster: string;
  kind: 'Kustomization' | 'HelmRelease';
  name: string;
  namespace: string;
  objects: ObjectChange[];
  /**
   * A HelmRelease compared by its spec, not by what its chart renders, and why (its chart is not at
   * hand on a side, say); absent when its renders are compared.
   */
  note?: string;
}

/** A producer that builds on one side only (or on neither): its objects cannot be compared. */
export interface ProducerFailure {
  cluster: string;
  kind: 'Kustomization' | 'HelmRelease';
  name: string;
  namespace: string;
  /** The side whose build failed: `base`, `head` (the working tree), or `both`. */
  failed: 'base' | 'head' | 'both';
  message: string;
}

/** A `check` finding on one side, as the CLI shows it (path relative to the repository root, 1-based). */
export type ChangedFinding = RelativeFinding;

/** One image repository whose references differ: `ghcr.io/a/b` with tags (or digests) before and after. */
export interface ImageChange {
  image: string;
  before: string[];
  after: string[];
  /** References of this repository in use on both sides (another workload keeps the old tag, say); absent when none. */
  kept?: string[];
}

export interface ChangesReport {
  /** The base commit (full object name). */
  base: string;
  changes: ProducerChanges[];
  findings: { introduced: ChangedFinding[]; fixed: ChangedFinding[] };
  failures: ProducerFailure[];
  images: ImageChange[];
}

export function hasChanges(r: ChangesReport): boolean {
  return r.changes.length > 0 || r.findings.introduced.length > 0 || r.findings.fixed.length > 0 || r.failures.some((f) => f.failed !== 'both') || r.images.length > 0;
}
