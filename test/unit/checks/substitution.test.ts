import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findSubstitutions, substitute } from '../../../src/core/substitution/index';
import { describeSubstitution } from '../../../src/core/substitution/describe';
import { resolveSubstituteVars } from '../../../src/core/substitution/resolve';
import { check, FIXTURES, diskRepo, memoryRepo } from './helpers';

test('findSubstitutions: exact offsets, escapes, operators, nesting', () => {
  const text = 'a ${x} $${y} ${z:=d} ${w:-${v}} ${u^^} ${#t} $notavar';
  const { refs, error } = findSubstitutions(text, 100);
  assert.equal(error, undefined);
  assert.deepEqual(
    refs.map((r) => [r.name, r.operator, r.tolerant, text.slice(r.start - 100, r.end - 100)]),
    [
      ['x', '', false, '${x}'],
      ['z', ':=', true, '${z:=d}'],
      ['w', ':-', true, '${w:-${v}}'],
      ['v', '', false, '${v}'],
      ['u', '^^', false, '${u^^}'],
      ['t', '#', false, '${#t}'],
    ],
  );
  assert.equal(text.slice(refs[0].nameStart - 100, refs[0].nameEnd - 100), 'x');
});

test('findSubstitutions: syntax envsubst rejects', () => {
  assert.match(findSubstitutions('${{ github.token }}').error!.message, /unable to parse variable name/);
  assert.match(findSubstitutions('x ${unclosed').error!.message, /missing closing brace/);
  assert.equal(findSubstitutions('$${{ github.token }}').error, undefined);
});

test('substitute: values, defaults and strict mode as envsubst does', () => {
  const vars: Record<string, string> = { a: 'Hello', empty: '', path: 'x/y/z' };
  const lookup = (n: string) => vars[n];
  assert.equal(substitute('${a} ${b:=dflt} ${empty:-e} $${a}', lookup).value, 'Hello dflt e ${a}');
  assert.equal(substitute('${a^^}-${a,,}-${#a}-${a:1:3}-${path//\\//.}', lookup).value, 'HELLO-hello-5-ell-x.y.z');
  assert.equal(substitute('${a%l*}|${a%%l*}|${a#H*l}|${a##H*l}', lookup).value, 'Hel|He|lo|o');
  const strict = substitute('${missing}', lookup, true);
  assert.equal(strict.value, undefined);
  assert.match(strict.error!, /variable not set \(strict mode\): "missing"/);
  assert.equal(substitute('${missing:=ok}', lookup, true).value, 'ok');
  assert.equal(substitute('${missing}', lookup).value, '');
});

test('resolveSubstituteVars: substituteFrom in order, inline overrides, Secrets masked', () => {
  const repo = memoryRepo({
    'clusters/test/ks.yaml': [
      'apiVersion: kustomize.toolkit.fluxcd.io/v1',
      'kind: Kustomization',
      'metadata: {name: apps, namespace: flux-system}',
      'spec:',
      '  path: ./apps',
      '  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}',
      '  postBuild:',
      '    substitute: {region: inline}',
      '    substituteFrom:',
      '      - {kind: ConfigMap, name: settings}',
      '      - {kind: Secret, name: secrets}',
      '      - {kind: ConfigMap, name: absent, optional: true}',
      '',
    ].join('\n'),
    'apps/settings.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: flux-system}\ndata: {region: cm, domain: example.com, token: from-cm}\n',
    'apps/secrets.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: secrets, namespace: flux-system}\nstringData: {token: hunter2}\n',
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {t: "${token}", r: "${region}"}\n',
  });
  const model = repo.model();
  const ks = model.clusters[0].kustomizations.find((k) => k.applied.name === 'apps')!;
  const vars = resolveSubstituteVars(ks, model);
  assert.equal(vars.vars.get('region')!.value, 'inline');
  assert.equal(vars.vars.get('region')!.origin.kind, 'substitute');
  assert.equal(vars.vars.get('region')!.overrides[0].kind, 'ConfigMap');
  assert.equal(vars.vars.get('domain')!.value, 'example.com');
  assert.equal(vars.vars.get('token')!.value, '***');
  assert.equal(vars.vars.get('token')!.masked, true);
  // The optional ConfigMap is not in the workspace: its keys are unknown.
  assert.equal(vars.complete, false);
  assert.equal(vars.unresolved[0].name, 'absent');

  const file = model.workspace.files.get('/repo/apps/cm.yaml')!;
  const at = file.text.indexOf('${token}') + 3;
  const info = describeSubstitution(model, file.path, at)!;
  assert.equal(info.name, 'token');
  assert.equal(info.entries[0].status, 'defined');
  assert.equal(info.entries[0].value, '***');
  assert.doesNotMatch(info.markdown, /hunter2/);
  // As rendered: Markdown's backslash escapes removed.
  assert.match(info.markdown.replace(/\\(.)/g, '$1'), /Secret flux-system\/secrets \(apps\/secrets.yaml:\d+\)/);
});

