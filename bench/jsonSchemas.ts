/**
 * Our schema bundles (flux.generated.json, kube.generated.json) written as standalone JSON Schema
 * (draft-04, kubeconform's default draft) files, so kubeconform judges with the schemas we judge
 * with. Each keyword is translated to what validateObject (src/core/schema/structural.ts) does with
 * it, as far as JSON Schema can say it:
 *   - a null is never judged (the API server drops it): every type and enum also admits null,
 *     except a required field's, which null leaves missing;
 *   - an unknown field is reported where validateObject reports one: `additionalProperties: false`
 *     on mappings with properties (kubeconform's own -strict schemas do the same);
 *   - `metadata`, `status`, `apiVersion`, `kind` and `sops` at the top level are not judged;
 *   - `format`, `default`, `description` and CEL rules are dropped (validateObject ignores formats;
 *     JSON Schema cannot run CEL, so that difference stays and is counted by the comparison).
 * Built-in kinds keep their definitions as `#/definitions/<name>` references (the graph has cycles).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import flux from '../src/core/schema/flux.generated.json';
import kube from '../src/core/schema/kube.generated.json';

type Node = Record<string, unknown>;
const FLUX = (flux as { schemas: Record<string, Node> }).schemas;
const KUBE = kube as { kinds: Record<string, string>; definitions: Record<string, Node> };

/** `apiVersion/kind` of every kind a bundle has a schema for. */
export function bundledKinds(): string[] {
  return [...Object.keys(FLUX), ...Object.keys(KUBE.kinds)].sort();
}

/** The file kubeconform reads for `apiVersion`/`kind` under `-schema-location <dir>/SCHEMA_TEMPLATE`. */
export const SCHEMA_TEMPLATE = '{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json';

function schemaFile(dir: string, apiVersion: string, kind: string): string {
  const parts = apiVersion.split('/');
  return path.join(dir, parts[0], `${kind.toLowerCase()}_${parts[parts.length - 1]}.json`);
}

/** Writes one schema file per bundled kind into `dir`; returns how many. */
export function writeJsonSchemas(dir: string): number {
  let count = 0;
  for (const key of bundledKinds()) {
    const at = key.lastIndexOf('/');
    const apiVersion = key.slice(0, at);
    const kind = key.slice(at + 1);
    const refs = new Set<string>();
    const root = Object.prototype.hasOwnProperty.call(FLUX, key) ? FLUX[key] : KUBE.definitions[KUBE.kinds[key]];
    const out: Node = { $schema: 'http://json-schema.org/draft-04/schema#', ...topLevel(root, refs) };
    if (refs.size) out.definitions = reachable(refs);
    const file = schemaFile(dir, apiVersion, kind);
    if (fs.existsSync(file)) throw new Error(`two kinds map to ${file}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(out));
    count++;
  }
  return count;
}

const UNJUDGED_TOP = ['apiVersion', 'kind', 'metadata', 'status', 'sops'];

/** validateObject's top level: no type check, five keys passed over, the rest as in a mapping. */
function topLevel(schema: Node, refs: Set<string>): Node {
  const props = (schema.properties ?? {}) as Record<string, Node>;
  const required = ((schema.required ?? []) as string[]).filter((r) => !['apiVersion', 'kind', 'metadata'].includes(r));
  const properties: Record<string, Node> = {};
  for (const [k, v] of Object.entries(props)) if (!UNJUDGED_TOP.includes(k)) properties[k] = field(v, required.includes(k), refs);
  for (const k of UNJUDGED_TOP) properties[k] = {};
  const out: Node = { properties };
  if (required.length) out.required = required;
  if (!schema['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
  return out;
}

/** A property's schema; a required one must not be null (validateObject: `== null` is missing). */
function field(schema: Node, required: boolean, refs: Set<string>): Node {
  const converted = convert(schema, refs);
  return required ? { allOf: [converted], not: { type: 'null' } } : converted;
}

const COPIED = ['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];

function convert(schema: Node, refs: Set<string>): Node {
  if (typeof schema.$ref === 'string') {
    refs.add(schema.$ref);
    return { $ref: `#/definitions/${schema.$ref}` };
  }
  const out: Node = {};
  const intOrString = !!schema['x-kubernetes-int-or-string'];
  if (intOrString) out.type = ['string', 'integer', 'null'];
  else if (typeof schema.type === 'string') out.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum) && schema.enum.length) out.enum = [...schema.enum, null];
  // validateObject skips the pattern of an int-or-string (an integer has none to match).
  if (typeof schema.pattern === 'string' && !intOrString) out.pattern = schema.pattern;
  for (const k of COPIED) if (schema[k] !== undefined) out[k] = schema[k];
  if (schema.items && typeof schema.items === 'object') out.items = convert(schema.items as Node, refs);
  // An embedded resource's fields are not judged (checkObject returns at once).
  if (schema['x-kubernetes-embedded-resource']) return out;
  const props = schema.properties as Record<string, Node> | undefined;
  const required = (schema.required ?? []) as string[];
  if (props) {
    const properties: Record<string, Node> = {};
    for (const [k, v] of Object.entries(props)) properties[k] = field(v, required.includes(k), refs);
    out.properties = properties;
  }
  if (required.length) out.required = required;
  const extra = schema.additionalProperties;
  const preserve = !!schema['x-kubernetes-preserve-unknown-fields'];
  if (extra && typeof extra === 'object') out.additionalProperties = convert(extra as Node, refs);
  else if (extra !== true && !preserve && (props || extra === false)) out.additionalProperties = false;
  return out;
}

/** The built-in definitions `refs` name, and those they name in turn. */
function reachable(refs: Set<string>): Record<string, Node> {
  const out: Record<string, Node> = {};
  const todo = [...refs];
  while (todo.length) {
    const name = todo.pop()!;
    if (out[name]) continue;
    const found = new Set<string>();
    out[name] = convert(KUBE.definitions[name], found);
    for (const r of found) if (!out[r]) todo.push(r);
  }
  return out;
}
