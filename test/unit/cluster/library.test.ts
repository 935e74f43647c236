/**
 * The bundled CLI (dist/, `make build`) loads the Kubernetes client library (dist/kube.js,
 * src/cluster/library.ts) only when a command reaches a cluster: the library is loaded through the
 * code cache, whose file for it appears in the product cache's v8/ folder when, and only when, it
 * was loaded.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SHARED } from '../checks/helpers';

const cli = path.resolve(__dirname, '../../../dist/cli.js');
const corpus = `${SHARED}/corpora/flux2-kustomize-helm-example`;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-kube-library-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, HOME: tmp, GITOPS_PREVIEW_CACHE: path.join(tmp, 'cache') }, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const loaded = () => fs.readdirSync(path.join(tmp, 'cache', 'v8')).map((f) => f.replace(/-[0-9a-f]+\.bin$/, ''));

test('the Kubernetes client library is loaded by a cluster command only', async () => {
  assert.ok(fs.existsSync(cli) && fs.existsSync(path.join(path.dirname(cli), 'kube.js')), 'dist/cli.js and dist/kube.js are built by `make build`');
  const check = await run(['check', corpus]);
  assert.equal(check.code, 0, check.stderr);
  assert.deepEqual(loaded(), ['cli-worker.js']);

  // A cluster nothing listens for: the command gets as far as connecting, through the library.
  const kubeconfig = path.join(tmp, 'kubeconfig');
  fs.writeFileSync(
    kubeconfig,
    'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {token: abc}}]\n',
  );
  const diff = await run(['diff', 'ks', 'apps', corpus, '--cluster', 'staging', '--kubeconfig', kubeconfig]);
  assert.equal(diff.code, 2, diff.stderr);
  assert.match(diff.stderr, /Cannot reach https:\/\/127\.0\.0\.1:1/);
  assert.deepEqual(loaded().sort(), ['cli-worker.js', 'kube.js']);
});
