import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { Repo } from '../../../src/core/repo';
import { diskHost } from '../../../src/node/fsHost';
import { memoryHost } from '../../../src/core/workspace/host';
import { postBuildVariables, substituteObjectText, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL } from '../../../src/core/flux/postbuild';
import { postBuild, splitDocuments } from '../../../src/render/kustomize';
import { MASK_SENTINEL } from '../../../src/core/flux/mask';

const root = path.resolve(__dirname, '../../fixtures/render/app-repo').split(path.sep).join('/');
const model = new Repo(root, diskHost).model();
const cluster = model.clusters[0];
const apps = cluster.kustomizations.find((k) => k.applied.name === 'apps')!;

test('variables: substituteFrom in order, inline substitute wins, Secret values masked unless revealed', () => {
  const pb = postBuildVariables(model, apps);
  assert.equal(pb.incomplete, false, 'the optional missing ConfigMap does not make variables incomplete');
  assert.equal(pb.vars?.get('DOMAIN'), 'override.example.org');
  assert.equal(pb.vars?.get('REPLICAS'), '3');
  assert.equal(pb.vars?.get('TOKEN'), MASK_SENTINEL);
  assert.ok(pb.warnings.some((w) => w.includes('cluster-secrets')));
  assert.equal(postBuildVariables(model, apps, true).vars?.get('TOKEN'), 's3cr3t', 'base64 data is decoded');
});

const output = [
  'apiVersion: v1',
  'kind: ConfigMap',
  'metadata:',
  '  name: a',
  '  namespace: team-a',
  'data:',
  '  replicas: ${REPLICAS}',
  '  url: https://${DOMAIN}/${MISSING:=x}',
  '  token: ${TOKEN}',
  '---',
  'apiVersion: v1',
  'kind: ConfigMap',
  'metadata:',
  '  name: b',
  '  labels:',
  '    kustomize.toolkit.fluxcd.io/substitute: disabled',
  'data:',
  '  keep: ${UNSET}',
  '',
].join('\n');

test('postBuild substitutes text (values re-typed), honours disabled, masks, sets owner labels and commonMetadata', () => {
  assert.equal(splitDocuments(output).length, 2);
  const r = postBuild(model, apps, (apps.source as any).view, output, { allowNetwork: true }, true);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  const [a, b] = r.value.objects as any[];
  assert.equal(a.data.replicas, 3);
  assert.equal(a.data.url, 'https://override.example.org/x');
  assert.equal(a.data.token, '***');
  assert.equal(b.data.keep, '${UNSET}');
  for (const o of [a, b]) {
    assert.equal(o.metadata.labels[OWNER_NAME_LABEL], 'apps');
    assert.equal(o.metadata.labels[OWNER_NAMESPACE_LABEL], 'flux-system');
    assert.equal(o.metadata.labels.team, 'a');
    assert.equal(o.metadata.annotations.owner, 'team-a@example.com');
  }
});

test('strict substitution fails naming the object; non-strict empties the variable', () => {
  const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  x: ${UNDEFINED_VAR}\n';
  const strict = postBuild(model, apps, (apps.source as any).view, bad, { allowNetwork: true }, true);
  assert.ok(!strict.ok);
  assert.equal(strict.error.kind, 'substitution');
  assert.match(strict.error.message, /ConfigMap\/c.*UNDEFINED_VAR/);
  const lax = postBuild(model, apps, (apps.source as any).view, bad, { allowNetwork: true, strictSubstitution: false }, true);
  assert.ok(lax.ok);
  assert.equal((lax.value.objects[0] as any).data.x, null);
  // Empty where a value was expected, the YAML breaks (a tag ending in a bare colon): the unset variables are named.
  const tag = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  image: ghcr.io/app:${TAG}\n  x: ${REPLICAS} $${ESCAPED}\n';
  const broken = postBuild(model, apps, (apps.source as any).view, tag, { allowNetwork: true, strictSubstitution: false }, true);
  assert.ok(!broken.ok);
  assert.match(broken.error.message, /after substitution 'Pod\/p' is not valid YAML: .*; TAG is not set, so substituted empty$/);
});

