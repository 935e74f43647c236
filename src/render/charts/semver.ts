/**
 * Semantic versions and constraints with Masterminds/semver v3 semantics (the library helm and
 * source-controller use): lenient versions (`v1.2`, `1.2` = 1.2.0), constraints with `||`, `,` or
 * blanks, `=` `!=` `>` `<` `>=` `<=` `~` `^`, `x`/`*` wildcards and `a - b` ranges, and a
 * pre-release matching only a group that names a pre-release itself. Parsed by hand in one pass:
 * tags and index entries come from the network, constraints from the repository.
 */

export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: string;
  /** The text it was parsed from (an OCI tag, an index entry's version). */
  original: string;
}

/** Masterminds' MaxVersionLen and MaxConstraintLen. */
const MAX_VERSION_LEN = 256;
const MAX_CONSTRAINT_LEN = 512;
const MAX_GROUPS = 32;

function isDigits(s: string): boolean {
  if (s === '') return false;
  for (const c of s) if (c < '0' || c > '9') return false;
  return true;
}

function isIdentChar(c: string): boolean {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '-';
}

function validIdents(s: string, numericNoLeadingZero: boolean): boolean {
  for (const part of s.split('.')) {
    if (part === '') return false;
    for (const c of part) if (!isIdentChar(c)) return false;
    if (numericNoLeadingZero && isDigits(part) && part.length > 1 && part[0] === '0') return false;
  }
  return true;
}

