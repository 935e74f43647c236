/**
 * Flux's postBuild variable substitution: a port of github.com/fluxcd/pkg/envsubst v1.7.0 (a fork of
 * drone/envsubst) as kustomize-controller v1.9 uses it. Only `${...}` is an expression (`$var` is
 * text); `$$` is a literal `$` (so `$${var}` stays `${var}`); bash-style functions (`:=`, `:-`, `^^`,
 * `/x/y`, `:1:2`, `#`, `%`...) behave as drone's do, quirks included (`${v:+x}` is a default).
 * Strict mode (StrictPostBuildSubstitutions, on by default since v1.9): a variable that is not set
 * fails, unless the expression supplies a default.
 */

type Node = { t: 'text'; value: string } | { t: 'func'; param: string; name: string; args: Node[] } | { t: 'list'; nodes: Node[] };

export class SubstitutionError extends Error {}

// Scanner modes and escape characters, as in envsubst/parse/scan.go.
const SCAN_IDENT = 1;
const SCAN_LBRACK = 2;
const SCAN_RBRACK = 4;
const SCAN_ESCAPE = 8;
const ESC_DOLLAR = 1;
const ESC_BACKSLASH = 2;

const enum Tok {
  Illegal,
  EOF,
  Ident,
  Lbrack,
  Rbrack,
}

type Accept = (r: string, i: number) => boolean;

const EOF = '';

class Scanner {
  buf = '';
  pos = 0;
  start = 0;
  width = 0;
  mode = 0;
  escapeChars = 0;
  accept: Accept = () => true;

  init(buf: string): void {
    this.buf = buf;
    this.pos = 0;
    this.start = 0;
    this.width = 0;
  }

  read(): string {
    if (this.pos >= this.buf.length) {
      this.width = 0;
      return EOF;
    }
    const cp = this.buf.codePointAt(this.pos)!;
    const r = String.fromCodePoint(cp);
    this.width = r.length;
    this.pos += this.width;
    return r;
  }

  unread(): void {
    this.pos -= this.width;
  }

  /** Drops the character before `pos` (the escaping one). */
  skip(): void {
    this.buf = this.buf.slice(0, this.pos - 1) + this.buf.slice(this.pos);
  }

  peek(): string {
    const r = this.read();
    this.unread();
    return r;
  }

  string(): string {
    return this.buf.slice(this.start, this.pos);
  }

  scan(): Tok {
    this.start = this.pos;
    const r = this.read();
    if (r === EOF) return Tok.EOF;
    if (this.scanLbrack(r)) return Tok.Lbrack;
    if (this.scanRbrack(r)) return Tok.Rbrack;
    if (this.scanIdent(r)) return Tok.Ident;
    return Tok.Illegal;
  }

  private scanIdent(r: string): boolean {
    if ((this.mode & SCAN_IDENT) === 0) return false;
    if (this.scanEscaped(r)) this.skip();
    else if (!this.accept(r, this.pos - this.start)) return false;
    for (;;) {
      const c = this.read();
      if (c === EOF) {
        this.unread();
        break;
      }
      if (this.scanLbrack(c)) {
        this.unread();
        this.unread();
        break;
      }
      if (this.scanEscaped(c)) {
        this.skip();
        continue;
      }
      if (!this.accept(c, this.pos - this.start)) {
        this.unread();
        break;
      }
    }
    return true;
  }

  private scanLbrack(r: string): boolean {
    if ((this.mode & SCAN_LBRACK) === 0) return false;
    if (r === '$') {
      if (this.read() === '{') return true;
      this.unread();
    }
    return false;
  }

  private scanRbrack(r: string): boolean {
    return (this.mode & SCAN_RBRACK) !== 0 && r === '}';
  }

  private scanEscaped(r: string): boolean {
    if ((this.mode & SCAN_ESCAPE) === 0) return false;
    if (r === '$' && this.escapeChars & ESC_DOLLAR && this.peek() === '$') return true;
    if (r === '\\' && this.escapeChars & ESC_BACKSLASH) {
      const p = this.peek();
      return p === '/' || p === '\\';
    }
    return false;
  }
}

