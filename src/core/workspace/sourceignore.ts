/**
 * `.sourceignore` matching as source-controller does it: gitignore syntax, the controller's default
 * excludes, and `.sourceignore` files at any depth applying to paths below them.
 */

/** Patterns source-controller excludes from every Git artifact before any `.sourceignore`. */
export const DEFAULT_SOURCE_IGNORE = [
  '.git/',
  '.gitignore',
  '.gitmodules',
  '.gitattributes',
  '*.jpg',
  '*.jpeg',
  '*.gif',
  '*.png',
  '*.wmv',
  '*.flv',
  '*.tar.gz',
  '*.zip',
  '.github/',
  '.circleci/',
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.drone.yml',
  'cloudbuild.yaml',
  'codeship-services.yml',
  'codeship-steps.yml',
  '**/.goreleaser.yml',
  '**/.sops.yaml',
  '**/.flux.yaml',
];

interface Rule {
  /** Segments of the pattern; '**' segments match any number of path segments. */
  segments: Segment[];
  negate: boolean;
  dirOnly: boolean;
}

/** One path segment's matcher: a star-separated list of parts, or a `**` (any number of segments). */
type Segment = { kind: 'any' } | { kind: 'glob'; parts: Atom[][]; leadingStar: boolean; trailingStar: boolean };
/** One character: literal, `?`, or a class. */
type Atom = { kind: 'char'; c: string } | { kind: 'one' } | { kind: 'class'; negate: boolean; ranges: [string, string][] };

/**
 * Compiles a gitignore glob into segment matchers that run in linear time per attempt, never a
 * backtracking RegExp: a `.sourceignore` is repository input, and `*a*a*a*…b` against a long name
 * would otherwise take exponential time.
 */
function compileGlob(glob: string): Segment[] {
  const segments: Segment[] = [];
  const raw = splitUnescaped(glob);
  raw.forEach((seg, i) => {
    if (seg === '**') {
      // A trailing `**` matches everything inside (at least one segment), elsewhere zero or more.
      if (i === raw.length - 1) segments.push(globSegment('*'), { kind: 'any' });
      else if (segments[segments.length - 1]?.kind !== 'any') segments.push({ kind: 'any' });
    } else segments.push(globSegment(seg));
  });
  return segments;
}

function splitUnescaped(glob: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '\\' && i + 1 < glob.length) current += glob[i] + glob[++i];
    else if (glob[i] === '/') {
      out.push(current);
      current = '';
    } else current += glob[i];
  }
  out.push(current);
  return out;
}

function globSegment(seg: string): Segment {
  const chunks: Atom[][] = [[]];
  let leadingStar = false;
  let trailingStar = false;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    const chunk = chunks[chunks.length - 1];
    if (c === '*') {
      if (i === 0) leadingStar = true;
      if (chunk.length) chunks.push([]);
      trailingStar = true;
      continue;
    }
    trailingStar = false;
    if (c === '?') chunk.push({ kind: 'one' });
    else if (c === '[' && seg.indexOf(']', i + 2) !== -1) {
      const close = seg.indexOf(']', i + 2);
      let body = seg.slice(i + 1, close);
      let negate = false;
      if (body[0] === '!' || body[0] === '^') {
        negate = true;
        body = body.slice(1);
      }
      const ranges: [string, string][] = [];
      for (let j = 0; j < body.length; j++) {
        let lo = body[j];
        if (lo === '\\' && j + 1 < body.length) lo = body[++j];
        if (body[j + 1] === '-' && j + 2 < body.length) {
          let hi = body[j + 2];
          j += 2;
          if (hi === '\\' && j + 1 < body.length) hi = body[++j];
          ranges.push([lo, hi]);
        } else ranges.push([lo, lo]);
      }
      chunk.push({ kind: 'class', negate, ranges });
      i = close;
    } else if (c === '\\' && i + 1 < seg.length) chunk.push({ kind: 'char', c: seg[++i] });
    else chunk.push({ kind: 'char', c });
  }
  return { kind: 'glob', parts: chunks.filter((c) => c.length > 0), leadingStar, trailingStar };
}