function numberPart(s: string): number | undefined {
  if (!isDigits(s) || (s.length > 1 && s[0] === '0')) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Masterminds' NewVersion: `v?MAJOR[.MINOR[.PATCH]][-pre][+meta]`; undefined when not a version. */
export function parseVersion(text: string): SemVer | undefined {
  if (text.length > MAX_VERSION_LEN) return undefined;
  let s = text.startsWith('v') ? text.slice(1) : text;
  const plus = s.indexOf('+');
  if (plus >= 0) {
    if (!validIdents(s.slice(plus + 1), false)) return undefined;
    s = s.slice(0, plus);
  }
  const dash = s.indexOf('-');
  let pre = '';
  if (dash >= 0) {
    pre = s.slice(dash + 1);
    if (!validIdents(pre, true)) return undefined;
    s = s.slice(0, dash);
  }
  const parts = s.split('.');
  if (parts.length > 3) return undefined;
  const nums = parts.map(numberPart);
  if (nums.some((n) => n === undefined)) return undefined;
  return { major: nums[0]!, minor: nums[1] ?? 0, patch: nums[2] ?? 0, pre, original: text };
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const sn = isDigits(s);
  const on = isDigits(o);
  if (sn && on) return Number(s) > Number(o) ? 1 : -1;
  if (on) return 1;
  if (sn) return -1;
  return s > o ? 1 : -1;
}

function comparePre(a: string, b: string): number {
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const d = comparePrePart(as[i] ?? '', bs[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** Masterminds' Compare: major, minor, patch, then a release above its pre-releases; metadata ignored. */
export function compareVersions(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  if (a.pre === b.pre) return 0;
  if (a.pre === '') return 1;
  if (b.pre === '') return -1;
  return comparePre(a.pre, b.pre);
}

type Op = '' | '=' | '!=' | '>' | '<' | '>=' | '<=' | '~' | '^';

interface Term {
  op: Op;
  con: SemVer;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

export interface Constraint {
  groups: Term[][];
  /** Per group: it names a pre-release, so pre-release versions may match it. */
  pre: boolean[];
}

const OPS: Record<string, Op> = { '': '', '=': '', '!=': '!=', '>': '>', '<': '<', '>=': '>=', '=>': '>=', '<=': '<=', '=<': '<=', '~': '~', '~>': '~', '^': '^' };
const isX = (s: string | undefined): boolean => s === 'x' || s === 'X' || s === '*';
const isBlank = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

function parseTerm(opText: string, ver: string): Term | undefined {
  const op = Object.prototype.hasOwnProperty.call(OPS, opText) ? OPS[opText] : undefined;
  if (op === undefined || ver === '') return undefined;
  let s = ver.startsWith('v') ? ver.slice(1) : ver;
  let tail = '';
  const cut = [s.indexOf('-'), s.indexOf('+')].filter((i) => i >= 0);
  if (cut.length) {
    tail = s.slice(Math.min(...cut));
    s = s.slice(0, Math.min(...cut));
  }
  const [ma, mi, pa, ...rest] = s.split('.');
  if (rest.length) return undefined;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  let text: string;
  if (isX(ma)) {
    dirty = true;
    text = `0.0.0${tail}`;
  } else if (mi === undefined || isX(mi)) {
    dirty = minorDirty = true;
    text = `${ma}.0.0${tail}`;
  } else if (pa === undefined || isX(pa)) {
    dirty = patchDirty = true;
    text = `${ma}.${mi}.0${tail}`;
  } else text = `${ma}.${mi}.${pa}${tail}`;
  const con = parseVersion(text);
  return con ? { op, con, dirty, minorDirty, patchDirty } : undefined;
}

/** One `||` group's words: operators, versions and `-` of a hyphen range, blanks and commas dropped. */
function words(group: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < group.length) {
    const c = group[i];
    if (isBlank(c) || c === ',') {
      i++;
      continue;
    }
    let j = i;
    const opChars = '=!<>~^';
    if (opChars.includes(c)) while (j < group.length && opChars.includes(group[j])) j++;
    else while (j < group.length && !isBlank(group[j]) && group[j] !== ',' && !opChars.includes(group[j])) j++;
    out.push(group.slice(i, j));
    i = j;
  }
  return out;
}

/** Masterminds' NewConstraint; undefined when it would refuse the text. */
export function parseConstraint(text: string): Constraint | undefined {
  if (text.length > MAX_CONSTRAINT_LEN) return undefined;
  const ors = text.split('||');
  if (ors.length > MAX_GROUPS) return undefined;
  const groups: Term[][] = [];
  const pre: boolean[] = [];
  for (const group of ors) {
    const w = words(group);
    const terms: Term[] = [];
    for (let i = 0; i < w.length; ) {
      const isOp = '=!<>~^'.includes(w[i][0]);
      const opText = isOp ? w[i] : '';
      const ver = isOp ? w[i + 1] : w[i];
      if (ver === undefined) return undefined;
      i += isOp ? 2 : 1;
      // `A - B` (only between two bare versions): >= A, <= B.
      if (!isOp && w[i] === '-' && w[i + 1] !== undefined && !'=!<>~^'.includes(w[i + 1][0])) {
        const lo = parseTerm('>=', ver);
        const hi = parseTerm('<=', w[i + 1]);
        if (!lo || !hi) return undefined;
        terms.push(lo, hi);
        i += 2;
        continue;
      }
      const t = parseTerm(opText, ver);
      if (!t) return undefined;
      terms.push(t);
    }
    if (!terms.length) return undefined;
    groups.push(terms);
    pre.push(terms.some((t) => t.con.pre !== ''));
  }
  return { groups, pre };
}

function tilde(v: SemVer, c: Term): boolean {
  if (compareVersions(v, c.con) < 0) return false;
  if (c.con.major === 0 && c.con.minor === 0 && c.con.patch === 0 && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  return v.minor === c.con.minor || c.minorDirty;
}

function checkTerm(v: SemVer, c: Term): boolean {
  const cmp = compareVersions(v, c.con);
  switch (c.op) {
    case '':
      return c.dirty ? tilde(v, c) : cmp === 0;
    case '~':
      return tilde(v, c);
    case '!=':
      if (c.dirty) {
        if (c.con.major !== v.major) return true;
        if (c.minorDirty) return false;
        if (c.con.minor !== v.minor) return true;
        if (!c.patchDirty) {
          if (c.con.patch !== v.patch) return true;
        } else return (v.pre !== '' || c.con.pre !== '') && comparePre(v.pre, c.con.pre) !== 0;
      }
      return cmp !== 0;
    case '>':
      if (!c.dirty) return cmp > 0;
      if (v.major !== c.con.major) return v.major > c.con.major;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return cmp > 0;
    case '<':
      return cmp < 0;
    case '>=':
      return cmp >= 0;
    case '<=':
      if (!c.dirty) return cmp <= 0;
      if (v.major > c.con.major) return false;
      return !(v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty);
    case '^':
      if (cmp < 0) return false;
      if (c.con.major > 0 || c.minorDirty) return v.major === c.con.major;
      if (v.major > 0) return false;
      if (c.con.minor > 0 || c.patchDirty) return v.minor === c.con.minor;
      if (v.minor > 0) return false;
      return v.patch === c.con.patch;
    default:
      return false;
  }
}

/** Masterminds' Check: some group all of whose terms hold; a pre-release only where its group names one. */
export function satisfies(v: SemVer, c: Constraint): boolean {
  return c.groups.some((g, i) => (v.pre === '' || c.pre[i]) && g.every((t) => checkTerm(v, t)));
}

/**
 * The candidate source-controller picks for `wanted` (a HelmRepository chart version, a helm OCI
 * tag): an exact text match first (unless `exactFirst` is false, as for OCIRepository semver),
 * else the newest that satisfies the constraint (`*` when empty: the newest release). A tie goes
 * to the first listed, unless `newer` breaks it (an index entry's `created`).
 */
export function newestMatching<T>(
  candidates: readonly T[],
  versionOf: (c: T) => string,
  wanted: string | undefined,
  opts: { exactFirst?: boolean; newer?: (a: T, b: T) => boolean } = {},
): { ok: true; value: T } | { ok: false; error: string } {
  const want = wanted ?? '';
  if (want !== '' && opts.exactFirst !== false) {
    const exact = candidates.find((c) => versionOf(c) === want);
    if (exact !== undefined) return { ok: true, value: exact };
  }
  const constraint = parseConstraint(want === '' ? '*' : want);
  if (!constraint) return { ok: false, error: `'${want}' is not a semver constraint` };
  let best: { c: T; v: SemVer } | undefined;
  for (const c of candidates) {
    const v = parseVersion(versionOf(c));
    if (!v || !satisfies(v, constraint)) continue;
    const d = best ? compareVersions(v, best.v) : 1;
    if (d > 0 || (d === 0 && best && opts.newer?.(c, best.c))) best = { c, v };
  }
  return best ? { ok: true, value: best.c } : { ok: false, error: `no version matches '${want === '' ? '*' : want}'` };
}