const acceptRune: Accept = () => true;
const acceptIdent: Accept = (r) => /^[\p{L}\p{N}_]$/u.test(r);
const acceptColon: Accept = (r) => r === ':';
const acceptOneHash: Accept = (r, i) => r === '#' && i === 1;
const acceptNotClosing: Accept = (r) => r !== '}';
const acceptHashFunc: Accept = (r, i) => r === '#' && i < 3;
const acceptPercentFunc: Accept = (r, i) => r === '%' && i < 3;
const acceptDefaultFunc: Accept = (r, i) => (i === 1 && r === ':') || (i === 2 && '=-?+'.includes(r));
const acceptReplaceFunc: Accept = (r, i) => (i === 1 && r === '/') || (i === 2 && '/#%'.includes(r));
const acceptOneEqual: Accept = (r, i) => i === 1 && r === '=';
const acceptOneColon: Accept = (r, i) => i === 1 && r === ':';
const rejectColonClose: Accept = (r) => r !== ':' && r !== '}';
const acceptSlash: Accept = (r) => r === '/';
const acceptNotSlash: Accept = (r) => r !== '/';
const acceptCasingFunc: Accept = (r, i) => (r === ',' || r === '^') && i < 3;

const EMPTY: Node = { t: 'text', value: '' };

class Parser {
  private readonly s = new Scanner();

  parse(buf: string): Node {
    this.s.init(buf);
    return this.parseAny();
  }

  private parseAny(): Node {
    const s = this.s;
    s.accept = acceptRune;
    s.mode = SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE;
    s.escapeChars = ESC_DOLLAR;
    switch (s.scan()) {
      case Tok.Ident: {
        const left: Node = { t: 'text', value: s.string() };
        const right = this.parseAny();
        return right === EMPTY ? left : { t: 'list', nodes: [left, right] };
      }
      case Tok.EOF:
        return EMPTY;
      case Tok.Lbrack: {
        const left = this.parseFunc();
        const right = this.parseAny();
        return right === EMPTY ? left : { t: 'list', nodes: [left, right] };
      }
    }
    throw new SubstitutionError('bad substitution');
  }

  private parseFunc(): Node {
    const s = this.s;
    s.escapeChars = ESC_DOLLAR | ESC_BACKSLASH;
    if (s.peek() === '#') return this.parseLenFunc();
    s.accept = acceptIdent;
    s.mode = SCAN_IDENT;
    if (s.scan() !== Tok.Ident) throw new SubstitutionError('unable to parse variable name');
    const name = s.string();
    switch (s.peek()) {
      case ':':
        return this.parseDefaultOrSubstr(name);
      case '=':
        return this.parseDefaultFunc(name);
      case ',':
      case '^':
        return this.parseSimpleFunc(name, acceptCasingFunc);
      case '/':
        return this.parseReplaceFunc(name);
      case '#':
        return this.parseRemoveFunc(name, acceptHashFunc);
      case '%':
        return this.parseRemoveFunc(name, acceptPercentFunc);
    }
    s.accept = acceptIdent;
    s.mode = SCAN_RBRACK;
    if (s.scan() !== Tok.Rbrack) throw new SubstitutionError('missing closing brace');
    return { t: 'func', param: name, name: '', args: [] };
  }

  private parseParam(accept: Accept, mode: number): Node {
    const s = this.s;
    s.accept = accept;
    s.mode = mode | SCAN_LBRACK;
    switch (s.scan()) {
      case Tok.Lbrack:
        return this.parseFunc();
      case Tok.Ident:
      case Tok.Rbrack:
        return { t: 'text', value: s.string() };
    }
    throw new SubstitutionError('unable to parse substitution within function');
  }

  private parseDefaultOrSubstr(name: string): Node {
    const s = this.s;
    s.read();
    const r = s.peek();
    s.unread();
    return '=-?+'.includes(r) && r !== EOF ? this.parseDefaultFunc(name) : this.parseSubstrFunc(name);
  }

