/**
 * The pattern matcher of `${v#pat}`, `${v%%pat}`…: fluxcd/pkg/envsubst/path.Match, Go's path.Match
 * changed so that `*` and `?` also match `/` (it trims strings, not paths). Classes negate with `^`
 * only (`[!x]` is a class holding `!`); a malformed pattern is an error, and the trim then leaves
 * the value as it is.
 */

class BadPattern extends Error {}

/** Whether `name` matches `pattern` entirely; undefined for a malformed pattern. */
export function globMatch(pattern: string, name: string): boolean | undefined {
  try {
    return match(pattern, name);
  } catch (err) {
    if (err instanceof BadPattern) return undefined;
    throw err;
  }
}

function match(pattern: string, name: string): boolean {
  pattern: while (pattern.length > 0) {
    let star = false;
    while (pattern[0] === '*') {
      pattern = pattern.slice(1);
      star = true;
    }
    const split = chunkEnd(pattern);
    const chunk = pattern.slice(0, split);
    pattern = pattern.slice(split);
    if (star && chunk === '') return true;
    const rest = matchChunk(chunk, name);
    // The last chunk must consume the whole name; otherwise a star may still make it match.
    if (rest !== undefined && (rest.length === 0 || pattern.length > 0)) {
      name = rest;
      continue;
    }
    if (star) {
      for (let i = 0; i < name.length; i++) {
        const t = matchChunk(chunk, name.slice(i + 1));
        if (t === undefined || (pattern.length === 0 && t.length > 0)) continue;
        name = t;
        continue pattern;
      }
    }
    return false;
  }
  return name.length === 0;
}

/** Where the chunk before the next unbracketed `*` ends. */
function chunkEnd(pattern: string): number {
  let inRange = false;
  let i = 0;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (i + 1 < pattern.length) i++;
    } else if (c === '[') inRange = true;
    else if (c === ']') inRange = false;
    else if (c === '*' && !inRange) break;
  }
  return i;
}

/** Matches a star-free chunk at the start of `s`: what is left of `s`, or undefined. */
function matchChunk(chunk: string, s: string): string | undefined {
  while (chunk.length > 0) {
    if (s.length === 0) return undefined;
    const c = chunk[0];
    if (c === '[') {
      const r = s.codePointAt(0)!;
      s = s.slice(String.fromCodePoint(r).length);
      chunk = chunk.slice(1);
      let negated = false;
      if (chunk[0] === '^') {
        negated = true;
        chunk = chunk.slice(1);
      }
      let matched = false;
      for (let ranges = 0; ; ranges++) {
        if (chunk[0] === ']' && ranges > 0) {
          chunk = chunk.slice(1);
          break;
        }
        const lo = classChar(chunk);
        chunk = lo.rest;
        let hi = lo.code;
        if (chunk[0] === '-') {
          const h = classChar(chunk.slice(1));
          hi = h.code;
          chunk = h.rest;
        }
        if (lo.code <= r && r <= hi) matched = true;
      }
      if (matched === negated) return undefined;
    } else if (c === '?') {
      s = s.slice(String.fromCodePoint(s.codePointAt(0)!).length);
      chunk = chunk.slice(1);
    } else {
      if (c === '\\') {
        chunk = chunk.slice(1);
        if (chunk.length === 0) throw new BadPattern();
      }
      if (chunk[0] !== s[0]) return undefined;
      s = s.slice(1);
      chunk = chunk.slice(1);
    }
  }
  return s;
}

/** One (possibly `\`-escaped) character of a class; a class running off the end is malformed. */
function classChar(chunk: string): { code: number; rest: string } {
  if (chunk.length === 0 || chunk[0] === '-' || chunk[0] === ']') throw new BadPattern();
  if (chunk[0] === '\\') {
    chunk = chunk.slice(1);
    if (chunk.length === 0) throw new BadPattern();
  }
  const code = chunk.codePointAt(0)!;
  const rest = chunk.slice(String.fromCodePoint(code).length);
  if (rest.length === 0) throw new BadPattern();
  return { code, rest };
}
