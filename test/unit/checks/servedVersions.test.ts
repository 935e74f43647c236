import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { SERVED_VERSIONS } from '../../../src/core/checks/apiVersions';
import { SHARED } from './helpers';

test('the embedded served-version table matches the Flux CRDs', () => {
  const dir = `${SHARED}/flux-crds`;
  const fromCrds: Record<string, string[]> = {};
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(fs.readFileSync(`${dir}/${name}`, 'utf8'))) {
      const crd = doc.toJS() as any;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      fromCrds[crd.spec.names.kind] = crd.spec.versions.filter((v: any) => v.served === true).map((v: any) => v.name).sort();
    }
  }
  assert.ok(Object.keys(fromCrds).length >= 8, 'expected the Flux CRDs');
  const table = Object.fromEntries(Object.entries(SERVED_VERSIONS).map(([k, v]) => [k, [...v!].sort()]));
  assert.deepEqual(table, fromCrds);
});
