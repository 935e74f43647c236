/**
 * The part of CEL that CRD validation rules (`x-kubernetes-validations`) mostly use: `self` and
 * its fields, `has()`, `==`, `!=`, `!`, `&&`, `||`, parentheses and literals. Anything else is not
 * evaluated (undefined: no finding), never guessed. Errors follow CEL: `false || error` is an error,
 * `true || error` is true, so a rule that only holds because of a short-circuit still decides.
 */

const ERROR = Symbol('error');
type Value = unknown;

type Node =
  | { t: 'lit'; v: Value }
  | { t: 'self'; fields: string[] }
  | { t: 'has'; fields: string[] }
  | { t: 'not'; e: Node }
  | { t: 'and' | 'or'; l: Node; r: Node }
  | { t: 'eq' | 'ne'; l: Node; r: Node };

const MAX_RULE = 2000;
const MAX_DEPTH = 50;
const parsed = new Map<string, Node | null>();

/** true or false when the rule is in the supported subset and decides; undefined otherwise. */
export function evaluateCel(rule: string, self: unknown): boolean | undefined {
  let node = parsed.get(rule);
  if (node === undefined) {
    node = rule.length > MAX_RULE ? null : parse(rule);
    parsed.set(rule, node);
  }
  if (!node) return undefined;
  const v = evaluate(node, self);
  return typeof v === 'boolean' ? v : undefined;
}

function evaluate(n: Node, self: unknown): Value | typeof ERROR {
  switch (n.t) {
    case 'lit':
      return n.v;
    case 'self': {
      let v: unknown = self;
      for (const f of n.fields) {
        if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, f)) return ERROR;
        v = (v as Record<string, unknown>)[f];
      }
      return v;
    }
    case 'has': {
      let v: unknown = self;
      for (const [i, f] of n.fields.entries()) {
        if (!v || typeof v !== 'object' || Array.isArray(v)) return ERROR;
        const present = Object.prototype.hasOwnProperty.call(v, f) && (v as Record<string, unknown>)[f] !== null;
        if (i === n.fields.length - 1) return present;
        if (!present) return ERROR;
        v = (v as Record<string, unknown>)[f];
      }
      return ERROR;
    }
    case 'not': {
      const v = evaluate(n.e, self);
      return typeof v === 'boolean' ? !v : ERROR;
    }
    case 'and':
    case 'or': {
      const l = evaluate(n.l, self);
      const r = evaluate(n.r, self);
      const decisive = n.t === 'or';
      if (l === decisive || r === decisive) return decisive;
      if (typeof l === 'boolean' && typeof r === 'boolean') return !decisive;
      return ERROR;
    }
    case 'eq':
    case 'ne': {
      const l = evaluate(n.l, self);
      const r = evaluate(n.r, self);
      if (l === ERROR || r === ERROR) return ERROR;
      if (typeof l === 'object' || typeof r === 'object') return ERROR;
      return n.t === 'eq' ? l === r : l !== r;
    }
  }
}

type Token = { k: 'op' | 'id' | 'str' | 'num'; v: string };

function tokenize(text: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '&&' || two === '||' || two === '==' || two === '!=') {
      out.push({ k: 'op', v: two });
      i += 2;
    } else if ('!().'.includes(c)) {
      out.push({ k: 'op', v: c });
      i++;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return null;
      const body = text.slice(i + 1, end);
      if (body.includes('\\')) return null;
      out.push({ k: 'str', v: body });
      i = end + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[A-Za-z0-9_]/.test(text[j])) j++;
      out.push({ k: 'id', v: text.slice(i, j) });
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j])) j++;
      out.push({ k: 'num', v: text.slice(i, j) });
      i = j;
    } else return null;
  }
  return out;
}

function parse(text: string): Node | null {
  const tokens = tokenize(text);
  if (!tokens) return null;
  let at = 0;
  let depth = 0;
  const peek = (v: string) => tokens[at]?.k === 'op' && tokens[at].v === v;
  const fail = (): never => {
    throw new Error('unsupported');
  };
  const expect = (v: string) => (peek(v) ? at++ : fail());
  const fields = (): string[] => {
    const t = tokens[at++];
    if (t?.k !== 'id' || t.v !== 'self') fail();
    const out: string[] = [];
    while (peek('.')) {
      at++;
      const f = tokens[at++];
      if (f?.k !== 'id') fail();
      out.push(f.v);
    }
    return out;
  };
  const primary = (): Node => {
    if (++depth > MAX_DEPTH) fail();
    try {
      const t = tokens[at];
      if (!t) return fail();
      if (peek('(')) {
        at++;
        const e = or();
        expect(')');
        return e;
      }
      if (peek('!')) {
        at++;
        return { t: 'not', e: primary() };
      }
      if (t.k === 'str') return at++, { t: 'lit', v: t.v };
      if (t.k === 'num') return at++, { t: 'lit', v: Number(t.v) };
      if (t.k === 'id' && (t.v === 'true' || t.v === 'false')) return at++, { t: 'lit', v: t.v === 'true' };
      if (t.k === 'id' && t.v === 'null') return at++, { t: 'lit', v: null };
      if (t.k === 'id' && t.v === 'has') {
        at++;
        expect('(');
        const f = fields();
        expect(')');
        if (!f.length) fail();
        return { t: 'has', fields: f };
      }
      return { t: 'self', fields: fields() };
    } finally {
      depth--;
    }
  };
  const comparison = (): Node => {
    const l = primary();
    if (peek('==') || peek('!=')) {
      const op = tokens[at++].v === '==' ? 'eq' : 'ne';
      return { t: op, l, r: primary() };
    }
    return l;
  };
  const and = (): Node => {
    let l = comparison();
    while (peek('&&')) {
      at++;
      l = { t: 'and', l, r: comparison() };
    }
    return l;
  };
  const or = (): Node => {
    let l = and();
    while (peek('||')) {
      at++;
      l = { t: 'or', l, r: and() };
    }
    return l;
  };
  try {
    const node = or();
    return at === tokens.length ? node : null;
  } catch {
    return null;
  }
}
