/**
 * Flux post-build variable syntax, ported from fluxcd/pkg/envsubst (a fork of drone/envsubst) so
 * that what we flag is exactly what kustomize-controller would choke on. Offsets are kept for every
 * `${…}` so editors can point at it.
 *
 * Differences from a shell worth knowing: only the braced form is a variable (`$var` is text);
 * `$$` is an escaped `$` (so `$${var}` stays literal); the operators are `:-`, `:=`, `=`, `:?`,
 * `:+` (all "use the argument when the value is empty"), casing `^ ^^ , ,,`, `#var` (length),
 * substrings `:off:len`, trims `# ## % %%` and replacements `/ // /# /%`.
 */

export type TemplateNode = TextNode | VarNode;

export interface TextNode {
  readonly type: 'text';
  readonly value: string;
}

export interface VarNode {
  readonly type: 'var';
  /** Variable name (`param` in envsubst). */
  readonly name: string;
  /** The operator after the name ('' for a bare `${name}`; '#' for the length form `${#name}`). */
  readonly operator: string;
  readonly args: TemplateNode[][];
  /** Offsets of the whole `${…}` (end exclusive) and of the name, relative to the parsed text plus `base`. */
  readonly start: number;
  readonly end: number;
  readonly nameStart: number;
  readonly nameEnd: number;
}

export interface ParseResult {
  readonly nodes: TemplateNode[];
  /**
   * Set when envsubst would fail the whole resource ("variable substitution failed: …"), or, with
   * `limit`, when the text nests deeper than MAX_SUBSTITUTION_DEPTH (Flux reads it; we do not).
   */
  readonly error?: SubstitutionSyntaxError;
}

export interface SubstitutionSyntaxError {
  readonly message: string;
  readonly offset: number;
  readonly limit?: true;
}

/**
 * `${a:=${b:=…}}` levels read. envsubst's parser recurses on Go's growable stack, so Flux reads any
 * depth; ours is the call stack, which 2,000 levels exhaust. Real templates nest two or three.
 */
export const MAX_SUBSTITUTION_DEPTH = 100;

/** One `${…}` occurrence, flattened (nested ones in default arguments included). */
export interface SubstitutionRef {
  readonly name: string;
  readonly operator: string;
  readonly start: number;
  readonly end: number;
  readonly nameStart: number;
  readonly nameEnd: number;
  /**
   * Whether strict mode accepts the variable being undefined: only the default operators do
   * (envsubst v1.6+ fails `${name}`, `${name^^}`, `${#name}`… alike).
   */
  readonly tolerant: boolean;
  /** Nesting depth: 0 for top-level, 1 inside another's argument. */
  readonly depth: number;
}

class ParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly limit = false,
  ) {
    super(message);
  }
}

const DEFAULT_OPS = new Set(['-', '+', '=', '?', ':-', ':+', ':=', ':?']);

/** Operators that supply a value for an undefined variable, so strict mode lets it pass. */
export function isDefaultOp(operator: string): boolean {
  return DEFAULT_OPS.has(operator);
}

/** Go's unicode.IsLetter / IsDigit (Nd only) or `_`. */
const IDENT = /^[\p{L}\p{Nd}_]$/u;

/** Parses a text the way envsubst does; `base` is added to every offset. */
export function parseTemplate(text: string, base = 0): ParseResult {
  const p = new Parser(text, base);
  try {
    return { nodes: p.parseTop() };
  } catch (err) {
    if (err instanceof ParseError) return { nodes: [], error: { message: err.message, offset: err.offset + base, ...(err.limit ? { limit: true } : {}) } };
    throw err;
  }
}

