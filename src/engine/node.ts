import { createHash } from 'node:crypto';
import { diskHost, gitCheckout, gitRemotes } from '../node/fsHost';
import { Engine } from './engine';

/** An engine over the disk, with the Git remotes of each folder and node's sha256 (worker and CLI). */
export function nodeEngine(options: { debounceMs?: number } = {}): Engine {
  return new Engine({
    host: diskHost,
    debounceMs: options.debounceMs,
    buildOptions: (root, settings) => ({
      remotes: gitRemotes(root),
      checkout: gitCheckout(root),
      sourceRoots: settings.sourceRoots,
      sha256: (s) => createHash('sha256').update(s).digest('hex'),
    }),
  });
}