  private funcName(accept: Accept, err = 'bad substitution'): string {
    const s = this.s;
    s.accept = accept;
    s.mode = SCAN_IDENT;
    if (s.scan() !== Tok.Ident) throw new SubstitutionError(err);
    return s.string();
  }

  private parseSubstrFunc(param: string): Node {
    const node = { t: 'func' as const, param, name: this.funcName(acceptOneColon), args: [] as Node[] };
    node.args.push(this.parseParam(rejectColonClose, SCAN_IDENT));
    const s = this.s;
    s.accept = acceptColon;
    s.mode = SCAN_IDENT | SCAN_RBRACK;
    const tok = s.scan();
    if (tok === Tok.Rbrack) return node;
    if (tok !== Tok.Ident) throw new SubstitutionError('bad substitution');
    node.args.push(this.parseParam(acceptNotClosing, SCAN_IDENT));
    this.consumeRbrack();
    return node;
  }

  private parseRemoveFunc(param: string, accept: Accept): Node {
    const node = { t: 'func' as const, param, name: this.funcName(accept), args: [] as Node[] };
    node.args.push(this.parseParam(acceptNotClosing, SCAN_IDENT));
    this.consumeRbrack();
    return node;
  }

  private parseReplaceFunc(param: string): Node {
    const node = { t: 'func' as const, param, name: this.funcName(acceptReplaceFunc), args: [] as Node[] };
    node.args.push(this.parseParam(acceptNotSlash, SCAN_IDENT | SCAN_ESCAPE));
    const s = this.s;
    s.accept = acceptSlash;
    s.mode = SCAN_IDENT;
    if (s.scan() !== Tok.Ident) throw new SubstitutionError('bad substitution');
    if (s.peek() === '}') {
      this.consumeRbrack();
      return node;
    }
    node.args.push(this.parseParam(acceptNotClosing, SCAN_IDENT | SCAN_ESCAPE));
    this.consumeRbrack();
    return node;
  }

  private parseDefaultFunc(param: string): Node {
    const s = this.s;
    const accept = s.peek() === '=' ? acceptOneEqual : acceptDefaultFunc;
    const node = { t: 'func' as const, param, name: this.funcName(accept, 'unable to parse default function'), args: [] as Node[] };
    for (;;) {
      if (s.peek() === '}') {
        this.consumeRbrack();
        return node;
      }
      if (s.peek() === EOF) throw new SubstitutionError('missing closing brace');
      node.args.push(this.parseParam(acceptNotClosing, SCAN_IDENT));
    }
  }

  private parseSimpleFunc(param: string, accept: Accept): Node {
    const node = { t: 'func' as const, param, name: this.funcName(accept), args: [] };
    this.consumeRbrack();
    return node;
  }

  private parseLenFunc(): Node {
    const name = this.funcName(acceptOneHash);
    const s = this.s;
    s.accept = acceptIdent;
    s.mode = SCAN_IDENT;
    if (s.scan() !== Tok.Ident) throw new SubstitutionError('bad substitution');
    const node: Node = { t: 'func', param: s.string(), name, args: [] };
    this.consumeRbrack();
    return node;
  }

  private consumeRbrack(): void {
    this.s.mode = SCAN_RBRACK;
    if (this.s.scan() !== Tok.Rbrack) throw new SubstitutionError('bad substitution');
  }
}

const DEFAULT_OPS = new Set(['-', '+', '=', '?', ':-', ':+', ':=', ':?']);

function globToRegex(glob: string): RegExp | undefined {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) return undefined;
      re += '[' + glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
      i = end;
    } else if (c === '\\' && i + 1 < glob.length) re += '\\' + glob[++i];
    else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  try {
    return new RegExp(`^${re}$`, 's');
  } catch {
    return undefined;
  }
}

function trimShortest(s: string, pattern: string): string {
  const re = globToRegex(pattern);
  if (!re) return s;
  let shortest = '';
  for (let i = 0; i < s.length; i++) if (re.test(s.slice(0, s.length - i))) shortest = s.slice(0, s.length - i);
  return shortest ? s.slice(shortest.length) : s;
}

