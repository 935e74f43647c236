/**
 * Builds cached by the content of the files they read: an entry is reused only while every file it
 * read still has the recorded hash. The engine keeps one per workspace folder; a persistent
 * implementation lets a reopened workspace start warm.
 */
export interface CachedBuild {
  /** Files the build read, relative to the source root, with the sha256 (hex) of their content. */
  readonly reads: Readonly<Record<string, string>>;
  /** The build's result: plain JSON-serialisable data. */
  readonly value: unknown;
}

export interface BuildCache {
  get(key: string): CachedBuild | undefined;
  set(key: string, entry: CachedBuild): void;
  /** Forgets an entry its user cannot use (of another shape: `why`), so that it is built again. */
  drop(key: string, why: string): void;
  /**
   * Entries that may stand for `key`, the most specific first, under the keys they are held by (a
   * commit's engine: its own builds, then its earlier runs', then the working tree's); absent: `get`.
   * The first whose reads hold is used.
   */
  variants?(key: string): { key: string; entry: CachedBuild }[];
  /** Entries held (a reopened workspace's persisted builds included). */
  readonly size: number;
}
