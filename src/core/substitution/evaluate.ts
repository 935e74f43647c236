import { parseTemplate, type TemplateNode, type VarNode } from './parse';

export interface EvalResult {
  /** The substituted text; undefined when envsubst would fail. */
  readonly value: string | undefined;
  /** Bare `${name}` whose variable is undefined (strict mode fails on these). */
  readonly missing: string[];
  readonly error?: string;
}

/**
 * Substitutes a text as kustomize-controller does. `lookup` returns undefined for an undefined
 * variable; in strict mode a bare `${name}` of an undefined variable fails, otherwise it becomes ''.
 */
export function substitute(text: string, lookup: (name: string) => string | undefined, strict = false): EvalResult {
  if (!text.includes('$')) return { value: text, missing: [] };
  const parsed = parseTemplate(text);
  if (parsed.error) return { value: undefined, missing: [], error: parsed.error.message };
  const missing: string[] = [];
  const value = evalNodes(parsed.nodes, lookup, missing);
  if (strict && missing.length) return { value: undefined, missing, error: `variable not set (strict mode): "${missing[0]}"` };
  return { value, missing };
}

function evalNodes(nodes: TemplateNode[], lookup: (name: string) => string | undefined, missing: string[]): string {
  let out = '';
  for (const n of nodes) out += n.type === 'text' ? n.value : evalVar(n, lookup, missing);
  return out;
}

function evalVar(n: VarNode, lookup: (name: string) => string | undefined, missing: string[]): string {
  const args = n.args.map((a) => evalNodes(a, lookup, missing));
  const found = lookup(n.name);
  if (found === undefined && n.operator === '') missing.push(n.name);
  const v = found ?? '';
  switch (n.operator) {
    case '':
      return v;
    case ',':
      return v ? v[0].toLowerCase() + v.slice(1) : v;
    case ',,':
      return v.toLowerCase();
    case '^':
      return v ? v[0].toUpperCase() + v.slice(1) : v;
    case '^^':
      return v.toUpperCase();
    case '#':
      return args.length === 0 ? String(new TextEncoder().encode(v).length) : trimPrefix(v, args[0], false);
    case '##':
      return args.length ? trimPrefix(v, args[0], true) : v;
    case '%':
      return args.length ? reverse(trimPrefix(reverse(v), reverse(args[0]), false)) : v;
    case '%%':
      return args.length ? reverse(trimPrefix(reverse(v), reverse(args[0]), true)) : v;
    case ':':
      return substr(v, args);
    case '/':
      return args.length ? v.replace(args[0], args[1] ?? '') : v;
    case '//':
      return args.length ? v.split(args[0]).join(args[1] ?? '') : v;
    case '/#':
      return args.length === 2 && v.startsWith(args[0]) ? args[1] + v.slice(args[0].length) : v;
    case '/%':
      return args.length === 2 && v.endsWith(args[0]) ? v.slice(0, v.length - args[0].length) + args[1] : v;
    default:
      // `=`, `:=`, `:-`, `:?`, `:+`: envsubst treats them all as "default when empty".
      return v === '' && args.length ? args.join('') : v;
  }
}

function substr(s: string, args: string[]): string {
  let pos = Number.parseInt(args[0] ?? '', 10);
  if (Number.isNaN(pos)) return s;
  if (pos < 0) pos = Math.max(0, s.length + pos);
  if (args.length === 1) return pos < s.length ? s.slice(pos) : '';
  const len = Number.parseInt(args[1], 10);
  if (Number.isNaN(len)) return s;
  if (pos + len >= s.length) return pos < s.length ? s.slice(pos) : '';
  return s.slice(pos, pos + len);
}

/** Go's path.Match subset (`*`, `?`, `[…]`) as a whole-string regex. */
function globRegex(pattern: string): RegExp | undefined {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) return undefined;
      re += '[' + pattern.slice(i + 1, close).replace(/^\^/, '^').replace(/\\/g, '\\\\') + ']';
      i = close;
    } else re += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`, 's');
  } catch {
    return undefined;
  }
}

function trimPrefix(s: string, pattern: string, longest: boolean): string {
  const re = globRegex(pattern);
  if (!re) return s;
  let shortest: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const candidate = s.slice(0, s.length - i);
    if (re.test(candidate)) {
      if (longest) return s.slice(candidate.length);
      shortest = candidate;
    }
  }
  return shortest ? s.slice(shortest.length) : s;
}

function reverse(s: string): string {
  return [...s].reverse().join('');
}