/** Every `${…}` in a text with exact offsets (escaped `$${…}` excluded), plus the parse error if any. */
export function findSubstitutions(text: string, base = 0): { refs: SubstitutionRef[]; error?: SubstitutionSyntaxError } {
  // Cheap pre-check: most scalars have no `${` at all.
  if (!text.includes('${')) return { refs: [] };
  const parsed = parseTemplate(text, base);
  const refs: SubstitutionRef[] = [];
  const walk = (nodes: TemplateNode[], depth: number) => {
    for (const n of nodes) {
      if (n.type !== 'var') continue;
      refs.push({
        name: n.name,
        operator: n.operator,
        start: n.start,
        end: n.end,
        nameStart: n.nameStart,
        nameEnd: n.nameEnd,
        tolerant: isDefaultOp(n.operator),
        depth,
      });
      for (const a of n.args) walk(a, depth + 1);
    }
  };
  walk(parsed.nodes, 0);
  if (parsed.error) return { refs, error: parsed.error };
  return { refs };
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly s: string,
    private readonly base: number,
  ) {}

  private peek(): string | undefined {
    return this.pos < this.s.length ? this.s[this.pos] : undefined;
  }

  private skipIdent(): void {
    for (;;) {
      const cp = this.s.codePointAt(this.pos);
      if (cp === undefined) return;
      const ch = String.fromCodePoint(cp);
      if (!IDENT.test(ch)) return;
      this.pos += ch.length;
    }
  }

  private fail(message: string): never {
    throw new ParseError(message, this.pos);
  }

  parseTop(): TemplateNode[] {
    const nodes: TemplateNode[] = [];
    let text = '';
    while (this.pos < this.s.length) {
      const ch = this.s[this.pos];
      if (ch === '$' && this.s[this.pos + 1] === '$') {
        text += '$';
        this.pos += 2;
      } else if (ch === '$' && this.s[this.pos + 1] === '{') {
        if (text) nodes.push({ type: 'text', value: text });
        text = '';
        const start = this.pos;
        this.pos += 2;
        nodes.push(this.parseNested(start));
      } else {
        text += ch;
        this.pos++;
      }
    }
    if (text) nodes.push({ type: 'text', value: text });
    return nodes;
  }

  /** One `${…}`, one level deeper than the one containing it. */
  private parseNested(start: number): VarNode {
    if (++this.depth > MAX_SUBSTITUTION_DEPTH) {
      throw new ParseError(`variables nested more than ${MAX_SUBSTITUTION_DEPTH} deep (\`\${a:=\${b:=…}}\`)`, start, true);
    }
    const node = this.parseFunc(start);
    this.depth--;
    return node;
  }

  private parseFunc(start: number): VarNode {
    if (this.peek() === '#') {
      this.pos++;
      const nameStart = this.pos;
      this.skipIdent();
      if (this.pos === nameStart) this.fail('bad substitution');
      const nameEnd = this.pos;
      this.consumeClose();
      return this.node(this.s.slice(nameStart, nameEnd), '#', [], start, nameStart, nameEnd);
    }
    const nameStart = this.pos;
    this.skipIdent();
    const nameEnd = this.pos;
    if (nameEnd === nameStart) this.fail('unable to parse variable name');
    const name = this.s.slice(nameStart, nameEnd);
    const next = this.peek();
    const args: TemplateNode[][] = [];
    let operator = '';
    switch (next) {
      case ':': {
        const after = this.s[this.pos + 1];
        if (after === undefined || after.charCodeAt(0) > 0x7f) {
          // envsubst peeks past the ':' and then un-reads by the peeked character's UTF-8 width
          // (0 at the end, 2+ for non-ASCII), losing its place: it always reports this error.
          this.pos++;
          this.fail('bad substitution');
        }
        if (after === '=' || after === '-' || after === '?' || after === '+') {
          operator = this.s.slice(this.pos, this.pos + 2);
          this.pos += 2;
          this.defaultArgs(args);
        } else {
          operator = ':';
          this.pos++;
          args.push(this.param((c) => c !== ':' && c !== '}', false));
          if (this.peek() === '}') this.pos++;
          else if (this.peek() === ':') {
            while (this.peek() === ':') this.pos++;
            args.push(this.param((c) => c !== '}', false));
            this.consumeClose();
          } else this.fail('bad substitution');
        }
        break;
      }
      case '=':
        operator = '=';
        this.pos++;
        this.defaultArgs(args);
        break;
      case ',':
      case '^':
        operator = this.takeOp((c, i) => (c === ',' || c === '^') && i < 2);
        this.consumeClose();
        break;
      case '/': {
        operator = this.takeOp((c, i) => (i === 0 && c === '/') || (i === 1 && (c === '/' || c === '#' || c === '%')));
        args.push(this.param((c) => c !== '/', true));
        if (this.peek() !== '/') this.fail('bad substitution');
        while (this.peek() === '/') this.pos++;
        if (this.peek() === '}') this.pos++;
        else {
          args.push(this.param((c) => c !== '}', true));
          this.consumeClose();
        }
        break;
      }
      case '#':
      case '%': {
        const op = next;
        operator = this.takeOp((c, i) => c === op && i < 2);
        args.push(this.param((c) => c !== '}', false));
        this.consumeClose();
        break;
      }
      default:
        if (next !== '}') this.fail('missing closing brace');
        this.pos++;
    }
    return this.node(name, operator, args, start, nameStart, nameEnd);
  }

  private node(name: string, operator: string, args: TemplateNode[][], start: number, nameStart: number, nameEnd: number): VarNode {
    const b = this.base;
    return { type: 'var', name, operator, args, start: start + b, end: this.pos + b, nameStart: nameStart + b, nameEnd: nameEnd + b };
  }

  private takeOp(accept: (c: string, i: number) => boolean): string {
    const start = this.pos;
    while (this.pos < this.s.length && accept(this.s[this.pos], this.pos - start)) this.pos++;
    return this.s.slice(start, this.pos);
  }

  private defaultArgs(args: TemplateNode[][]): void {
    for (;;) {
      if (this.peek() === '}') {
        this.pos++;
        return;
      }
      args.push(this.param((c) => c !== '}', false));
    }
  }

  /** One argument: a nested `${…}` or a run of accepted characters (stopping before `${`). */
  private param(accept: (c: string) => boolean, escapes: boolean): TemplateNode[] {
    if (this.s[this.pos] === '$' && this.s[this.pos + 1] === '{') {
      const start = this.pos;
      this.pos += 2;
      return [this.parseNested(start)];
    }
    let text = '';
    const begin = this.pos;
    while (this.pos < this.s.length) {
      const ch = this.s[this.pos];
      if (ch === '$' && this.s[this.pos + 1] === '{') break;
      if (escapes && ((ch === '$' && this.s[this.pos + 1] === '$') || (ch === '\\' && (this.s[this.pos + 1] === '/' || this.s[this.pos + 1] === '\\')))) {
        text += this.s[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (!accept(ch)) break;
      text += ch;
      this.pos++;
    }
    if (this.pos === begin) this.fail('unable to parse substitution within function');
    return [{ type: 'text', value: text }];
  }

  private consumeClose(): void {
    if (this.peek() !== '}') this.fail('bad substitution');
    this.pos++;
  }
}
