/**
 * The product's cache directory on this machine, shared by the editor and the CLI:
 * `$GITOPS_PREVIEW_CACHE`, else `~/.cache/gitops-preview`. It comes from the user's environment,
 * never from a repository.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { getOwn } from '../core/safeRecord';

export function productCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return getOwn(env, 'GITOPS_PREVIEW_CACHE') || path.join(getOwn(env, 'HOME') || os.homedir(), '.cache', 'gitops-preview');
}
