/**
 * Trimming by loops, for repository text. A regex such as `/\/+$/` is not anchored at its start, so
 * on a run that stops short of the end (`a////…/b`) it is tried again from every character of the
 * run: quadratic in the run's length, and one 500 KB value then takes minutes.
 */

/** `s` without the characters of `chars` at its end. */
export function trimEndChars(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1])) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** `s` without the characters of `chars` at either end. */
export function trimChars(s: string, chars: string): string {
  let start = 0;
  while (start < s.length && chars.includes(s[start])) start++;
  return trimEndChars(s.slice(start), chars);
}
