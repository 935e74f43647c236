/**
 * Writes src/core/schema/kube.generated.json: the schemas of the built-in kinds, from the OpenAPI v3
 * documents the project's test API server (test/cluster, Kubernetes GITOPS_KUBE_VERSION) serves.
 * Groups served by CRDs (Flux's, installed in the test cluster) are left out: they come from
 * flux.generated.json.
 *
 *   node --import tsx scripts/kube-schemas.ts           # starts a test cluster, writes the bundle
 *   node --import tsx scripts/kube-schemas.ts --check   # exit 1 when the bundle differs from the server's
 *
 * The bundle keeps what validation, hover and completion read (type, properties, items,
 * additionalProperties, required, enum, description) and one copy of each named definition; a
 * reference is `{"$ref": name}` (with the field's own description when it has one) and is linked
 * by src/core/schema/kube.ts when first needed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kubeRequest, startCluster } from '../test/cluster/harness';

const out = path.resolve(__dirname, '../src/core/schema/kube.generated.json');

type Json = any;

/** GET a path of the API server as JSON. */
export type Fetch = (path: string) => Promise<Json>;

export async function kubeSchemaBundle(get: Fetch): Promise<string> {
  const version = (await get('/version')).gitVersion as string;
  const crdGroups = new Set<string>(((await get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions')).items ?? []).map((c: Json) => c.spec.group));
  const index = (await get('/openapi/v3')).paths as Record<string, { serverRelativeURL: string }>;
  const definitions: Record<string, Json> = {};
  const kinds: Record<string, string> = {};
  for (const p of Object.keys(index).sort()) {
    const gv = /^api\/v1$/.test(p) ? { group: '', version: 'v1' } : /^apis\/([^/]+)\/([^/]+)$/.exec(p) && { group: p.split('/')[1], version: p.split('/')[2] };
    if (!gv || crdGroups.has(gv.group)) continue;
    const doc = await get(index[p].serverRelativeURL);
    for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
      definitions[name] ??= compact(schema);
      for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
        if (gvk.group !== gv.group || gvk.version !== gv.version || gvk.kind.endsWith('List')) continue;
        if (name.startsWith('io.k8s.apimachinery.')) continue;
        kinds[`${gv.group ? `${gv.group}/` : ''}${gv.version}/${gvk.kind}`] = name;
      }
    }
  }
  // Only what the kinds reach: the API machinery (Status, WatchEvent, …) and list types drop out.
  const reached: Record<string, Json> = {};
  const visit = (name: string) => {
    if (reached[name] || !definitions[name]) return;
    reached[name] = definitions[name];
    JSON.stringify(definitions[name], (k, v) => (k === '$ref' && typeof v === 'string' ? (visit(v), v) : v));
  };
  for (const name of Object.values(kinds)) visit(name);
  const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  return JSON.stringify({ kubernetes: version, kinds: sorted(kinds), definitions: sorted(reached) }) + '\n';
}

function refName(ref: string): string {
  return ref.replace('#/components/schemas/', '');
}

function compact(s: Json): Json {
  if (!s || typeof s !== 'object') return s;
  if (s.$ref) return { $ref: refName(s.$ref) };
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && s.allOf[0].$ref) {
    return s.description ? { $ref: refName(s.allOf[0].$ref), description: s.description } : { $ref: refName(s.allOf[0].$ref) };
  }
  const c: Json = {};
  if (s.description) c.description = s.description;
  if (Array.isArray(s.oneOf)) {
    const types = s.oneOf.map((o: Json) => o.type).sort().join(',');
    // IntOrString: an integer or a string, as CRDs say it; Quantity (a number or a string): any scalar.
    if (types === 'integer,string') c['x-kubernetes-int-or-string'] = true;
    return c;
  }
  if (s.type) c.type = s.type;
  if (s.properties) c.properties = Object.fromEntries(Object.entries<Json>(s.properties).map(([k, v]) => [k, compact(v)]));
  if (s.items) c.items = compact(s.items);
  if (s.additionalProperties !== undefined) c.additionalProperties = typeof s.additionalProperties === 'object' ? compact(s.additionalProperties) : s.additionalProperties;
  if (Array.isArray(s.required) && s.required.length) c.required = s.required;
  if (Array.isArray(s.enum) && s.enum.length) c.enum = s.enum;
  return c;
}

if (require.main === module) {
  (async () => {
    // Needs the test tools: bash test/cluster/build.sh.
    const cluster = await startCluster();
    try {
      const get: Fetch = async (p) => {
        const res = await kubeRequest(cluster.kubeconfig, { path: p });
        if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${res.body.slice(0, 200)}`);
        return res.json();
      };
      const text = await kubeSchemaBundle(get);
      if (process.argv.includes('--check')) {
        const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
        if (current !== text) {
          console.error(`${path.relative(process.cwd(), out)} differs from the test API server's: run node --import tsx scripts/kube-schemas.ts`);
          process.exitCode = 1;
        }
      } else fs.writeFileSync(out, text);
    } finally {
      await cluster.stop();
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
