/**
 * `gitops-preview build hr` for charts from a chart repository and from OCI registries, with no
 * helm binary anywhere on PATH: an HTTP chart repository serving ../shared/charts (a node server
 * here), and the CNCF distribution registry (REGISTRY_BIN, built by test/cluster/build.sh) on
 * loopback, once anonymous and once behind htpasswd. The registry provisions its own htpasswd
 * file when it has none (user `docker`, a random password it logs): the test reads the password
 * from that log, so no bcrypt tool is needed. Charts are pushed in process through the
 * distribution API (blobs, then the manifest), as `helm push` lays them out.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { registryTool } from './tools';
import { gotkSyncYaml, serveChartRepo, writeAt } from './chartRepo';

const repoRoot = path.resolve(__dirname, '../..');
const sharedCharts = path.join(repoRoot, '..', 'shared', 'charts', 'repo');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-charts-it-'));

const HELM_CONFIG = 'application/vnd.cncf.helm.config.v1+json';
const HELM_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Registry {
  host: string;
  /** The `Authorization` header pushes need, when the registry has htpasswd on. */
  auth?: string;
  password?: string;
  proc: ChildProcess;
}

async function startRegistry(name: string, withAuth: boolean): Promise<Registry> {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const config = [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  formatter: json',
    'storage:',
    `  filesystem: { rootdirectory: ${JSON.stringify(path.join(dir, 'data'))} }`,
    'http:',
    `  addr: 127.0.0.1:${port}`,
    ...(withAuth ? ['auth:', '  htpasswd:', '    realm: charts-test', `    path: ${JSON.stringify(path.join(dir, 'htpasswd'))}`] : []),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'config.yml'), `${config}\n`);
  const proc = spawn(registryTool(repoRoot), ['serve', path.join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'], env: { HOME: dir, PATH: '' } });
  let log = '';
  proc.stdout!.on('data', (d: Buffer) => (log += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const host = `127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const status = await fetch(`http://${host}/v2/`).then((r) => r.status, () => 0);
    if (status === 200 || status === 401) break;
    if (i > 200 || proc.exitCode !== null) throw new Error(`registry ${name} did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!withAuth) return { host, proc };
  const provisioned = log
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; password?: string; user?: string })
    .find((l) => l.msg?.includes('htpasswd is missing, provisioning with default user'));
  assert.ok(provisioned?.password && provisioned.user === 'docker', `no provisioned user in the registry log: ${log}`);
  return { host, proc, password: provisioned.password, auth: `Basic ${Buffer.from(`docker:${provisioned.password}`).toString('base64')}` };
}

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

async function pushBlob(reg: Registry, repository: string, blob: Buffer): Promise<void> {
  const headers: Record<string, string> = reg.auth ? { Authorization: reg.auth } : {};
  const start = await fetch(`http://${reg.host}/v2/${repository}/blobs/uploads/`, { method: 'POST', headers });
  assert.equal(start.status, 202, `start upload: ${start.status} ${await start.text()}`);
  const location = new URL(start.headers.get('location')!, `http://${reg.host}`);
  location.searchParams.set('digest', sha(blob));
  const put = await fetch(location, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/octet-stream' }, body: blob });
  assert.equal(put.status, 201, `upload: ${put.status} ${await put.text()}`);
}

/** The chart package as `helm push` stores it: Chart.yaml as the config, the .tgz as the one layer, the version as the tag. */
async function pushChart(reg: Registry, repository: string, file: string, version: string): Promise<void> {
  const tgz = fs.readFileSync(path.join(sharedCharts, file));
  const config = Buffer.from(JSON.stringify({ name: repository.split('/').pop(), version, apiVersion: 'v2' }));
  await pushBlob(reg, repository, config);
  await pushBlob(reg, repository, tgz);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: HELM_CONFIG, digest: sha(config), size: config.length },
    layers: [{ mediaType: HELM_LAYER, digest: sha(tgz), size: tgz.length }],
  });
  const headers: Record<string, string> = { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json', ...(reg.auth ? { Authorization: reg.auth } : {}) };
  const put = await fetch(`http://${reg.host}/v2/${repository}/manifests/${version.split('+').join('_')}`, { method: 'PUT', headers, body: manifest });
  assert.equal(put.status, 201, `manifest: ${put.status} ${await put.text()}`);
}

let chartServer: Awaited<ReturnType<typeof serveChartRepo>> | undefined;
let chartBase = '';
let anonymous: Registry;
let locked: Registry;
let workspace = '';

function writeWorkspace(): string {
  const root = path.join(tmp, 'repo');
  const write = (rel: string, text: string) => writeAt(root, rel, text);
  write('clusters/dev/flux-system/gotk-sync.yaml', gotkSyncYaml('clusters/dev', 'ssh://git@example.com/org/charts-repo'));
  const release = (name: string, chart: string) => `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
  namespace: apps
spec:
  interval: 10m
${chart}  values:
    replicaCount: 2
`;
  write('clusters/dev/charts.yaml', `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: local
  namespace: flux-system
spec:
  interval: 1h
  url: http://${chartBase}/
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: registry
  namespace: flux-system
spec:
  interval: 1h
  type: oci
  insecure: true
  url: oci://${anonymous.host}/charts
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: private-podinfo
  namespace: flux-system
spec:
  interval: 1h
  insecure: true
  url: oci://${locked.host}/private/podinfo
  ref:
    semver: ">=6.0.0"
  layerSelector:
    mediaType: ${HELM_LAYER}
    operation: copy
${release('podinfo-http', '  chart:\n    spec:\n      chart: podinfo\n      version: "6.x"\n      sourceRef:\n        kind: HelmRepository\n        name: local\n        namespace: flux-system\n')}${release(
    'cert-manager-oci',
    '  chart:\n    spec:\n      chart: cert-manager\n      version: ">=1.0.0"\n      sourceRef:\n        kind: HelmRepository\n        name: registry\n        namespace: flux-system\n',
  )}${release('podinfo-private', '  chartRef:\n    kind: OCIRepository\n    name: private-podinfo\n    namespace: flux-system\n')}`);
  return root;
}

before(async () => {
  registryTool(repoRoot);
  chartServer = await serveChartRepo(sharedCharts);
  chartBase = chartServer.base;
  [anonymous, locked] = await Promise.all([startRegistry('anonymous', false), startRegistry('locked', true)]);
  await pushChart(anonymous, 'charts/cert-manager', 'cert-manager-v1.21.1.tgz', 'v1.21.1');
  await pushChart(locked, 'private/podinfo', 'podinfo-6.14.1.tgz', '6.14.1');
  workspace = writeWorkspace();
});

after(async () => {
  for (const r of [anonymous, locked]) r?.proc.kill('SIGKILL');
  await chartServer?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The CLI as a user runs it: its own process, a PATH without helm (nor anything else), HOME as given. */
function build(name: string, home: string, extra: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const env = { HOME: home, PATH: path.join(tmp, 'empty-path') };
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'build', 'hr', name, '-n', 'apps', ...extra, workspace], { cwd: repoRoot, env, timeout: 240_000, maxBuffer: 64 * 2 ** 20 }, (err, out, errText) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out, err: errText }),
    );
  });
}

