/**
 * Schemas of the built-in kinds (kube.generated.json, written by scripts/kube-schemas.ts from the
 * OpenAPI v3 the test API server serves), linked into one object graph the first time a built-in
 * kind is asked for. The graph has cycles (a CRD's JSONSchemaProps holds JSONSchemaProps): it is
 * walked along a value, never on its own.
 */
import type { Schema } from './structural';
import bundle from './kube.generated.json';

interface Bundle {
  readonly kubernetes: string;
  readonly kinds: Record<string, string>;
  readonly definitions: Record<string, unknown>;
}

const BUNDLE = bundle as Bundle;

/** `Kubernetes 1.33`: for messages. */
export const KUBERNETES = `Kubernetes ${BUNDLE.kubernetes.replace(/^v(\d+\.\d+).*/, '$1')}`;

let linked: Map<string, Schema> | undefined;

/** The schema of a built-in `apiVersion/kind` (`apps/v1/Deployment`, `v1/Service`). */
export function builtinSchema(key: string): Schema | undefined {
  if (!Object.prototype.hasOwnProperty.call(BUNDLE.kinds, key)) return undefined;
  linked ??= link(BUNDLE.definitions);
  return linked.get(BUNDLE.kinds[key]);
}

interface Ref {
  readonly $ref: string;
  readonly description?: string;
}

const isRef = (v: unknown): v is Ref => !!v && typeof v === 'object' && typeof (v as Ref).$ref === 'string';

/**
 * Every definition becomes one object; a reference becomes that object, or a shallow copy of it
 * carrying the field's own description. Copies are made last, once every definition's
 * `items`/`additionalProperties` point at real schemas, so a copy never holds a dangling reference.
 */
function link(definitions: Record<string, unknown>): Map<string, Schema> {
  const out = new Map<string, Record<string, unknown>>();
  for (const name of Object.keys(definitions)) out.set(name, {});
  const described: (() => void)[] = [];
  const resolve = (holder: Record<string, unknown>, key: string, ref: Ref) => {
    const target = out.get(ref.$ref) ?? {};
    if (ref.description === undefined) holder[key] = target;
    else described.push(() => (holder[key] = { ...target, description: ref.description }));
  };
  const walk = (node: Record<string, unknown>) => {
    const props = node.properties as Record<string, unknown> | undefined;
    if (props) for (const [k, v] of Object.entries(props)) (isRef(v) ? resolve(props, k, v) : walk(v as Record<string, unknown>));
    for (const k of ['items', 'additionalProperties']) {
      const v = node[k];
      if (isRef(v)) resolve(node, k, { $ref: v.$ref });
      else if (v && typeof v === 'object') walk(v as Record<string, unknown>);
    }
  };
  for (const [name, def] of Object.entries(definitions)) {
    // Copied so the imported JSON module stays as it was read.
    const own = structuredClone(def) as Record<string, unknown>;
    Object.assign(out.get(name)!, own);
    walk(out.get(name)!);
  }
  for (const d of described) d();
  return out as Map<string, Schema>;
}
