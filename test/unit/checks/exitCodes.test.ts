import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliCaptured } from '../helpers';

/**
 * Every command exits 0 when the answer is "fine" (for `tree` and `graph`: printed), 1 when the
 * repository has a problem (a check error, a build that fails because of the repository), 2 when
 * the command could not answer (usage, a source outside the workspace, an internal error).
 */
const ks = (name: string, p: string, extra = '', source = 'flux-system') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${p}\n  sourceRef:\n    kind: GitRepository\n    name: ${source}\n${extra}`;

function withRepo(files: Record<string, string>, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-exit-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(`${dir}/${rel}`), { recursive: true });
    fs.writeFileSync(`${dir}/${rel}`, text);
  }
  return body(dir).finally(() => fs.rmSync(dir, { recursive: true, force: true }));
}

const REPO = {
  'clusters/c/flux-system/gotk-sync.yaml': ks('flux-system', './clusters/c'),
  'clusters/c/good.yaml': ks('good', './apps/good'),
  'clusters/c/broken.yaml': ks('broken', './apps/broken', '  postBuild:\n    substitute:\n      DEFINED: "1"\n'),
  'clusters/c/elsewhere.yaml': `${ks('elsewhere', './deploy', '', 'other')}---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  url: https://example.com/other.git\n  ref:\n    branch: main\n`,
  'apps/good/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n  namespace: default\n',
  'apps/broken/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\n  namespace: default\ndata:\n  uid: "${UNDEFINED}"\n',
};

test('exit codes: tree and graph print their answer with 0 even when the repository has problems, 2 on usage', () =>
  withRepo(REPO, async (dir) => {
    assert.equal((await runCliCaptured(['tree', dir], dir)).code, 0);
    assert.equal((await runCliCaptured(['graph', dir], dir)).code, 0);
    assert.equal((await runCliCaptured(['tree', dir, '--format', 'xml'], dir)).code, 2);
    assert.equal((await runCliCaptured(['graph', dir, '--cluster', 'nope'], dir)).code, 2);
  }));

test('exit codes: build is 0 when it renders, 1 when the repository makes it fail, 2 when it cannot be built here or on usage', () =>
  withRepo(REPO, async (dir) => {
    const good = await runCliCaptured(['build', 'ks', 'good', dir], dir);
    assert.equal(good.code, 0, good.stderr);
    const broken = await runCliCaptured(['build', 'ks', 'broken', dir], dir);
    assert.match(broken.stderr, /variable not set \(strict mode\)/);
    assert.equal(broken.code, 1);
    // A source outside the workspace says nothing about the repository: the tool could not answer.
    const external = await runCliCaptured(['build', 'ks', 'elsewhere', dir], dir);
    assert.notEqual(external.stderr, '');
    assert.equal(external.code, 2, external.stderr);
    assert.equal((await runCliCaptured(['build', 'kustomization-typo', 'good', dir], dir)).code, 2);
    assert.equal((await runCliCaptured(['build', 'ks', 'absent', dir], dir)).code, 2);
  }));

test('exit codes: diff is 1 when the local build fails because of the repository, 2 on usage', () =>
  withRepo(REPO, async (dir) => {
    // A cluster nothing listens on: the render fails before the cluster is asked.
    const kubeconfig = `${dir}/kubeconfig`;
    fs.writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:9\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n',
    );
    const broken = await runCliCaptured(['diff', 'ks', 'broken', dir, '--kubeconfig', kubeconfig], dir);
    assert.match(broken.stderr, /variable not set \(strict mode\)/);
    assert.equal(broken.code, 1);
    assert.equal((await runCliCaptured(['diff', 'ks', dir], dir)).code, 2);
  }));

test('check text and github output carry the related locations', () =>
  withRepo(
    {
      'clusters/c/flux-system/gotk-sync.yaml': ks('flux-system', './clusters/c'),
      'clusters/c/a.yaml': ks('a', './apps/a', '  dependsOn:\n    - name: b\n'),
      'clusters/c/b.yaml': ks('b', './apps/b', '  dependsOn:\n    - name: a\n'),
      'apps/a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
      'apps/b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n',
    },
    async (dir) => {
      const json = JSON.parse((await runCliCaptured(['check', dir, '--format', 'json'], dir)).stdout);
      const cycle = json.diagnostics.find((d: { rule: string }) => d.rule === 'depends-on-cycle');
      assert.ok(cycle?.related.length, JSON.stringify(json));
      const r = cycle.related[0];
      const text = await runCliCaptured(['check', dir], dir);
      assert.ok(text.stdout.includes(`\n  > ${r.file}:${r.line}:${r.column}: ${r.message}\n`), text.stdout);
      const github = await runCliCaptured(['check', dir, '--format', 'github'], dir);
      assert.ok(github.stdout.includes(`%0A${r.file}:${r.line}:${r.column}: ${r.message}`), github.stdout);
    },
  ));