function freshHome(dockerAuths?: Record<string, unknown>): string {
  const home = fs.mkdtempSync(path.join(tmp, 'home-'));
  if (dockerAuths) {
    fs.mkdirSync(path.join(home, '.docker'));
    fs.writeFileSync(path.join(home, '.docker', 'config.json'), JSON.stringify({ auths: dockerAuths }));
  }
  return home;
}

test('build hr: a chart from an HTTP chart repository (a version range), no helm on PATH; --offline then answers from the cache', async () => {
  const home = freshHome();
  const r = await build('podinfo-http', home);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kind: Deployment\nmetadata:\n {2}name: podinfo-http\n/);
  assert.match(r.out, /replicas: 2\n/);
  assert.match(r.out, /helm\.sh\/chart: podinfo-6\.14\.1/);
  const charts = fs.readdirSync(path.join(home, '.cache/gitops-preview/charts')).filter((n) => n.startsWith('sha256-'));
  assert.deepEqual(charts, [`sha256-${createHash('sha256').update(fs.readFileSync(path.join(sharedCharts, 'podinfo-6.14.1.tgz'))).digest('hex')}`]);

  const offline = await build('podinfo-http', home, ['--offline']);
  assert.equal(offline.code, 0, offline.err);
  assert.equal(offline.out, r.out);
  const cold = await build('podinfo-http', freshHome(), ['--offline']);
  // The chart is out of reach here, not wrong: exit 2 (README, exit codes).
  assert.equal(cold.code, 2);
  assert.match(cold.err, new RegExp(`chart podinfo@6\\.x from http://${chartBase}/ is not in the chart cache, and charts are not fetched offline: run once without --offline`));
});

test('build hr: a chart from an anonymous OCI registry (HelmRepository type: oci, a range over the tags)', async () => {
  const r = await build('cert-manager-oci', freshHome());
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kind: Deployment\nmetadata:\n {2}name: cert-manager-oci\n/);
  assert.match(r.out, /app\.kubernetes\.io\/version: v1\.21\.1/);
});

test('build hr: an OCIRepository chartRef on a registry that needs credentials: refused without a login, built with the docker config one', async () => {
  const denied = await build('podinfo-private', freshHome());
  assert.equal(denied.code, 2, denied.out);
  assert.match(denied.err, new RegExp(`chart oci://${locked.host}/private/podinfo \\(semver >=6\\.0\\.0\\) cannot be fetched: access refused \\(HTTP 401\\): run \`docker login ${locked.host}\``));
  assert.match(denied.err, /\.docker\/config\.json \(none\)/);

  const home = freshHome({ [locked.host]: { auth: Buffer.from(`docker:${locked.password}`).toString('base64') }, [anonymous.host]: { username: 'someone', password: 'elsewhere' } });
  const r = await build('podinfo-private', home);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kind: Deployment\nmetadata:\n {2}name: podinfo-private\n/);
  assert.ok(!(r.out + r.err).includes(locked.password!), 'the password is never printed');
});
