/**
 * A small JSON Schema draft-04 validator covering the keywords the SARIF 2.1.0 schema uses ($ref to
 * local definitions, type, properties, required, additionalProperties, items, enum, minimum,
 * maximum, minItems, uniqueItems, pattern, oneOf, anyOf). Test-only: it exists so the SARIF output
 * is checked against the official schema without a new dependency.
 */
type Schema = Record<string, any>;

export function validate(root: Schema, value: unknown): string[] {
  const errors: string[] = [];
  check(root, root, value, '$', errors);
  return errors;
}

function resolve(root: Schema, ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((s: any, part) => s[part.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(expected: string, actual: string): boolean {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

function check(root: Schema, schema: Schema, v: unknown, at: string, errors: string[]): void {
  if (schema.$ref) return check(root, resolve(root, schema.$ref), v, at, errors);
  const t = typeOf(v);
  if (schema.type) {
    const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((x) => typeMatches(x, t))) {
      errors.push(`${at}: expected ${types.join('|')}, got ${t}`);
      return;
    }
  }
  if (schema.enum && !schema.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(v))) errors.push(`${at}: ${JSON.stringify(v)} not in enum`);
  if (typeof v === 'number') {
    if (schema.minimum !== undefined && v < schema.minimum) errors.push(`${at}: below minimum ${schema.minimum}`);
    if (schema.maximum !== undefined && v > schema.maximum) errors.push(`${at}: above maximum ${schema.maximum}`);
  }
  if (typeof v === 'string' && schema.pattern && !new RegExp(schema.pattern, 'u').test(v)) errors.push(`${at}: does not match ${schema.pattern}`);
  if (Array.isArray(v)) {
    if (schema.minItems !== undefined && v.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (schema.uniqueItems && new Set(v.map((x) => JSON.stringify(x))).size !== v.length) errors.push(`${at}: items not unique`);
    if (schema.items) v.forEach((x, i) => check(root, schema.items, x, `${at}[${i}]`, errors));
  }
  if (t === 'object') {
    const obj = v as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in obj)) errors.push(`${at}: missing required '${r}'`);
    const props: Schema = schema.properties ?? {};
    for (const [k, x] of Object.entries(obj)) {
      if (props[k]) check(root, props[k], x, `${at}.${k}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${at}: unexpected property '${k}'`);
      else if (typeof schema.additionalProperties === 'object') check(root, schema.additionalProperties, x, `${at}.${k}`, errors);
    }
  }
  const branches = (list: Schema[]) => list.map((s) => { const e: string[] = []; check(root, s, v, at, e); return e; });
  if (schema.oneOf) {
    const ok = branches(schema.oneOf).filter((e) => e.length === 0).length;
    if (ok !== 1) errors.push(`${at}: matches ${ok} of oneOf`);
  }
  if (schema.anyOf && !branches(schema.anyOf).some((e) => e.length === 0)) errors.push(`${at}: matches none of anyOf`);
}