function atomMatches(atom: Atom, c: string): boolean {
  if (atom.kind === 'char') return atom.c === c;
  if (atom.kind === 'one') return true;
  const inside = atom.ranges.some(([lo, hi]) => lo <= c && c <= hi);
  return inside !== atom.negate;
}

function partAt(part: Atom[], name: string, at: number): boolean {
  if (at + part.length > name.length) return false;
  for (let k = 0; k < part.length; k++) if (!atomMatches(part[k], name[at + k])) return false;
  return true;
}

/**
 * Whether one segment glob matches a whole name. The parts between stars are placed greedily at
 * their leftmost position (the first and last anchored when no star precedes or follows them),
 * which is exact for globs and costs at most name length × pattern length: no backtracking.
 */
function segmentMatches(seg: Segment & { kind: 'glob' }, name: string): boolean {
  const { parts, leadingStar, trailingStar } = seg;
  if (!leadingStar && !trailingStar && parts.length <= 1) {
    const only = parts[0] ?? [];
    return only.length === name.length && partAt(only, name, 0);
  }
  let lo = 0;
  let hi = name.length;
  let from = 0;
  let to = parts.length;
  if (!leadingStar) {
    if (!partAt(parts[0], name, 0)) return false;
    lo = parts[0].length;
    from = 1;
  }
  if (!trailingStar) {
    const tail = parts[parts.length - 1];
    hi = name.length - tail.length;
    if (hi < lo || !partAt(tail, name, hi)) return false;
    to = parts.length - 1;
  }
  for (let p = from; p < to; p++) {
    let at = lo;
    while (at + parts[p].length <= hi && !partAt(parts[p], name, at)) at++;
    if (at + parts[p].length > hi) return false;
    lo = at + parts[p].length;
  }
  return true;
}

/**
 * Whether the segments match `path[0..k)` for some k in 1..limit: the pattern names the path or one
 * of its parent folders. `**` segments are the stars of the same greedy scheme, over whole segments.
 */
function matchesPrefix(segments: Segment[], path: string[], limit: number): boolean {
  // A pattern matching a prefix is the pattern followed by an implicit `**`; greedy star matching
  // with single-segment items is exact and takes at most path length × pattern length steps.
  const items = [...segments, { kind: 'any' } as Segment];
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < limit) {
    const item = items[i];
    if (item?.kind === 'any') {
      star = i++;
      mark = j;
    } else if (item && segmentMatches(item, path[j])) {
      i++;
      j++;
    } else if (star >= 0) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (items[i]?.kind === 'any') i++;
  return i === items.length && limit > 0 && segments.some((s) => s.kind === 'glob');
}

/**
 * The line without trailing whitespace, except one escaped by a backslash (`a\\ ` keeps its space).
 * Measured with trimEnd, not `/(?<!\\)\s+$/`, which rescans a blank run from each of its characters.
 */
function withoutTrailingBlanks(line: string): string {
  const end = line.trimEnd().length;
  if (end === line.length) return line;
  return line.slice(0, end > 0 && line[end - 1] === '\\' ? end + 1 : end);
}

/**
 * A matcher for one path segment's glob (`*.yaml`, `app-?`, `[a-c]*`), in the same linear time as
 * `.sourceignore` patterns: for other globs taken from repository text, such as ArtifactGenerator
 * `copy.from`.
 */
export function segmentGlob(glob: string): { test(name: string): boolean } {
  const segment = globSegment(glob);
  return { test: (name) => segment.kind === 'glob' && segmentMatches(segment, name) };
}

export function compileIgnore(lines: readonly string[]): Rule[] {
  const rules: Rule[] = [];
  for (let raw of lines) {
    raw = raw.replace(/\r$/, '');
    if (!raw.trim() || raw.startsWith('#')) continue;
    let line = withoutTrailingBlanks(raw);
    let negate = false;
    if (line.startsWith('!')) {
      negate = true;
      line = line.slice(1);
    }
    let dirOnly = false;
    if (line.endsWith('/')) {
      dirOnly = true;
      line = line.slice(0, -1);
    }
    // A pattern with a slash (other than trailing) is anchored to the .sourceignore's directory.
    const anchored = line.includes('/');
    if (line.startsWith('/')) line = line.slice(1);
    if (!line) continue;
    const segments = compileGlob(line);
    rules.push({ segments: anchored ? segments : [{ kind: 'any' }, ...segments], negate, dirOnly });
  }
  return rules;
}

