/**
 * `changes` in the engine: the base side from a BaseReader (gitBase.ts reads the repository's Git
 * objects; injected, so the engine itself never opens `.git`), the working tree's side from the
 * engine's own builds, buffers included.
 */
import { compareSides, type Side } from '../core/changes/report';
import { fail, ok, type Result } from '../core/result';
import { sideOf, type EngineRequest } from '../workflows/changes';
import type { BuildCache } from './buildCache';
import type { ChangeBases, ChangesAnswer, EngineSettings, FetchCharts } from './protocol';
import type { HelmModelOptions } from '../render/helmModel';
import type { SourceFile } from '../core/yaml/document';

export interface BaseSide {
  sha: string;
  name: string;
  side: Side;
  rendered: number;
  builds: number;
  helmRendered: number;
  helmReleases: number;
  /** Taken from the build cache, as an earlier comparison with the same base left it. */
  kept?: boolean;
}

export interface BaseReader {
  bases(root: string): Promise<Result<ChangeBases, { message: string }>>;
  /** Every cluster of `root` built at `base`, reading the working tree's build cache `shared` through (changed-only). */
  side(root: string, base: string | undefined, options: BaseOptions): Promise<Result<BaseSide, { message: string }>>;
}

export interface BaseOptions {
  shared: BuildCache | undefined;
  settings: EngineSettings;
  /** The chart cache the working tree's HelmReleases render from. */
  charts: HelmModelOptions | undefined;
  /** Fetch the charts not at hand first (sideOf). */
  fetch?: FetchCharts;
  /**
   * A parse of this text made already (WorkspaceHost.parsed): the working tree's, or one the parse
   * cache kept; the base parses only the files no run has parsed.
   */
  parsed?: (path: string, text: string) => SourceFile | undefined;
  /** The working tree's text of a path, read already: the base reads its blob only when it differs. */
  text?: (path: string) => string | undefined;
}

export const NO_GIT_READER = { message: 'this engine reads no Git repository' };

export async function changesAnswer(
  request: EngineRequest,
  reader: BaseReader | undefined,
  root: string,
  base: string | undefined,
  options: BaseOptions,
): Promise<Result<ChangesAnswer, { message: string }>> {
  if (!reader) return fail(NO_GIT_READER);
  // The working tree first: its HelmRelease renders are in the cache the base side reads through.
  const head = await sideOf(request, root, options.fetch);
  const b = await reader.side(root, base, options);
  if (!b.ok) return b;
  return ok({ report: compareSides(b.value.sha, b.value.side, head), baseName: b.value.name, rendered: b.value.rendered, builds: b.value.builds, helmRendered: b.value.helmRendered, helmReleases: b.value.helmReleases, ...(b.value.kept ? { kept: true } : {}) });
}
