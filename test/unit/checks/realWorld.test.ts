import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, diskRepo, FIXTURES } from './helpers';

/** The failures users hit in practice, with the message Flux prints and where we point. */
function diags(fixture: string, rule: string) {
  const repo = diskRepo(`${FIXTURES}/${fixture}`);
  const rel = (p: string) => p.slice(repo.workspace.root.length + 1);
  return check(repo)
    .diagnostics.filter((d) => d.rule === rule)
    .map((d) => ({ ...d, rel: rel(d.file), line: d.range.start.line + 1, relatedRel: d.related.map((r) => `${rel(r.file)}:${r.range.start.line + 1}`) }));
}

test(`"dry-run failed, error: no matches for kind \\"ClusterIssuer\\"": CR before CRD`, () => {
  const list = diags('crd-order/fail', 'crd-order');
  const issuer = list.find((d) => d.rel === 'infrastructure/configs/issuer.yaml')!;
  assert.equal(issuer.line, 2);
  assert.match(issuer.message, /no matches for kind \\"ClusterIssuer\\" in version \\"cert-manager.io\/v1\\"/);
  assert.match(issuer.message, /Add dependsOn 'flux-system\/infra-controllers' to flux-system\/infra-configs/);
  assert.ok(issuer.relatedRel.includes('infrastructure/controllers/cert-manager.yaml:18'), issuer.relatedRel.join());
  assert.ok(issuer.relatedRel.includes('clusters/test/infra-controllers.yaml:4'));
});

test(`"dependency 'flux-system/infra' not found": dependsOn with the wrong namespace`, () => {
  const [wrongNs, typo] = diags('depends-on-not-found/fail', 'depends-on-not-found');
  assert.equal(wrongNs.rel, 'clusters/test/apps.yaml');
  assert.equal(wrongNs.line, 15);
  // The exact node: the `name` scalar of the entry.
  assert.equal(wrongNs.range.start.character, 12);
  assert.equal(wrongNs.range.end.character, 17);
  assert.match(wrongNs.message, /"dependency 'flux-system\/infra' not found"/);
  assert.match(wrongNs.message, /^dependsOn 'flux-system\/infra' is not found: Kustomization 'infra' is in namespace 'infra-system'; set `namespace: infra-system` on this entry\.\n/);
  assert.deepEqual(wrongNs.relatedRel, ['clusters/test/infra.yaml:4']);
  assert.match(typo.message, /did you mean 'database'\?\n/);
});

test('a dependsOn cycle is reported on every member with the path', () => {
  const list = diags('depends-on-cycle/fail', 'depends-on-cycle');
  assert.equal(list.length, 3);
  const a = list.find((d) => d.rel === 'clusters/test/a.yaml')!;
  assert.match(a.message, /dependsOn cycle flux-system\/a -> flux-system\/c -> flux-system\/b -> flux-system\/a/);
  assert.deepEqual(a.relatedRel.sort(), ['clusters/test/b.yaml:4', 'clusters/test/c.yaml:4']);
});

test('a Kustomization still on v1beta2', () => {
  const [ks] = diags('api-version-unserved/fail', 'api-version-unserved').filter((d) => d.rel === 'clusters/test/apps.yaml');
  assert.equal(ks.line, 1);
  assert.match(ks.message, /^Kustomization kustomize.toolkit.fluxcd.io\/v1beta2 is no longer served by Flux 2\.8\+: use kustomize.toolkit.fluxcd.io\/v1\.\n/);
  assert.equal(ks.fix?.kind, 'migrate-api-version');
});

test('depends-on-kind suggests healthChecks / wait', () => {
  const [d] = diags('depends-on-kind/fail', 'depends-on-kind');
  assert.match(d.message, /names a HelmRelease, not a Kustomization/);
  assert.match(d.message, /`wait: true` or a `healthChecks` entry/);
});
