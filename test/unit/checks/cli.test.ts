import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES, REPO_ROOT } from './helpers';
import { validate } from './jsonSchema';
import { runCliCaptured } from '../helpers';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await runCliCaptured(args, REPO_ROOT);
  return { code, out: stdout, err: stderr };
}

test('check --format json: contract, relative files, 1-based positions, exit 1 on errors', async () => {
  const { code, out } = await cli(['check', `${FIXTURES}/depends-on-not-found/fail`, '--format', 'json']);
  assert.equal(code, 1);
  const json = JSON.parse(out);
  assert.deepEqual(
    json.diagnostics.map((d: any) => [d.rule, d.severity, d.file, d.line, d.column]),
    [
      ['depends-on-not-found', 'error', 'clusters/test/apps.yaml', 15, 13],
      ['depends-on-not-found', 'error', 'clusters/test/apps.yaml', 16, 13],
    ],
  );
  assert.equal(typeof json.diagnostics[0].message, 'string');
});

test('check: exit 0 without errors (warnings allowed), 2 on usage errors', async () => {
  assert.equal((await cli(['check', `${FIXTURES}/depends-on-not-found/pass`])).code, 0);
  const warnOnly = await cli(['check', `${FIXTURES}/crd-order-no-wait/fail`]);
  assert.equal(warnOnly.code, 0);
  assert.match(warnOnly.out, /crd-order-no-wait/);
  assert.equal((await cli(['check', '--format', 'xml', FIXTURES])).code, 2);
  const missing = await cli(['check', `${FIXTURES}/does-not-exist`]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no such directory/);
});

test('check --format text and github', async () => {
  const text = await cli(['check', `${FIXTURES}/depends-on-cycle/fail`]);
  assert.match(text.out, /^clusters\/test\/a.yaml:15:13: error \[depends-on-cycle\] /m);
  assert.match(text.out, /3 error\(s\), 0 warning\(s\)/);
  const gh = await cli(['check', `${FIXTURES}/depends-on-cycle/fail`, '--format', 'github']);
  const lines = gh.out.trim().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0], /^::error file=clusters\/test\/a.yaml,line=15,col=13,endLine=15,endColumn=14,title=depends-on-cycle::dependsOn cycle /);
});

test('check --format sarif: validates against the OASIS SARIF 2.1.0 schema', async () => {
  // test/fixtures/checks/sarif-schema-2.1.0.json is the official schema (OASIS, errata01).
  const schema = JSON.parse(fs.readFileSync(`${FIXTURES}/sarif-schema-2.1.0.json`, 'utf8'));
  for (const fixture of ['crd-order/fail', 'depends-on-cycle/fail', 'crd-order-no-wait/fail', 'duplicate-object/pass']) {
    const { out } = await cli(['check', `${FIXTURES}/${fixture}`, '--format', 'sarif']);
    assert.deepEqual(validate(schema, JSON.parse(out)), [], fixture);
  }
  // The validator does reject what the schema forbids.
  const broken = { version: '2.1.0', runs: [{ tool: { driver: {} }, results: [{ level: 'fatal', message: {} }] }] };
  assert.ok(validate(schema, broken).length >= 2);
});

test('check --format sarif: results, rules and locations', async () => {
  const { code, out } = await cli(['check', `${FIXTURES}/crd-order/fail`, '--format', 'sarif']);
  // A ClusterIssuer that only waits for a retry on a fresh cluster: a warning, so exit 0.
  assert.equal(code, 0);
  const sarif = JSON.parse(out);
  assert.equal(sarif.version, '2.1.0');
  assert.match(sarif.$schema, /sarif-2\.1\.0/);
  assert.equal(sarif.runs.length, 1);
  const run = sarif.runs[0];
  assert.equal(run.tool.driver.name, 'gitops-preview');
  const ruleIds = run.tool.driver.rules.map((r: any) => r.id);
  assert.ok(ruleIds.includes('crd-order'));
  assert.equal(run.results.length, 2);
  for (const r of run.results) {
    assert.equal(r.ruleId, 'crd-order');
    assert.equal(run.tool.driver.rules[r.ruleIndex].id, r.ruleId);
    assert.ok(['error', 'warning', 'note', 'none'].includes(r.level));
    assert.equal(typeof r.message.text, 'string');
    const loc = r.locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uriBaseId, 'SRCROOT');
    assert.ok(!loc.artifactLocation.uri.startsWith('/'));
    assert.ok(loc.region.startLine >= 1 && loc.region.startColumn >= 1);
    assert.ok(r.relatedLocations.length >= 1);
  }
});

test('build substitutes as the repository does: strictly by default, leniently when a file turns the gate off or with --no-strict', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-build-strict-'));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(`${dir}/${rel}`), { recursive: true });
    fs.writeFileSync(`${dir}/${rel}`, text);
  };
  try {
    write('clusters/c/flux-system/gotk-sync.yaml', 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./clusters/c\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n');
    write('clusters/c/apps.yaml', 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n    substitute:\n      DEFINED: "1"\n');
    write('apps/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dashboard\n  namespace: default\ndata:\n  uid: "prometheus-${DS_PROMETHEUS}"\n');
    const strict = await cli(['build', 'ks', 'apps', dir]);
    assert.equal(strict.code, 1);
    assert.match(strict.err, /variable not set \(strict mode\): "DS_PROMETHEUS"/);
    const flag = await cli(['build', 'ks', 'apps', '--no-strict', dir]);
    assert.equal(flag.code, 0, flag.err);
    assert.match(flag.out, /uid: prometheus-$/m);
    write('clusters/c/flux-system/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\npatches:\n  - patch: |\n      - op: add\n        path: /spec/template/spec/containers/0/args/-\n        value: --feature-gates=StrictPostBuildSubstitutions=false\n    target:\n      kind: Deployment\n      name: kustomize-controller\n');
    const gate = await cli(['build', 'ks', 'apps', dir]);
    assert.equal(gate.code, 0, gate.err);
    assert.match(gate.out, /uid: prometheus-$/m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
