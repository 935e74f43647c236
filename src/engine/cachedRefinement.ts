/**
 * What the refiner keeps in its build cache per Kustomization, and the check an entry read back
 * must pass. A persisted entry is only as good as the file it came from (edited by hand, cut by a
 * full disk, written by another version's code): one of another shape is dropped and built again,
 * never handed to the model, which trusts a build's shape.
 */
import type { BuiltObject, KustomizationBuild } from '../core/model/rendered';
import type { ReadKind } from '../render/kustomize';

export interface CachedRefinement {
  readonly build: KustomizationBuild;
  /** How the build used each path of its source (see RecordedBuild.reads). */
  readonly reads: Readonly<Record<string, ReadKind>>;
  /**
   * A whole build's render warnings (with `build.objects`, the render itself), so that a render
   * request can be answered from a reopened cache instead of building again. Absent for a failed
   * build, a build redone in part, and entries written before it was kept: those build again.
   */
  readonly warnings?: readonly string[];
}

const READ_KINDS: ReadonlySet<unknown> = new Set<ReadKind>(['stat', 'list', 'file']);

/** `value` as a CachedRefinement, or why it is not one. */
export function asCachedRefinement(value: unknown): CachedRefinement | string {
  if (!isRecord(value)) return 'not an object';
  const { build, reads, warnings } = value;
  if (!isRecord(reads) || !Object.values(reads).every((k) => READ_KINDS.has(k))) return 'reads are not a map of read kinds';
  if (warnings !== undefined && !(Array.isArray(warnings) && warnings.every((w) => typeof w === 'string'))) return 'warnings are not a list of strings';
  if (!isRecord(build)) return 'no build';
  if (build.ok === false) {
    return typeof build.message === 'string' && typeof build.reportable === 'boolean' ? (value as unknown as CachedRefinement) : 'a failed build without its message';
  }
  // A stale build is the model's placeholder while a new one runs; it is never cached.
  if (build.ok !== true || build.stale !== undefined) return 'a build neither built nor failed';
  if (!Array.isArray(build.objects)) return 'a build without objects';
  const bad = (build.objects as unknown[]).findIndex((o) => !isBuiltObject(o));
  if (bad >= 0) return `object ${bad + 1} of the build has no apiVersion, kind or metadata.name`;
  return value as unknown as CachedRefinement;
}

/** An object as a cached build or render holds it (HelmRelease renders use it too: cachedHelmInstall.ts). */
export function isBuiltObject(o: unknown): o is BuiltObject {
  if (!isRecord(o) || typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') return false;
  const { metadata, origin } = o;
  if (!isRecord(metadata) || typeof metadata.name !== 'string') return false;
  if (metadata.namespace !== undefined && typeof metadata.namespace !== 'string') return false;
  return origin === undefined || (isRecord(origin) && typeof origin.file === 'string' && Number.isInteger(origin.docIndex));
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
