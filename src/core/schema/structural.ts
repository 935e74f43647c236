/**
 * Validation of an object against a CRD's structural OpenAPI v3 schema, as the API server does it
 * on apply: nulls of non-nullable fields are dropped first, unknown fields are pruned (reported as
 * such: the setting never takes effect), and type, enum, pattern, bounds, required fields and the
 * CEL rules this module can evaluate (./cel.ts) reject the object.
 */
import { evaluateCel } from './cel';

export interface Schema {
  readonly type?: string;
  readonly properties?: Record<string, Schema>;
  readonly additionalProperties?: boolean | Schema;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly nullable?: boolean;
  readonly format?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-validations'?: readonly { rule?: string; message?: string }[];
}

export type SchemaPath = (string | number)[];

export interface SchemaFinding {
  readonly path: SchemaPath;
  /** `unknown`: pruned by the API server; every other kind rejects the object. */
  readonly kind: 'unknown' | 'invalid';
  readonly message: string;
  /** About the mapping as a whole (a missing field, a rule): shown at its key rather than its content. */
  readonly whole?: boolean;
  /** The `pattern` the value does not match (a schema that holds the same one would find the same). */
  readonly pattern?: string;
}

export interface ValidateOptions {
  /**
   * Whether `pattern`s are evaluated. Patterns of schemas the repository wrote are JavaScript
   * regular expressions compiled from untrusted text (backtracking): only trusted schemas use them.
   */
  readonly patterns: boolean;
  /** A value the model does not know yet (a `${var}` left for the cluster): never judged. */
  readonly unknown?: (value: unknown) => boolean;
}

/** The schema of the field at `path` (list indexes step into `items`). */
export function schemaAtPath(schema: Schema, path: SchemaPath): Schema | undefined {
  let s: Schema | undefined = schema;
  for (const p of path) {
    if (!s) return undefined;
    if (typeof p === 'number') s = s.items;
    else s = (s.properties && Object.prototype.hasOwnProperty.call(s.properties, p) ? s.properties[p] : undefined) ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
  }
  return s;
}

/** Every finding of `value` (an object's body) under `schema`, metadata excepted (the API server checks it apart). */
export function validateObject(body: Record<string, unknown>, schema: Schema, options: ValidateOptions): SchemaFinding[] {
  const out: SchemaFinding[] = [];
  const props = schema.properties ?? {};
  for (const [key, value] of Object.entries(body)) {
    // `sops`: the decryption metadata Flux removes before it applies.
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata' || key === 'status' || key === 'sops') continue;
    const sub = Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    if (!sub) {
      if (!schema['x-kubernetes-preserve-unknown-fields']) out.push({ path: [key], kind: 'unknown', message: `field '${key}' is not part of the schema` });
      continue;
    }
    validate(value, sub, [key], options, out);
  }
  for (const r of schema.required ?? []) {
    if (r !== 'apiVersion' && r !== 'kind' && r !== 'metadata' && body[r] == null) out.push({ path: [], kind: 'invalid', message: `required field '${r}' is missing` });
  }
  return out;
}

/** Bound on reported findings per object, so a huge wrong list cannot flood the output. */
const MAX_FINDINGS = 50;

