/**
 * What the workspace walk reads, apart from the walk itself: small enough for the CLI's main thread
 * (cli/readAhead.ts), which reads the same files ahead without loading the workspace's code.
 */

/** Folders never read: VCS data, dependencies. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** Larger files are almost certainly generated bundles; parsing them would stall the editor. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export function isManifestFileName(name: string): boolean {
  return name.endsWith('.yaml') || name.endsWith('.yml') || name === 'Kustomization';
}