test('objects without apiVersion/kind/name are rejected as Flux does', () => {
  const r = postBuild(model, apps, (apps.source as any).view, 'kind: ConfigMap\nmetadata:\n  name: x\n', { allowNetwork: true }, true);
  assert.ok(!r.ok);
  assert.match(r.error.message, /failed to decode Kubernetes apiVersion, kind and name/);
});

test('with a substituteFrom source the cluster provides, every reference to its unknown variables stays as written, operators included', () => {
  const pb = { vars: new Map([['KNOWN', 'example.org']]), always: false, incomplete: true, warnings: [] };
  const text = 'metadata:\n  name: ${DOMAIN/./-}-tls\ndata:\n  a: ${KNOWN/./-}\n  b: ${DOMAIN}\n  c: ${PORT:=80}\n  d: ${KNOWN:-x}${DOMAIN^^}\n';
  const r = substituteObjectText(text, {}, pb, true);
  assert.ok('text' in r, JSON.stringify(r));
  // Two replacements would read as one name ('-tls') when the variable is taken as empty.
  assert.equal(r.text, 'metadata:\n  name: ${DOMAIN/./-}-tls\ndata:\n  a: example-org\n  b: ${DOMAIN}\n  c: 80\n  d: example.org${DOMAIN^^}\n');
});

test('an optional substituteFrom Secret that a Kustomization this one waits for makes at runtime has unknown keys; made beside it, it is absent', () => {
  const ks = (name: string, p: string, extra = '') =>
    `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ${p}\n  targetNamespace: flux-system\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
  const app = (dependsOn: string) =>
    ks('forgejo', './apps/forgejo', `${dependsOn}  postBuild:\n    substituteFrom:\n      - kind: Secret\n        name: forgejo-oidc\n        optional: true\n`);
  const client = 'apiVersion: pocketid.internal/v1alpha1\nkind: PocketIDOIDCClient\nmetadata:\n  name: forgejo\nspec:\n  secret:\n    name: forgejo-oidc\n';
  const files = (dependsOn: string, clientAt: string) => ({
    'clusters/c/flux-system/gotk-sync.yaml': ks('flux-system', './clusters/c'),
    'clusters/c/apps.yaml': `${ks('pocket-id-resources', './apps/pocket-id')}---\n${app(dependsOn)}`,
    'apps/pocket-id/placeholder.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n',
    [clientAt]: client,
    'apps/forgejo/hr.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\ndata:\n  id: ${client_id}\n',
  });
  const pbOf = (f: Record<string, string>) => {
    const m = new Repo('/repo', memoryHost('/repo', f)).model();
    const node = m.clusters[0].kustomizations.find((k) => k.applied.name === 'forgejo')!;
    return postBuildVariables(m, node);
  };
  // Made by an upstream Kustomization's PocketIDOIDCClient, in forgejo's own namespace (where Flux
  // reads substituteFrom): it exists when forgejo runs; its keys are unknown.
  assert.equal(pbOf(files('  dependsOn:\n    - name: pocket-id-resources\n', 'apps/pocket-id/oidc-forgejo.yaml')).incomplete, true);
  // Made by an object forgejo applies itself: on a fresh cluster it is not there yet (strict substitution fails).
  assert.equal(pbOf(files('  dependsOn:\n    - name: pocket-id-resources\n', 'apps/forgejo/oidc-forgejo.yaml')).incomplete, false);
  // Upstream of no dependsOn: not waited for, so absent too.
  assert.equal(pbOf(files('', 'apps/pocket-id/oidc-forgejo.yaml')).incomplete, false);
  // A tofu-controller Terraform writing its outputs to the Secret, upstream.
  const terraform = 'apiVersion: infra.contrib.fluxcd.io/v1alpha2\nkind: Terraform\nmetadata:\n  name: tunnel\nspec:\n  writeOutputsToSecret:\n    name: forgejo-oidc\n';
  assert.equal(pbOf({ ...files('  dependsOn:\n    - name: pocket-id-resources\n', 'apps/pocket-id/oidc-forgejo.yaml'), 'apps/pocket-id/oidc-forgejo.yaml': terraform }).incomplete, true);
});