/**
 * One `.sourceignore`'s rules, indexed so that a path is not tried against each of them: names
 * (`secret.yaml`), extensions (`*.png`) and anchored paths (`/docs/`) are looked up by the path's
 * segments, suffixes and prefixes; only the other rules (real globs) are matched one by one. The
 * last matching rule decides (gitignore's order, negations included), so each lookup keeps the
 * highest rule index, and the globs are tried from the last down to that index.
 */
class RuleSet {
  private readonly byName = new Map<string, number[]>();
  private readonly bySuffix = new Map<string, number[]>();
  private readonly byPath = new Map<string, number[]>();
  private readonly globs: number[] = [];

  constructor(private readonly rules: Rule[]) {
    rules.forEach((rule, i) => {
      const [first, second] = rule.segments;
      if (rule.segments.length === 2 && first.kind === 'any' && second.kind === 'glob') {
        const name = literalOf(second);
        if (name !== undefined) return push(this.byName, name, i);
        const suffix = second.leadingStar && !second.trailingStar && second.parts.length === 1 ? literalAtoms(second.parts[0]) : undefined;
        if (suffix?.startsWith('.')) return push(this.bySuffix, suffix, i);
      }
      const names = rule.segments.map((s) => (s.kind === 'glob' ? literalOf(s) : undefined));
      if (names.every((n) => n !== undefined)) return push(this.byPath, names.join('/'), i);
      this.globs.push(i);
    });
  }

  /** Index of the last rule matching the path (split in segments), or -1. */
  lastMatch(parts: string[], isDirectory: boolean): number {
    let best = -1;
    // A dir-only rule matches a file only through one of its parent directories.
    const fits = (i: number, segments: number) => {
      const limit = this.rules[i].dirOnly && !isDirectory ? parts.length - 1 : parts.length;
      if (i > best && segments <= limit) best = i;
    };
    let prefix = '';
    for (let j = 0; j < parts.length; j++) {
      const name = parts[j];
      prefix = j === 0 ? name : `${prefix}/${name}`;
      for (const i of this.byName.get(name) ?? []) fits(i, j + 1);
      for (const i of this.byPath.get(prefix) ?? []) fits(i, j + 1);
      if (this.bySuffix.size) for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) for (const i of this.bySuffix.get(name.slice(dot)) ?? []) fits(i, j + 1);
    }
    for (let k = this.globs.length - 1; k >= 0 && this.globs[k] > best; k--) {
      const rule = this.rules[this.globs[k]];
      const limit = rule.dirOnly && !isDirectory ? parts.length - 1 : parts.length;
      if (matchesPrefix(rule.segments, parts, limit)) return this.globs[k];
    }
    return best;
  }

  negates(i: number): boolean {
    return this.rules[i].negate;
  }
}

/** The name a star-free, class-free segment matches, or undefined for a real glob. */
function literalOf(seg: Segment & { kind: 'glob' }): string | undefined {
  if (seg.leadingStar || seg.trailingStar || seg.parts.length > 1) return undefined;
  return literalAtoms(seg.parts[0] ?? []);
}

function literalAtoms(atoms: Atom[]): string | undefined {
  let out = '';
  for (const a of atoms) {
    if (a.kind !== 'char') return undefined;
    out += a.c;
  }
  return out;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A stack of rule sets, each scoped to a directory (relative to the source root, '' for the root). */
export class IgnoreMatcher {
  private readonly scopes: { dir: string; rules: RuleSet }[] = [];

  add(dir: string, lines: readonly string[]): void {
    this.scopes.push({ dir, rules: new RuleSet(compileIgnore(lines)) });
  }

  /** `rel` is relative to the source root with `/` separators. */
  ignores(rel: string, isDirectory: boolean): boolean {
    let ignored = false;
    for (const scope of this.scopes) {
      let sub = rel;
      if (scope.dir) {
        if (!rel.startsWith(scope.dir + '/')) continue;
        sub = rel.slice(scope.dir.length + 1);
      }
      const last = scope.rules.lastMatch(sub.split('/'), isDirectory);
      if (last !== -1) ignored = !scope.rules.negates(last);
    }
    return ignored;
  }
}
