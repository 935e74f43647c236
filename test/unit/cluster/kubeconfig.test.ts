import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { kubeconfigFiles, loadKubeConfig } from '../../../src/cluster/kubeconfig';
import { parseDuration } from '../../../src/cli/commands/reconcile';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gp-kubeconfig-unit-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

const one = file(
  'one.yaml',
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: { server: 'https://one.example:6443' }
users:
- name: u1
  user: { token: t1 }
- name: sso
  user:
    exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token] }
contexts:
- name: dev
  context: { cluster: c1, user: u1, namespace: apps }
- name: eks
  context: { cluster: c1, user: sso }
current-context: dev
`,
);
const two = file(
  'two.yaml',
  `apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster: { server: 'https://ignored.example' }
- name: c2
  cluster: { server: 'https://two.example' }
users:
- name: u2
  user: { token: t2 }
contexts:
- name: dev
  context: { cluster: c2, user: u2 }
- name: prod
  context: { cluster: c2, user: u2 }
current-context: prod
`,
);

test('files: override, else KUBECONFIG (several, path-delimited), else ~/.kube/config', () => {
  assert.deepEqual(kubeconfigFiles({ kubeconfigPath: one, env: { KUBECONFIG: two } }).files, [one]);
  assert.deepEqual(kubeconfigFiles({ env: { KUBECONFIG: [one, '', two].join(path.delimiter) } }).files, [one, two]);
  assert.deepEqual(kubeconfigFiles({ env: { HOME: '/home/me' } }).files, [path.join('/home/me', '.kube', 'config')]);
  assert.deepEqual(kubeconfigFiles({ kubeconfigPath: '~/k.yaml', env: { HOME: '/home/me' } }).files, [path.join('/home/me', 'k.yaml')]);
});

test('merge: first file wins per name and for current-context; missing files are skipped', () => {
  const r = loadKubeConfig({ env: { KUBECONFIG: [path.join(dir, 'missing.yaml'), one, two].join(path.delimiter) } });
  assert.ok(r.ok, !r.ok ? r.error.message : '');
  assert.equal(r.value.context, 'dev');
  assert.equal(r.value.server, 'https://one.example:6443');
  assert.equal(r.value.namespace, 'apps');
  assert.deepEqual(r.value.contexts, ['dev', 'eks', 'prod']);
  const prod = loadKubeConfig({ env: { KUBECONFIG: [one, two].join(path.delimiter) }, context: 'prod' });
  assert.ok(prod.ok);
  assert.equal(prod.value.server, 'https://two.example');
  assert.equal(prod.value.namespace, 'default');
  assert.equal(prod.value.kc.getCurrentContext(), 'prod');
  assert.match(fs.readFileSync(two, 'utf8'), /current-context: prod/);
  assert.match(fs.readFileSync(one, 'utf8'), /current-context: dev/);
});

test('exec users are refused when exec is not allowed, other contexts still load', () => {
  const env = { KUBECONFIG: one };
  const refused = loadKubeConfig({ env, context: 'eks', allowExec: false });
  assert.ok(!refused.ok);
  assert.equal(refused.error.kind, 'bad-kubeconfig');
  assert.equal(
    refused.error.message,
    'Context "eks" authenticates with an exec credential plugin "aws"; running it is disabled in an untrusted workspace (trust the workspace to connect)',
  );
  assert.ok(loadKubeConfig({ env, context: 'eks', allowExec: true }).ok);
  assert.ok(loadKubeConfig({ env, context: 'dev', allowExec: false }).ok);
});

test('clear errors: no kubeconfig, invalid YAML, unknown context, dangling references, no current-context', () => {
  const none = loadKubeConfig({ env: { KUBECONFIG: path.join(dir, 'nope.yaml') } });
  assert.ok(!none.ok);
  assert.equal(none.error.kind, 'no-kubeconfig');
  assert.match(none.error.message, /No kubeconfig found \(KUBECONFIG: .*nope\.yaml\)/);

  const bad = file('bad.yaml', 'clusters: [\n');
  const invalid = loadKubeConfig({ kubeconfigPath: bad, env: {} });
  assert.ok(!invalid.ok);
  assert.equal(invalid.error.kind, 'bad-kubeconfig');
  assert.match(invalid.error.message, new RegExp(`^Invalid kubeconfig ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));

  const unknown = loadKubeConfig({ kubeconfigPath: one, env: {}, context: 'staging' });
  assert.ok(!unknown.ok);
  assert.match(unknown.error.message, /Context "staging" is not in .* \(available: dev, eks\)/);

  const dangling = file('dangling.yaml', 'contexts:\n- name: x\n  context: { cluster: gone, user: u }\ncurrent-context: x\n');
  const d = loadKubeConfig({ kubeconfigPath: dangling, env: {} });
  assert.ok(!d.ok);
  assert.equal(d.error.message, 'Context "x" refers to cluster "gone", which is not defined');

  const noCurrent = file('nocurrent.yaml', 'clusters:\n- name: c\n  cluster: { server: "https://c" }\ncontexts:\n- name: a\n  context: { cluster: c }\n');
  const n = loadKubeConfig({ kubeconfigPath: noCurrent, env: {} });
  assert.ok(!n.ok);
  assert.match(n.error.message, /No current-context .*; select one of: a$/);
});

test('CLI durations', () => {
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('2h'), 7_200_000);
  assert.throws(() => parseDuration('5'), /not a duration/);
  assert.throws(() => parseDuration('soon'), /not a duration/);
  assert.throws(() => parseDuration('0s'), /not a duration/);
});
