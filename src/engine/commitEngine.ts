/**
 * An engine over a commit's tree (node/git/treeHost.ts) under the working tree's root path, so
 * every build has the key it has in the working tree: a Kustomization whose reads hold at the
 * commit is taken from the working tree's build cache, not rendered again (changed-only). Its own
 * Kustomization builds are written to the shared cache under BASE_BUILD_PREFIX + their key (a
 * build's key names the Kustomization, not its inputs: under the same key they would replace the
 * working tree's, and the next run of each side would build again), so the next comparison with the
 * same base builds nothing. Its HelmRelease renders are keyed by all their inputs: those are
 * written through as they are.
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

/** Where a commit's Kustomization builds are kept in the shared cache (see above). */
export const BASE_BUILD_PREFIX = 'base:';

/** Reads its own builds, then its earlier runs', then the working tree's; writes through as said above. */
function readThrough(shared: BuildCache | undefined, onSet: (key: string) => void): BuildCache & { dispose(): void } {
  const own = new MemoryBuildCache();
  const sharedKey = (key: string) => (key.startsWith(HELM_CACHE_PREFIX) ? key : BASE_BUILD_PREFIX + key);
  const variants = (key: string): { key: string; entry: CachedBuild }[] => {
    const out: { key: string; entry: CachedBuild }[] = [];
    const mine = own.get(key);
    if (mine) out.push({ key, entry: mine });
    for (const at of new Set([sharedKey(key), key])) {
      const entry = shared?.get(at);
      if (entry) out.push({ key: at, entry });
    }
    return out;
  };
  return {
    get: (key: string): CachedBuild | undefined => variants(key)[0]?.entry,
    variants,
    set: (key: string, entry: CachedBuild) => {
      onSet(key);
      own.set(key, entry);
      shared?.set(sharedKey(key), entry);
    },
    drop: (key: string, why: string) => (key.startsWith(BASE_BUILD_PREFIX) || key.startsWith(HELM_CACHE_PREFIX) ? shared?.drop(key, why) : own.drop(key)),
    get size() {
      return own.size + (shared?.size ?? 0);
    },
    dispose: () => undefined,
  };
}