function trimLongest(s: string, pattern: string): string {
  const re = globToRegex(pattern);
  if (!re) return s;
  for (let i = 0; i < s.length; i++) if (re.test(s.slice(0, s.length - i))) return s.slice(s.length - i);
  return s;
}

const reverse = (s: string) => [...s].reverse().join('');

function substr(s: string, args: string[]): string {
  let pos = Number.parseInt(args[0], 10);
  if (!/^[-+]?\d+$/.test(args[0].trim())) return s;
  if (pos < 0) pos = Math.max(0, s.length + pos);
  if (args.length === 1) return pos < s.length ? s.slice(pos) : '';
  if (!/^[-+]?\d+$/.test(args[1].trim())) return s;
  const length = Number.parseInt(args[1], 10);
  if (pos + length >= s.length) return pos < s.length ? s.slice(pos) : '';
  return s.slice(pos, pos + length);
}

function applyFunc(name: string, v: string, args: string[]): string {
  switch (name) {
    case ',':
      return v ? v[0].toLowerCase() + v.slice(1) : v;
    case ',,':
      return v.toLowerCase();
    case '^':
      return v ? v[0].toUpperCase() + v.slice(1) : v;
    case '^^':
      return v.toUpperCase();
    case '#':
      return args.length === 0 ? String(new TextEncoder().encode(v).length) : trimShortest(v, args[0]);
    case '##':
      return args.length ? trimLongest(v, args[0]) : v;
    case '%':
      return args.length ? reverse(trimShortest(reverse(v), reverse(args[0]))) : v;
    case '%%':
      return args.length ? reverse(trimLongest(reverse(v), reverse(args[0]))) : v;
    case ':':
      return args.length ? substr(v, args) : v;
    case '/#':
      return args.length === 2 && v.startsWith(args[0]) ? args[1] + v.slice(args[0].length) : v;
    case '/%':
      return args.length === 2 && v.endsWith(args[0]) ? v.slice(0, v.length - args[0].length) + args[1] : v;
    case '/':
      return args.length === 0 ? v : v.replace(args[0], args[1] ?? '');
    case '//':
      return args.length === 0 ? v : v.split(args[0]).join(args[1] ?? '');
    default:
      return v.length === 0 && args.length > 0 ? args.join('') : v;
  }
}

/** Looks a variable up: `[value, exists]`. */
export type VarLookup = (name: string) => [string, boolean];

function evaluate(node: Node, lookup: VarLookup, out: string[]): void {
  switch (node.t) {
    case 'text':
      out.push(node.value);
      return;
    case 'list':
      for (const n of node.nodes) evaluate(n, lookup, out);
      return;
    case 'func': {
      const args = node.args.map((a) => {
        const buf: string[] = [];
        evaluate(a, lookup, buf);
        return buf.join('');
      });
      const [v, exists] = lookup(node.param);
      if (!exists && !DEFAULT_OPS.has(node.name)) throw new SubstitutionError(`variable not set (strict mode): "${node.param}"`);
      out.push(applyFunc(node.name, v, args));
    }
  }
}

/** envsubst.Eval: throws SubstitutionError on bad syntax or (via `lookup`) unset variables. */
export function envsubst(text: string, lookup: VarLookup): string {
  const tree = new Parser().parse(text);
  const out: string[] = [];
  evaluate(tree, lookup, out);
  return out.join('');
}

/** Flux's variable name rule (`^[_[:alpha:]][_[:alpha:][:digit:]]*$`). */
export const VAR_NAME = /^[_A-Za-z][_A-Za-z0-9]*$/;

/**
 * kustomize-controller's varSubstitution: validates names, then substitutes. Non-strict mode maps
 * unset variables to ''; strict mode fails on them.
 */
export function substituteVariables(text: string, vars: ReadonlyMap<string, string>, strict: boolean): string {
  for (const name of vars.keys()) {
    if (!VAR_NAME.test(name)) throw new SubstitutionError(`'${name}' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'`);
  }
  return envsubst(text, (name) => (vars.has(name) ? [vars.get(name)!, true] : ['', !strict]));
}
