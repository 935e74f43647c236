import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { FLUX_TYPES, fluxType, kindFromAlias, SERVED_VERSIONS } from '../../src/core/kinds';
import { SHARED } from './helpers';

interface CrdFacts {
  group: string;
  plural: string;
  served: string[];
  storage: string;
  namespaced: boolean;
}

function fluxCrds(): Record<string, CrdFacts> {
  const dir = `${SHARED}/flux-crds`;
  const out: Record<string, CrdFacts> = {};
  for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    for (const doc of parseAllDocuments(fs.readFileSync(`${dir}/${name}`, 'utf8'))) {
      const crd = doc.toJS() as any;
      if (crd?.kind !== 'CustomResourceDefinition') continue;
      out[crd.spec.names.kind] = {
        group: crd.spec.group,
        plural: crd.spec.names.plural,
        served: crd.spec.versions.filter((v: any) => v.served === true).map((v: any) => v.name).sort(),
        storage: crd.spec.versions.find((v: any) => v.storage === true).name,
        namespaced: crd.spec.scope === 'Namespaced',
      };
    }
  }
  assert.ok(Object.keys(out).length >= 8, 'expected the Flux CRDs');
  return out;
}

test('the embedded served-version table matches the Flux CRDs', () => {
  const crds = fluxCrds();
  const table = Object.fromEntries(Object.entries(SERVED_VERSIONS).map(([k, v]) => [k, [...v!].sort()]));
  assert.deepEqual(table, Object.fromEntries(Object.entries(crds).map(([k, c]) => [k, c.served])));
});

test('every watched Flux type is its CRD: group, plural, storage version, scope', () => {
  const crds = fluxCrds();
  for (const t of FLUX_TYPES) {
    const crd = crds[t.kind];
    assert.ok(crd, `no CRD for ${t.kind}`);
    assert.deepEqual({ group: t.group, plural: t.plural, version: t.version, namespaced: t.namespaced }, { group: crd.group, plural: crd.plural, version: crd.storage, namespaced: crd.namespaced }, t.kind);
  }
  assert.deepEqual(FLUX_TYPES.map((t) => t.kind).sort(), Object.keys(crds).sort());
});

test('kinds are found by CLI alias and by name, case-insensitively', () => {
  assert.equal(kindFromAlias('KS'), 'Kustomization');
  assert.equal(kindFromAlias('hr'), 'HelmRelease');
  assert.equal(kindFromAlias('gitrepo'), 'GitRepository');
  assert.equal(kindFromAlias('deployment'), undefined);
  assert.equal(fluxType('helmrelease')?.plural, 'helmreleases');
  assert.equal(fluxType('ArtifactGenerator'), undefined);
});
