import { createHash } from 'node:crypto';
import type { BuildOptions } from '../core/model/graph';
import { diskHost, gitCheckout, gitRemotes } from '../node/fsHost';
import { Engine } from './engine';
import type { EngineSettings } from './protocol';

/** Model options for a folder on disk: its Git remotes and checkout, the editor's settings, node's sha256. */
export function diskBuildOptions(root: string, settings: EngineSettings = {}): BuildOptions {
  return {
    remotes: gitRemotes(root),
    checkout: gitCheckout(root),
    sourceRoots: settings.sourceRoots,
    sha256: (s) => createHash('sha256').update(s).digest('hex'),
  };
}

/** An engine over the disk (worker and CLI), building every cluster from its root down. */
export function nodeEngine(options: { debounceMs?: number } = {}): Engine {
  return new Engine({ host: diskHost, debounceMs: options.debounceMs, buildOptions: diskBuildOptions, builds: {} });
}

/**
 * Opens folders and waits until every Kustomization build is done: the one way the CLI (and any
 * batch caller) reaches the answers the editor shows once its engine has settled.
 */
export async function openRefined(engine: Engine, roots: readonly string[], settings: EngineSettings = {}): Promise<void> {
  engine.open(roots, settings);
  await engine.refined();
}
