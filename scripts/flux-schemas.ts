/**
 * Writes src/core/schema/flux.generated.json from ../shared/flux-crds: for each Flux kind, the
 * openAPIV3Schema of every served version, as the controllers of the pinned Flux release serve them.
 * `node --import tsx scripts/flux-schemas.ts [--check]` (--check: exit 1 when the file is stale).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

const crdDir = path.resolve(__dirname, '../../shared/flux-crds');
const out = path.resolve(__dirname, '../src/core/schema/flux.generated.json');

export function fluxSchemaBundle(dir = crdDir): string {
  const sources = fs.readFileSync(path.join(dir, 'SOURCES.txt'), 'utf8').trim().split('\n');
  const schemas: Record<string, unknown> = {};
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as any;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      for (const v of crd.spec.versions ?? []) {
        if (!v.served || !v.schema?.openAPIV3Schema) continue;
        schemas[`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`] = v.schema.openAPIV3Schema;
      }
    }
  }
  return JSON.stringify({ sources, schemas }) + '\n';
}

if (require.main === module) {
  const text = fluxSchemaBundle();
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    if (current !== text) {
      console.error(`${path.relative(process.cwd(), out)} is stale: run node --import tsx scripts/flux-schemas.ts`);
      process.exit(1);
    }
  } else fs.writeFileSync(out, text);
}
