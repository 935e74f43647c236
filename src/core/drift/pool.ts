/**
 * Runs `fn` over `items` with at most `limit` calls in flight, in input order of start. Once
 * `signal` is aborted no new call starts; `onSkipped` receives each item never started.
 */
export async function mapPool<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
  signal?: AbortSignal,
  onSkipped?: (item: T, index: number) => void,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      if (signal?.aborted) {
        onSkipped?.(items[i], i);
        continue;
      }
      await fn(items[i], i);
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, worker));
}
