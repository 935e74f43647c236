/**
 * An engine over a commit's tree (node/git/treeHost.ts) under the working tree's root path, so
 * every build has the key it has in the working tree: a Kustomization whose reads hold at the
 * commit is taken from the working tree's build cache, not rendered again (changed-only). Its own
 * Kustomization builds stay in memory: a build's key names the Kustomization, not its inputs, so
 * written to the shared cache they would replace the working tree's. Its HelmRelease renders are
 * keyed by all their inputs: those are written through, and the next comparison takes them.
 */
import type { Budgets } from '../core/budgets';
import type { WorkspaceHost } from '../core/workspace/host';
import type { BuildCache, CachedBuild } from './buildCache';
import { Engine } from './engine';
import { MemoryBuildCache } from './memoryBuildCache';
import { diskBuildOptions } from './node';
import { HELM_CACHE_PREFIX } from './helmRefine';
import type { HelmModelOptions } from '../render/helmModel';

/** The engine, and how many builds and HelmRelease renders it made itself (the others came from the shared cache). */
export function commitEngine(options: { host: WorkspaceHost; commit: string; shared: BuildCache | undefined; budgets?: Budgets; charts?: HelmModelOptions }): {
  engine: Engine;
  rendered: () => number;
  helmRendered: () => number;
} {
  let rendered = 0;
  let helmRendered = 0;
  const engine = new Engine({
    host: options.host,
    debounceMs: 0,
    // The checked-out branch and remotes stay the working tree's: the commit is that branch's past.
    buildOptions: (root, settings) => {
      const disk = diskBuildOptions(root, settings);
      return { ...disk, checkout: { ...disk.checkout, commit: options.commit, tags: [] } };
    },
    buildCache: () => readThrough(options.shared, (key) => (key.startsWith(HELM_CACHE_PREFIX) ? helmRendered++ : rendered++)),
    builds: true,
    budgets: options.budgets,
    charts: options.charts,
  });
  return { engine, rendered: () => rendered, helmRendered: () => helmRendered };
}

/** Reads the shared cache; writes HelmRelease renders through to it (see above), the rest only to its own. */
function readThrough(shared: BuildCache | undefined, onSet: (key: string) => void): BuildCache & { dispose(): void } {
  const own = new MemoryBuildCache();
  return {
    get: (key: string): CachedBuild | undefined => own.get(key) ?? shared?.get(key),
    set: (key: string, entry: CachedBuild) => {
      onSet(key);
      own.set(key, entry);
      if (key.startsWith(HELM_CACHE_PREFIX)) shared?.set(key, entry);
    },
    drop: (key: string) => own.drop(key),
    get size() {
      return own.size + (shared?.size ?? 0);
    },
    dispose: () => undefined,
  };
}
