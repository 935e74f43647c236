/**
 * Rendering through kustomize and helm compiled to WebAssembly (dist/wasm; wasmParity.test.ts
 * compares them with the native binaries). What these tests check is Flux's layer on top.
 *
 * Corpora: every Kustomization of ../shared/corpora whose inputs are all in the repository is built.
 * "Inputs in the repository" = its source resolves to the workspace (not an OCIRepository or a
 * foreign GitRepository), no remote kustomize bases, and every file the build reads exists (the
 * corpora are YAML-only, so configMapGenerator inputs like dashboards/*.json are absent). Those are
 * found by `kustomizationInputsProblem` before kustomize runs and are listed as excluded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { createHash } from 'node:crypto';
import { Repo } from '../../src/core/repo';
import { diskHost } from '../../src/node/fsHost';
import type { KustomizationNode, RepoModel } from '../../src/core/model/graph';
import { asRecord } from '../../src/core/model/objects';
import { renderHelmRelease, renderKustomization, OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, type RenderOptions } from '../../src/render/index';
import { kustomizationInputsProblem } from '../../src/render/kustomize';
import { postBuildVariables, substitutionDisabled } from '../../src/core/flux/postbuild';
import { strictPostBuild } from '../../src/core/flux/featureGates';
import { substituteVariables } from '../../src/core/substitution/evaluate';
import { runCli } from '../../src/cli/main';
import { REVIEWED_CORPORA } from './tools';

const repoRoot = path.resolve(__dirname, '../..');
const corporaDir = path.join(repoRoot, '..', 'shared', 'corpora');
const fixture = path.join(repoRoot, 'test/fixtures/render/app-repo').split(path.sep).join('/');

const opts: RenderOptions = { allowNetwork: true, timeoutMs: 120_000 };
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const open = (root: string) => new Repo(root.split(path.sep).join('/'), diskHost, { sha256 }).model();

function identity(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

test('fixture: Flux spec fields, substitution, SOPS masking and owner labels on a Kustomization', async () => {
  const model = open(fixture);
  const ks = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  const r = await renderKustomization(model, ks, opts);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  const byId = new Map(r.value.objects.map((o) => [identity(o.kind, o.metadata.namespace, o.metadata.name), o as any]));
  const deploy = byId.get('Deployment/team-a/dev-web');
  assert.ok(deploy, `objects: ${[...byId.keys()].join(', ')}`);
  assert.equal(deploy.spec.replicas, 2, 'spec.patches applied');
  const container = deploy.spec.template.spec.containers[0];
  assert.equal(container.image, 'nginx:1.27', 'spec.images applied');
  const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value]));
  assert.deepEqual(env, { GREETING: 'hello', URL: 'https://override.example.org/', SIZE: '10Gi', TOKEN: '***', LITERAL: '${NOT_A_VAR}' });
  assert.equal(byId.get('ConfigMap/team-a/dev-scaled').data.replicas, 3);
  assert.equal(byId.get('ConfigMap/team-a/dev-settings').data.template, '${KEEP_ME}', 'substitute: disabled honoured');
  assert.ok(byId.has('ClusterRole//dev-reader'), 'cluster-scoped: prefixed, no namespace');
  assert.ok(byId.has('ServiceAccount/team-a/dev-web'), 'a sub-folder with its own kustomization is included by the generator');
  const secret = byId.get('Secret/team-a/dev-api-key');
  assert.deepEqual(secret.stringData, { key: '***' });
  assert.equal(secret.sops, undefined);
  for (const o of r.value.objects) {
    assert.equal(o.metadata.labels?.[OWNER_NAME_LABEL], 'apps');
    assert.equal(o.metadata.labels?.[OWNER_NAMESPACE_LABEL], 'flux-system');
    assert.equal(o.metadata.labels?.component, 'extra', 'spec.components applied');
    assert.equal(o.metadata.labels?.team, 'a', 'commonMetadata labels');
    assert.equal(o.metadata.annotations?.['config.kubernetes.io/origin'], undefined, 'origin annotations added for tracking are removed');
    assert.ok(o.origin?.file.startsWith(fixture + '/apps/base/'), `origin of ${o.kind}/${o.metadata.name}: ${o.origin?.file}`);
  }
  assert.equal(r.value.objects.length, ks.applies.length);
});

test('fixture: a HelmRelease from a workspace chart with valuesFiles, valuesFrom, postRenderers', async () => {
  const model = open(fixture);
  const hr = model.clusters[0].helmReleases.find((h) => h.applied.name === 'web')!;
  const r = await renderHelmRelease(model, hr, opts);
  assert.ok(r.ok, r.ok ? '' : r.error.message);
  assert.equal(r.value.releaseName, 'web-web');
  assert.equal(r.value.namespace, 'web');
  assert.deepEqual(r.value.objects.map((o) => o.kind).sort(), ['CustomResourceDefinition', 'Deployment'], 'test and pre-install hooks are not release objects');
  const d = r.value.objects.find((o) => o.kind === 'Deployment') as any;
  assert.equal(d.metadata.name, 'web-web');
  assert.equal(d.metadata.namespace, 'web');
  assert.equal(d.spec.replicas, 4, 'targetPath from a ConfigMap key, typed');
  assert.equal(d.spec.template.spec.containers[0].image, 'registry.example.com/nginx:2.0', 'valuesFiles replace chart defaults, valuesFrom over them');
  assert.equal(d.metadata.annotations.message, 'from-spec', 'spec.values win');
  assert.equal(d.metadata.annotations.password, '***', 'values from Secrets are masked');
  assert.equal(d.metadata.annotations['post-rendered'], 'yes', 'kustomize post-renderer applied');
  assert.equal(d.metadata.labels.tier, 'frontend');
  assert.equal(d.metadata.labels['helm.toolkit.fluxcd.io/name'], 'web');
  assert.equal(d.metadata.labels['helm.toolkit.fluxcd.io/namespace'], 'flux-system');
  assert.ok(d.origin?.file.endsWith('charts/web/templates/deployment.yaml'));

  const skip = await renderHelmRelease(model, { ...hr, applied: { ...hr.applied, object: { ...hr.applied.object, body: { ...hr.applied.object.body, spec: { ...hr.applied.object.body.spec, install: { crds: 'Skip' } } } } } }, opts);
  assert.ok(skip.ok);
  assert.ok(!skip.value.objects.some((o) => o.kind === 'CustomResourceDefinition'), 'install.crds: Skip leaves CRDs out');
});

test('rendering needs no process, no binary and no network; only an uncached chart fetch does, and says so', async () => {
  const model = open(fixture);
  const noProcess = { allowNetwork: false, env: { PATH: '' } };
  const ks = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  const built = await renderKustomization(model, ks, noProcess);
  assert.ok(built.ok, built.ok ? '' : built.error.message);
  const hr = model.clusters[0].helmReleases.find((h) => h.applied.name === 'web')!;
  const templated = await renderHelmRelease(model, hr, noProcess);
  assert.ok(templated.ok, templated.ok ? '' : templated.error.message);

  const example = open(path.join(corporaDir, 'flux2-kustomize-helm-example'));
  const podinfo = example.clusters[0].helmReleases.find((h) => h.applied.name === 'podinfo')!;
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-charts-'));
  try {
    const denied = await renderHelmRelease(example, podinfo, { ...noProcess, cacheDir });
    assert.ok(!denied.ok && denied.error.kind === 'not-allowed', JSON.stringify(denied));
    assert.match(denied.error.message, /is not in the chart cache, and fetching charts is disabled in an untrusted workspace: trust the workspace to fetch it/);
    const offline = await renderHelmRelease(example, podinfo, { allowNetwork: true, offline: true, cacheDir });
    assert.ok(!offline.ok && offline.error.kind === 'not-allowed', JSON.stringify(offline));
    assert.match(offline.error.message, /charts are not fetched offline/);
  } finally {
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('CLI: build ks prints rendered YAML with Secrets masked; ambiguous names ask for --cluster', async () => {
  const run = async (args: string[]) => {
    let out = '';
    let err = '';
    // An empty PATH and no *_BIN: the builds need no kustomize, helm or kubectl.
    const code = await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), cwd: repoRoot, env: { PATH: '' } });
    return { code, out, err };
  };
  const example = path.join(corporaDir, 'flux2-kustomize-helm-example');
  const prod = await run(['build', 'ks', 'infra-configs', '--cluster', 'production', example]);
  assert.equal(prod.code, 0, prod.err);
  assert.match(prod.out, /server: https:\/\/acme-v02\.api\.letsencrypt\.org\/directory/);
  assert.match(prod.out, /# Source: infrastructure\/configs\/cluster-issuers\.yaml/);
  const ambiguous = await run(['build', 'ks', 'infra-configs', example]);
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.err, /several clusters \(production, staging\)/);
  const secrets = await run(['build', 'ks', 'releases', fixture]);
  assert.equal(secrets.code, 0, secrets.err);
  assert.match(secrets.out, /kind: Secret[\s\S]*password: "\*\*\*"/);
  assert.doesNotMatch(secrets.out, /hunter2/);
  const chart = await run(['build', 'hr', 'web', fixture]);
  assert.equal(chart.code, 0, chart.err);
  assert.match(chart.out, /kind: Deployment[\s\S]*name: web-web/);
});

/** Flux-layer expectations for one rendered Kustomization; returns problems (empty = fine). */
async function checkKustomization(model: RepoModel, ks: KustomizationNode, renderOpts: RenderOptions = opts): Promise<string[]> {
  const problems: string[] = [];
  const r = await renderKustomization(model, ks, renderOpts);
  if (!r.ok) return [`render failed: ${r.error.message}`];
  const objects = r.value.objects;
  const name = ks.applied.name;
  const ns = ks.applied.namespace ?? 'default';
  const rendered = new Set(objects.map((o) => identity(o.kind, model.isNamespaced(o.kind) ? (o.metadata.namespace ?? 'default') : undefined, o.metadata.name)));
  for (const o of objects) {
    if (o.metadata.labels?.[OWNER_NAME_LABEL] !== name || o.metadata.labels?.[OWNER_NAMESPACE_LABEL] !== ns) problems.push(`${o.kind}/${o.metadata.name}: owner labels missing`);
    if (ks.targetNamespace && model.isNamespaced(o.kind) && o.metadata.namespace !== ks.targetNamespace) {
      problems.push(`${o.kind}/${o.metadata.name}: namespace ${o.metadata.namespace} instead of targetNamespace ${ks.targetNamespace}`);
    }
  }
  // Every object the model predicts is rendered with the same identity (its name substituted as Flux
  // does); the only extra objects are kustomize generators' (origin = a kustomization file) and the
  // Kustomization applying itself. Namespace objects are compared by count: kustomize's namespace
  // transformer renames them (bjw-s' `_` component namespace), which the model does not follow.
  const pb = postBuildVariables(model, ks);
  const substituted = (n: string) => (pb.vars && (pb.vars.size > 0 || pb.always) ? substituteVariables(n, pb.vars, false) : n);
  // Objects a FluxInstance or ResourceSet creates in the cluster are the operator's, not kustomize's.
  const applies = ks.applies.filter((a) => !(a.object.synthetic && a.object.origin));
  for (const a of applies) {
    if (a.kind === 'Namespace') continue;
    const id = identity(a.kind, a.namespace && substituted(a.namespace), substituted(a.name));
    if (!rendered.has(id)) problems.push(`model predicts ${id}, not rendered`);
  }
  const count = (list: { kind: string }[]) => list.filter((o) => o.kind === 'Namespace').length;
  if (count(applies) !== count(objects)) problems.push(`${count(objects)} Namespace objects rendered, model predicts ${count(applies)}`);
  const generated = objects.filter((o) => /\/(kustomization\.ya?ml|Kustomization)$/.test(o.origin?.file ?? ''));
  const expected = applies.length + (ks.appliesItself ? 1 : 0) + generated.length;
  if (objects.length !== expected) problems.push(`${objects.length} objects rendered, expected ${expected} (${applies.length} modelled + ${generated.length} generated${ks.appliesItself ? ' + itself' : ''})`);
  // Substitution: with every variable known, what is left of ${...} must come from $${...} escapes.
  if (pb.vars && !pb.incomplete) {
    for (const o of objects) {
      if (substitutionDisabled(o as Record<string, any>)) continue;
      const left = (JSON.stringify(o).match(/\$\{/g) ?? []).length;
      const src = o.origin ? (model.workspace.readText(o.origin.file) ?? '') : '';
      const escaped = (src.match(/\$\$\{/g) ?? []).length;
      if (left > escaped) problems.push(`${o.kind}/${o.metadata.name}: ${left} unsubstituted \${...}`);
      for (const v of pb.vars.keys()) if (JSON.stringify(o).includes(`\${${v}}`) && !src.includes(`$\${${v}}`)) problems.push(`${o.kind}/${o.metadata.name}: \${${v}} not substituted`);
    }
  }
  return problems;
}

test('the shared corpora are present (the corpus render tests below must not vanish silently)', () => {
  assert.ok(fs.existsSync(corporaDir), `${corporaDir} is missing: CI puts ../shared beside the clone`);
  assert.ok(fs.readdirSync(corporaDir).length > 0, `${corporaDir} is empty`);
});

/**
 * The corpora this model-vs-render comparison was reviewed on. It opens each repository's static
 * model without the clone's remotes and branch and renders every Kustomization alone, which on the
 * second batch of corpora (20 added with issue #24) differs from how `check` builds them (children
 * from their parent's build, sources of the clone): variables of cluster-provided Secrets, Grafana
 * dashboards' own `${…}`. Those corpora are pinned, built as `check` builds them, by
 * test/unit/corpora/snapshots.test.ts; taking this comparison to them is left to issue #24.
 */
const RENDER_PARITY_CORPORA = REVIEWED_CORPORA;

// Listed without a guard: a missing folder throws here, which fails the file instead of skipping it.
for (const corpus of RENDER_PARITY_CORPORA) {
  test(`corpus ${corpus}: every Kustomization with all inputs in the repo renders with Flux's layer`, async (t) => {
    const model = open(path.join(corporaDir, corpus));
    // Substituting as the repository's kustomize-controller does (strict from Flux 2.9), as `check` and `build` do.
    const asFlux: RenderOptions = { ...opts, strictSubstitution: strictPostBuild(model.workspace) };
    assert.ok(fs.existsSync(path.join(corporaDir, corpus)), `corpus ${corpus} missing`);
    let built = 0;
    const excluded: string[] = [];
    const failures: string[] = [];
    for (const cluster of model.clusters) {
      for (const ks of cluster.kustomizations) {
        const label = `${cluster.name}: ${ks.applied.namespace}/${ks.applied.name}`;
        const inputs = kustomizationInputsProblem(model.workspace, ks);
        if (!inputs.ok) {
          excluded.push(`${label} (${inputs.error.message.split('\n')[0].replace(/^Kustomization [^:]+: /, '')})`);
          continue;
        }
        built++;
        for (const p of await checkKustomization(model, ks, asFlux)) failures.push(`${label}: ${p}`);
      }
    }
    t.diagnostic(`${built} built, ${excluded.length} excluded`);
    for (const e of excluded) t.diagnostic(`excluded ${e}`);
    assert.ok(built > 0, 'at least one Kustomization of the corpus is buildable');
    assert.deepEqual(failures, []);
  });
}

test('flux2-kustomize-helm-example: the production overlay patches the ClusterIssuer to the production ACME server', async () => {
  const model = open(path.join(corporaDir, 'flux2-kustomize-helm-example'));
  const servers: Record<string, unknown> = {};
  for (const cluster of model.clusters) {
    const ks = cluster.kustomizations.find((k) => k.applied.name === 'infra-configs')!;
    const r = await renderKustomization(model, ks, opts);
    assert.ok(r.ok, r.ok ? '' : r.error.message);
    const issuer = r.value.objects.find((o) => o.kind === 'ClusterIssuer') as any;
    servers[cluster.name] = asRecord(issuer?.spec?.acme)?.server;
  }
  assert.deepEqual(servers, {
    production: 'https://acme-v02.api.letsencrypt.org/directory',
    staging: 'https://acme-staging-v02.api.letsencrypt.org/directory',
  });
});