test('hover description: defined, default and undefined variables', () => {
  const repo = diskRepo(`${FIXTURES}/substitution-undefined/fail`);
  const model = repo.model();
  const file = [...model.workspace.files.values()].find((f) => f.path.endsWith('/apps/cm.yaml'))!;
  const describe = (needle: string) => describeSubstitution(model, file.path, file.text.indexOf(needle) + 2)!;
  const domain = describe('${cluster_domain}');
  assert.deepEqual([domain.entries[0].status, domain.entries[0].value], ['defined', 'example.com']);
  assert.match(domain.entries[0].origin!, /^ConfigMap flux-system\/cluster-settings \(clusters\/test\/settings.yaml:1\)$/);
  const name = describe('${cluster_name}');
  assert.match(name.entries[0].origin!, /postBuild.substitute of Kustomization flux-system\/apps/);
  assert.deepEqual([describe('${replicas').entries[0].status, describe('${replicas').entries[0].value], ['default', '2']);
  assert.equal(describe('${region}').entries[0].status, 'undefined');
  assert.equal(describeSubstitution(model, file.path, file.text.indexOf('$${not_a_var}') + 3), undefined);
});

test('substitution-invalid: envsubst syntax errors fail the Kustomization', () => {
  const repo = memoryRepo({
    'clusters/test/ks.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: ci, namespace: flux-system}\nspec:\n  path: ./ci\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  postBuild:\n    substitute: {a: b}\n',
    'ci/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ci, namespace: default}\ndata:\n  run: echo ${{ github.sha }}\n  ok: echo $${{ github.sha }}\n',
  });
  const diags = check(repo).diagnostics;
  assert.deepEqual(
    diags.map((d) => [d.rule, d.file, d.range.start.line + 1]),
    [['substitution-invalid', '/repo/ci/cm.yaml', 5]],
  );
  assert.match(diags[0].message, /variable substitution failed: unable to parse variable name/);
});

test('revalidation: editing the ConfigMap that defines a variable updates the findings', () => {
  const settings = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-settings\n  namespace: flux-system\ndata:\n${data}`;
  const repo = memoryRepo({
    'clusters/test/root.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: root, namespace: flux-system}\nspec:\n  path: ./clusters/test/ks\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n',
    'clusters/test/ks/settings.yaml': settings('  domain: example.com\n'),
    'clusters/test/ks/apps.yaml':
      'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-settings}\n',
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {d: "${domain}", r: "${region}"}\n',
  });
  const rulesNow = () => check(repo).diagnostics.map((d) => `${d.rule}:${d.message.slice(0, 9)}`);
  assert.deepEqual(rulesNow(), ['substitution-undefined:${region}']);
  repo.setBuffer('/repo/clusters/test/ks/settings.yaml', settings('  domain: example.com\n  region: eu\n'));
  assert.deepEqual(rulesNow(), []);
  repo.setBuffer('/repo/clusters/test/ks/settings.yaml', settings('  region: eu\n'));
  assert.deepEqual(rulesNow(), ['substitution-undefined:${domain}']);
  repo.setBuffer('/repo/apps/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {d: "${domain:=a}", r: "${region}"}\n');
  assert.deepEqual(rulesNow(), []);
});
