import { globMatch } from './glob';
import { isDefaultOp, parseTemplate, type TemplateNode, type VarNode } from './parse';

/**
 * Evaluation as fluxcd/pkg/envsubst v1.7.0 (kustomize-controller v1.9) does it: arguments first,
 * then the variable; an undefined one fails strict mode unless the operator supplies a default
 * (`-`, `:-`, `=`, `:=`, `?`, `:?`, `+`, `:+`). Transformations such as `${v^^}` or `${#v}` fail too.
 */

export class SubstitutionError extends Error {}

/** Looks a variable up as envsubst's mapping does: `[value, exists]`. */
export type VarLookup = (name: string) => [string, boolean];

export interface EvalResult {
  /** The substituted text; undefined when envsubst would fail. */
  readonly value: string | undefined;
  /** Undefined variables that strict mode fails on (operators other than defaults), in evaluation order. */
  readonly missing: string[];
  readonly error?: string;
}

const notSetMessage = (name: string) => `variable not set (strict mode): "${name}"`;

/** envsubst.Eval: throws SubstitutionError on bad syntax, or when `lookup` says a strict-mode variable is unset. */
export function envsubst(text: string, lookup: VarLookup): string {
  const parsed = parseTemplate(text);
  if (parsed.error) throw new SubstitutionError(parsed.error.message);
  return evalNodes(parsed.nodes, lookup, (name) => {
    throw new SubstitutionError(notSetMessage(name));
  });
}

/**
 * Substitutes a text as kustomize-controller does. `lookup` returns undefined for an undefined
 * variable; in strict mode a reference to one without a default fails, otherwise it reads as ''.
 * Never throws: errors come back in the result.
 */
export function substitute(text: string, lookup: (name: string) => string | undefined, strict = false): EvalResult {
  if (!text.includes('$')) return { value: text, missing: [] };
  const parsed = parseTemplate(text);
  if (parsed.error) return { value: undefined, missing: [], error: parsed.error.message };
  const missing: string[] = [];
  const value = evalNodes(
    parsed.nodes,
    (name) => {
      const v = lookup(name);
      return v === undefined ? ['', false] : [v, true];
    },
    (name) => missing.push(name),
  );
  if (strict && missing.length) return { value: undefined, missing, error: notSetMessage(missing[0]) };
  return { value, missing };
}

/** Flux's variable name rule (`^[_[:alpha:]][_[:alpha:][:digit:]]*$`). */
export const VAR_NAME = /^[_A-Za-z][_A-Za-z0-9]*$/;

/**
 * kustomize-controller's varSubstitution: validates the names, then substitutes. Non-strict mode
 * reads unset variables as ''; strict mode fails on them. Throws SubstitutionError.
 */
export function substituteVariables(text: string, vars: ReadonlyMap<string, string>, strict: boolean): string {
  checkVarNames(vars);
  return envsubst(text, (name) => (vars.has(name) ? [vars.get(name)!, true] : ['', !strict]));
}

function checkVarNames(vars: ReadonlyMap<string, string>): void {
  for (const name of vars.keys()) {
    if (!VAR_NAME.test(name)) throw new SubstitutionError(`'${name}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'`);
  }
}

/**
 * substituteVariables for variables that are only partly known (a `substituteFrom` source the
 * cluster provides): every `${…}` that needs a variable missing from `vars` is kept as written,
 * whatever its operator (`${DOMAIN/./-}` too), since its value is unknown, not empty; one whose
 * default covers the missing variable takes the default. Throws SubstitutionError.
 */
export function substituteKnown(text: string, vars: ReadonlyMap<string, string>): string {
  checkVarNames(vars);
  const parsed = parseTemplate(text);
  if (parsed.error) throw new SubstitutionError(parsed.error.message);
  const lookup: VarLookup = (name) => (vars.has(name) ? [vars.get(name)!, true] : ['', false]);
  let out = '';
  for (const n of parsed.nodes) {
    if (n.type === 'text') {
      out += n.value;
      continue;
    }
    let unknown = false;
    const value = evalVar(n, lookup, () => (unknown = true));
    out += unknown ? text.slice(n.start, n.end) : value;
  }
  return out;
}

