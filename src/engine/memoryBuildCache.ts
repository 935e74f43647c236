import type { BuildCache, CachedBuild } from './buildCache';

/** A BuildCache held in memory for the engine's lifetime (a persistent one outlives it). */
export class MemoryBuildCache implements BuildCache {
  private readonly entries = new Map<string, CachedBuild>();

  get(key: string): CachedBuild | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedBuild): void {
    this.entries.set(key, entry);
  }

  drop(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