function validate(value: unknown, schema: Schema, path: SchemaPath, options: ValidateOptions, out: SchemaFinding[]): void {
  if (out.length >= MAX_FINDINGS) return;
  if (value === null || value === undefined) return;
  if (options.unknown?.(value)) return;
  if (!typeMatches(value, schema)) {
    out.push({ path, kind: 'invalid', message: `${describe(value)} where the schema wants ${wanted(schema)}` });
    return;
  }
  if (schema.enum && schema.enum.length && !schema.enum.some((e) => sameValue(e, value))) {
    out.push({ path, kind: 'invalid', message: `${JSON.stringify(value)} is not one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  }
  if (typeof value === 'string') checkString(value, schema, path, options, out);
  else if (typeof value === 'number') checkNumber(value, schema, path, out);
  else if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) out.push({ path, kind: 'invalid', message: `has ${value.length} item(s); the schema wants at least ${schema.minItems}` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push({ path, kind: 'invalid', message: `has ${value.length} item(s); the schema allows at most ${schema.maxItems}` });
    if (schema.items) value.forEach((item, i) => validate(item, schema.items!, [...path, i], options, out));
  } else if (typeof value === 'object') checkObject(value as Record<string, unknown>, schema, path, options, out);
  const rules = schema['x-kubernetes-validations'];
  if (rules?.length) {
    // The API server defaults before it validates: rules see defaulted fields.
    const self = withDefaults(value, schema);
    for (const rule of rules) {
      if (rule.rule && evaluateCel(rule.rule, self) === false) out.push({ path, kind: 'invalid', message: rule.message ?? `fails the rule ${rule.rule}`, whole: true });
    }
  }
}

function withDefaults(value: unknown, schema: Schema): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value) || !schema.properties) return value;
  let out: Record<string, unknown> | undefined;
  for (const [key, sub] of Object.entries(schema.properties)) {
    if (sub.default === undefined || (value as Record<string, unknown>)[key] != null) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[key] = sub.default;
  }
  return out ?? value;
}

function checkObject(value: Record<string, unknown>, schema: Schema, path: SchemaPath, options: ValidateOptions, out: SchemaFinding[]): void {
  if (schema['x-kubernetes-embedded-resource']) return;
  const props = schema.properties;
  const extra = schema.additionalProperties;
  for (const [key, v] of Object.entries(value)) {
    const sub = props && Object.prototype.hasOwnProperty.call(props, key) ? props[key] : undefined;
    if (sub) validate(v, sub, [...path, key], options, out);
    else if (extra && typeof extra === 'object') validate(v, extra, [...path, key], options, out);
    else if (extra !== true && !schema['x-kubernetes-preserve-unknown-fields'] && (props || extra === false)) {
      out.push({ path: [...path, key], kind: 'unknown', message: `field '${key}' is not part of the schema` });
    }
  }
  for (const r of schema.required ?? []) {
    if (value[r] == null) out.push({ path, kind: 'invalid', message: `required field '${r}' is missing`, whole: true });
  }
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) out.push({ path, kind: 'invalid', message: `has ${count} field(s); the schema wants at least ${schema.minProperties}` });
  if (schema.maxProperties !== undefined && count > schema.maxProperties) out.push({ path, kind: 'invalid', message: `has ${count} field(s); the schema allows at most ${schema.maxProperties}` });
}

const compiled = new Map<string, RegExp | null>();

function checkString(value: string, schema: Schema, path: SchemaPath, options: ValidateOptions, out: SchemaFinding[]): void {
  const length = [...value].length;
  if (schema.minLength !== undefined && length < schema.minLength) out.push({ path, kind: 'invalid', message: `is ${length} character(s) long; the schema wants at least ${schema.minLength}` });
  if (schema.maxLength !== undefined && length > schema.maxLength) out.push({ path, kind: 'invalid', message: `is ${length} characters long; the schema allows at most ${schema.maxLength}` });
  if (schema.pattern && options.patterns && !schema['x-kubernetes-int-or-string']) {
    let re = compiled.get(schema.pattern);
    if (re === undefined) {
      try {
        re = new RegExp(schema.pattern, 'u');
      } catch {
        re = null;
      }
      compiled.set(schema.pattern, re);
    }
    if (re && !re.test(value)) out.push({ path, kind: 'invalid', message: `${JSON.stringify(value)} does not match the pattern ${schema.pattern}`, pattern: schema.pattern });
  }
}

function checkNumber(value: number, schema: Schema, path: SchemaPath, out: SchemaFinding[]): void {
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
    out.push({ path, kind: 'invalid', message: `${value} is below the minimum ${schema.exclusiveMinimum ? '(exclusive) ' : ''}${schema.minimum}` });
  }
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
    out.push({ path, kind: 'invalid', message: `${value} is above the maximum ${schema.exclusiveMaximum ? '(exclusive) ' : ''}${schema.maximum}` });
  }
}

function typeMatches(value: unknown, schema: Schema): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  switch (schema.type) {
    case undefined:
      return true;
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function wanted(schema: Schema): string {
  if (schema['x-kubernetes-int-or-string']) return 'an integer or a string';
  return { object: 'a mapping', array: 'a list', string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false' }[schema.type ?? ''] ?? String(schema.type);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value === 'number' ? (Number.isInteger(value) ? 'the integer' : 'the number') : 'the boolean'} ${String(value)}`;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}