function evalNodes(nodes: TemplateNode[], lookup: VarLookup, onMissing: (name: string) => void): string {
  let out = '';
  for (const n of nodes) out += n.type === 'text' ? n.value : evalVar(n, lookup, onMissing);
  return out;
}

function evalVar(n: VarNode, lookup: VarLookup, onMissing: (name: string) => void): string {
  const args = n.args.map((a) => evalNodes(a, lookup, onMissing));
  const [v, exists] = lookup(n.name);
  if (!exists && !isDefaultOp(n.operator)) onMissing(n.name);
  switch (n.operator) {
    case ',':
      return v ? firstChar(v).toLowerCase() + v.slice(firstChar(v).length) : v;
    case ',,':
      return v.toLowerCase();
    case '^':
      return v ? firstChar(v).toUpperCase() + v.slice(firstChar(v).length) : v;
    case '^^':
      return v.toUpperCase();
    case '#':
      // Go's len: bytes of the UTF-8 encoding.
      return args.length === 0 ? String(new TextEncoder().encode(v).length) : trimShortest(v, args[0]);
    case '##':
      return args.length ? trimLongest(v, args[0]) : v;
    case '%':
      return args.length ? reverse(trimShortest(reverse(v), reverse(args[0]))) : v;
    case '%%':
      return args.length ? reverse(trimLongest(reverse(v), reverse(args[0]))) : v;
    case ':':
      return args.length ? substr(v, args) : v;
    case '/':
      return args.length ? replace(v, args[0], args[1] ?? '', 1) : v;
    case '//':
      return args.length ? replace(v, args[0], args[1] ?? '', -1) : v;
    case '/#':
      return args.length === 2 && v.startsWith(args[0]) ? args[1] + v.slice(args[0].length) : v;
    case '/%':
      return args.length === 2 && v.endsWith(args[0]) ? v.slice(0, v.length - args[0].length) + args[1] : v;
    default:
      // '' (bare), and every default operator: envsubst's toDefault, "the arguments when empty".
      return v === '' && args.length ? args.join('') : v;
  }
}

const firstChar = (s: string) => String.fromCodePoint(s.codePointAt(0)!);

/** Go's strconv.Atoi accepts an optional sign and digits, nothing else. */
const atoi = (s: string): number | undefined => (/^[+-]?\d+$/.test(s) ? Number.parseInt(s, 10) : undefined);

function substr(s: string, args: string[]): string {
  let pos = atoi(args[0]);
  // bash returns the value when the offset or length does not parse.
  if (pos === undefined) return s;
  if (pos < 0) pos = Math.max(0, s.length + pos);
  if (args.length === 1) return pos < s.length ? s.slice(pos) : '';
  const length = atoi(args[1]);
  if (length === undefined) return s;
  if (pos + length >= s.length) return pos < s.length ? s.slice(pos) : '';
  return s.slice(pos, pos + length);
}

/** Go's strings.Replace: an empty `old` matches before every character and at the end. */
function replace(s: string, old: string, by: string, n: number): string {
  if (old !== '') return n < 0 ? s.split(old).join(by) : s.replace(old, () => by);
  if (n > 0) return by + s;
  return by + [...s].map((c) => c + by).join('');
}

/**
 * envsubst trims by matching the pattern against every prefix (or suffix), each match linear in the
 * prefix: quadratic in the value. A longer value would let a repository stall the editor, so it is
 * left as it is (the result then differs from Flux's, for values no real manifest holds).
 */
const MAX_TRIMMED_LENGTH = 4096;

function trimShortest(s: string, pattern: string): string {
  if (s.length > MAX_TRIMMED_LENGTH) return s;
  let shortest = '';
  for (let i = 0; i < s.length; i++) {
    const candidate = s.slice(0, s.length - i);
    const m = globMatch(pattern, candidate);
    if (m === undefined) return s;
    if (m) shortest = candidate;
  }
  return shortest ? s.slice(shortest.length) : s;
}

function trimLongest(s: string, pattern: string): string {
  if (s.length > MAX_TRIMMED_LENGTH) return s;
  for (let i = 0; i < s.length; i++) {
    const candidate = s.slice(0, s.length - i);
    const m = globMatch(pattern, candidate);
    if (m === undefined) return s;
    if (m) return s.slice(candidate.length);
  }
  return s;
}

function reverse(s: string): string {
  return [...s].reverse().join('');
}
