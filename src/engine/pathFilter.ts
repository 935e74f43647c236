/**
 * Paths whose changes never reach the model, decided from the path alone so the editor can drop
 * file events before posting them: VCS data and dependencies anywhere in the path, plus chart
 * `templates/` folders and `.sourceignore`d paths the engine reports once it has indexed.
 */
const SKIPPED_SEGMENTS = new Set(['.git', 'node_modules']);

export function hasSkippedSegment(path: string): boolean {
  for (const segment of path.split('/')) if (SKIPPED_SEGMENTS.has(segment)) return true;
  return false;
}

/** Prefixes (folders) the engine ignores, with a trailing `/`; sent by the engine after each index. */
export class PathFilter {
  private prefixes: string[] = [];

  setIgnoredFolders(folders: readonly string[]): void {
    this.prefixes = folders.map((f) => (f.endsWith('/') ? f : `${f}/`));
  }

  ignores(path: string): boolean {
    if (hasSkippedSegment(path)) return true;
    for (const p of this.prefixes) if (path.startsWith(p)) return true;
    return false;
  }
}
