/** Edit distance, bounded: anything past `max` counts as too far. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      rowMin = Math.min(rowMin, cur[j]);
    }
    if (rowMin > max) return max + 1;
    prev = cur;
  }
  return prev[b.length];
}

/** Up to three candidates close enough to be a typo of `name`, nearest first. */
export function closestNames(name: string, candidates: readonly string[]): string[] {
  const max = Math.max(2, Math.floor(name.length / 3));
  const scored = [...new Set(candidates)]
    .filter((c) => c !== name)
    .map((c) => ({ c, d: c.includes(name) || name.includes(c) ? Math.min(editDistance(name, c, max), max) : editDistance(name, c, max) }))
    .filter((s) => s.d <= max)
    .sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1));
  return scored.slice(0, 3).map((s) => s.c);
}
