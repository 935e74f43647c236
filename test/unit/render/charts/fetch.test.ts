/**
 * Chart fetches against small HTTP servers on loopback: an HTTP chart repository serving
 * ../shared/charts, and an OCI registry speaking just enough of the distribution API to exercise
 * the bearer token flow and where credentials go.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fetchChart, type ChartRequest, type FetchOptions } from '../../../../src/render/charts/fetch';
import { findLogin, registryHost } from '../../../../src/render/charts/credentials';
import { HELM_CHART_LAYER, parseOciUrl, validReference } from '../../../../src/render/charts/oci';

const sharedCharts = path.resolve(__dirname, '../../../../../shared/charts/repo');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-fetch-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => fs.mkdtempSync(path.join(tmp, `${dirs++}-`));

interface Seen {
  method: string;
  url: string;
  authorization?: string;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, base: string) => void): Promise<{ base: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    handler(req, res, base);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** ../shared/charts/repo over HTTP, its index pointing at this server (optionally edited). */
function chartRepo(editIndex: (text: string) => string = (t) => t) {
  return serve((req, res, base) => {
    const name = (req.url ?? '/').slice(1);
    if (name === 'index.yaml') {
      res.end(editIndex(fs.readFileSync(path.join(sharedCharts, 'index.yaml'), 'utf8').split('http://charts.invalid/').join(`http://${base}/`)));
      return;
    }
    if (/^[a-z0-9.-]+\.tgz$/.test(name) && fs.existsSync(path.join(sharedCharts, name))) {
      res.end(fs.readFileSync(path.join(sharedCharts, name)));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
}

const options = (extra: Partial<FetchOptions> = {}): FetchOptions => ({
  cacheDir: freshDir(),
  allowNetwork: true,
  noNetworkReason: 'the test forbids it',
  env: { HOME: freshDir() },
  timeoutMs: 20_000,
  ...extra,
});

test('HTTP repository: the newest match of a range, digest checked, unpacked into the cache; then the cache answers alone', async () => {
  const repo = await chartRepo();
  try {
    const opts = options();
    const request: ChartRequest = { kind: 'http', repoUrl: `http://${repo.base}`, chart: 'podinfo', version: '6.x' };
    const r = await fetchChart(request, opts);
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.equal(r.value.version, '6.14.1');
    assert.equal(r.value.digest, createHash('sha256').update(fs.readFileSync(path.join(sharedCharts, 'podinfo-6.14.1.tgz'))).digest('hex'));
    assert.equal(r.value.dir, path.join(opts.cacheDir, `sha256-${r.value.digest}`, 'podinfo'));
    assert.match(fs.readFileSync(path.join(r.value.dir, 'Chart.yaml'), 'utf8'), /version: 6\.14\.1/);
    assert.deepEqual(repo.seen.map((s) => s.url), ['/index.yaml', '/podinfo-6.14.1.tgz']);
    assert.ok(repo.seen.every((s) => s.authorization === undefined), 'no credentials for an HTTP repository');

    const again = await fetchChart(request, { ...opts, allowNetwork: false });
    assert.ok(again.ok && again.value.dir === r.value.dir, JSON.stringify(again));
    const cached = await fetchChart(request, opts);
    assert.ok(cached.ok);
    assert.equal(repo.seen.length, 2, 'a range resolved minutes ago is not resolved again');
  } finally {
    await repo.close();
  }
});

test('HTTP repository: a package whose sha256 differs from the index is refused; a 401 says the secretRef is not read', async () => {
  const podinfoDigest = createHash('sha256').update(fs.readFileSync(path.join(sharedCharts, 'podinfo-6.14.1.tgz'))).digest('hex');
  const repo = await chartRepo((t) => t.replace(`digest: ${podinfoDigest}`, `digest: ${'0'.repeat(64)}`));
  try {
    const r = await fetchChart({ kind: 'http', repoUrl: `http://${repo.base}/`, chart: 'podinfo', version: '6.14.1' }, options());
    assert.ok(!r.ok);
    assert.match(r.error, /^chart podinfo@6\.14\.1 from http:\/\/127\.0\.0\.1:\d+\/ cannot be fetched: the package's sha256 differs from the index \(http:\/\/127\.0\.0\.1:\d+\/podinfo-6\.14\.1\.tgz: [0-9a-f]{64}, index\.yaml: 0{64}\)$/);
  } finally {
    await repo.close();
  }
  const locked = await serve((_req, res) => {
    res.statusCode = 401;
    res.end();
  });
  try {
    const r = await fetchChart({ kind: 'http', repoUrl: `http://${locked.base}`, chart: 'podinfo' }, options());
    assert.ok(!r.ok && r.kind === 'unavailable');
    assert.match(r.error, /cannot be fetched: access refused \(HTTP 401\): the repository needs credentials, and its secretRef names a Secret in the cluster, which is not read\. Tried: GET http:\/\/127\.0\.0\.1:\d+\/index\.yaml without credentials$/);
  } finally {
    await locked.close();
  }
});

test('no network allowed (untrusted, offline) and nothing cached: no request, and the message says which chart and why', async () => {
  const repo = await chartRepo();
  try {
    const opts = options({ allowNetwork: false, noNetworkReason: 'fetching charts is disabled in an untrusted workspace' });
    const r = await fetchChart({ kind: 'http', repoUrl: `http://${repo.base}`, chart: 'podinfo', version: '6.14.1' }, opts);
    assert.ok(!r.ok && r.kind === 'not-allowed');
    assert.equal(r.error, `chart podinfo@6.14.1 from http://${repo.base} is not in the chart cache, and fetching charts is disabled in an untrusted workspace (chart cache: ${opts.cacheDir})`);
    assert.equal(repo.seen.length, 0);
  } finally {
    await repo.close();
  }
});

/** A registry holding one chart, `charts/podinfo:6.14.1`, behind the auth `gate` decides. */
async function registry(gate: (req: http.IncomingMessage, res: http.ServerResponse, base: string) => boolean, blobRedirect?: () => string) {
  const tgz = fs.readFileSync(path.join(sharedCharts, 'podinfo-6.14.1.tgz'));
  const digest = `sha256:${createHash('sha256').update(tgz).digest('hex')}`;
  const config = Buffer.from('{}');
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: `sha256:${createHash('sha256').update(config).digest('hex')}`, size: config.length },
    layers: [{ mediaType: HELM_CHART_LAYER, digest, size: tgz.length }],
  });
  return serve((req, res, base) => {
    if (!gate(req, res, base)) return;
    const url = req.url ?? '';
    if (url.startsWith('/v2/charts/podinfo/tags/list')) return void res.end(JSON.stringify({ name: 'charts/podinfo', tags: ['6.13.0', '6.14.1', '7.0.0-rc.1'] }));
    if (url === '/v2/charts/podinfo/manifests/6.14.1') {
      res.setHeader('Content-Type', 'application/vnd.oci.image.manifest.v1+json');
      return void res.end(manifest);
    }
    if (url === `/v2/charts/podinfo/blobs/${digest}`) {
      if (blobRedirect) {
        res.statusCode = 307;
        res.setHeader('Location', `${blobRedirect()}/podinfo.tgz`);
        return void res.end();
      }
      return void res.end(tgz);
    }
    res.statusCode = 404;
    res.end();
  });
}

function dockerConfig(auths: Record<string, unknown>, extra: Record<string, unknown> = {}): NodeJS.ProcessEnv {
  const home = freshDir();
  fs.mkdirSync(path.join(home, '.docker'));
  fs.writeFileSync(path.join(home, '.docker', 'config.json'), JSON.stringify({ auths, ...extra }));
  return { HOME: home };
}

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

test('OCI: anonymous bearer token flow (realm, service, scope), a semver range over the tags', async () => {
  const tokenRequests: string[] = [];
  const reg = await registry((req, res, base) => {
    if (req.url?.startsWith('/token')) {
      tokenRequests.push(req.url);
      res.end(JSON.stringify({ token: 'anon-token' }));
      return false;
    }
    if (req.headers.authorization !== 'Bearer anon-token') {
      res.statusCode = 401;
      res.setHeader('WWW-Authenticate', `Bearer realm="http://${base}/token",service="test-registry",scope="repository:charts/podinfo:pull"`);
      res.end();
      return false;
    }
    return true;
  });
  try {
    const r = await fetchChart({ kind: 'oci-helm', url: `oci://${reg.base}/charts`, chart: 'podinfo', version: '>=6.0.0', insecure: true }, options());
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.equal(r.value.version, '6.14.1', 'the newest release: the rc is not asked for');
    assert.deepEqual(tokenRequests, ['/token?service=test-registry&scope=repository%3Acharts%2Fpodinfo%3Apull']);
    assert.ok(reg.seen.filter((s) => s.url.startsWith('/token')).every((s) => s.authorization === undefined));
  } finally {
    await reg.close();
  }
});

test('OCI: the docker config login goes to its registry only: to a same-host token realm, never to a realm or a redirect elsewhere', async () => {
  const other = await serve((req, res) => {
    if (req.url?.startsWith('/token')) return void res.end(JSON.stringify({ access_token: 'other-token' }));
    res.end(fs.readFileSync(path.join(sharedCharts, 'podinfo-6.14.1.tgz')));
  });
  let realmHost = '';
  const reg = await registry(
    (req, res, base) => {
      if (req.url?.startsWith('/token')) {
        if (req.headers.authorization !== basic('ci', 's3cret')) {
          res.statusCode = 401;
          return void res.end(), false;
        }
        res.end(JSON.stringify({ token: 'user-token' }));
        return false;
      }
      if (req.headers.authorization !== 'Bearer user-token' && req.headers.authorization !== 'Bearer other-token') {
        res.statusCode = 401;
        res.setHeader('WWW-Authenticate', `Bearer realm="http://${realmHost || base}/token",service="reg"`);
        res.end();
        return false;
      }
      return true;
    },
    () => `http://${other.base}`,
  );
  try {
    const env = dockerConfig({ [`https://${reg.base}/v1/`]: { auth: Buffer.from('ci:s3cret').toString('base64') }, [other.base]: { username: 'x', password: 'for-other' } });
    const request: ChartRequest = { kind: 'oci-helm', url: `oci://${reg.base}/charts`, chart: 'podinfo', version: '6.14.1', insecure: true };
    const r = await fetchChart(request, options({ env }));
    assert.ok(r.ok, r.ok ? '' : r.error);
    assert.ok(reg.seen.some((s) => s.url.startsWith('/token') && s.authorization === basic('ci', 's3cret')), 'the login went to the same-host realm');
    assert.ok(other.seen.length > 0 && other.seen.every((s) => s.authorization === undefined), `the redirected blob request carried ${JSON.stringify(other.seen)}`);
    assert.ok(reg.seen.every((s) => !s.authorization?.includes(Buffer.from('x:for-other').toString('base64'))));

    // A realm on another host gets an anonymous request; its token works here, the login stays home.
    realmHost = other.base;
    other.seen.length = 0;
    const viaOther = await fetchChart({ ...request, version: '6.x' }, options({ env }));
    assert.ok(viaOther.ok, viaOther.ok ? '' : viaOther.error);
    assert.ok(other.seen.some((s) => s.url.startsWith('/token')));
    assert.ok(other.seen.every((s) => s.authorization === undefined), `credentials reached another host: ${JSON.stringify(other.seen)}`);
  } finally {
    await reg.close();
    await other.close();
  }
});

test('OCI: a Basic challenge (htpasswd registry) uses the login; without one the message lists where it looked', async () => {
  const reg = await registry((req, res) => {
    if (req.headers.authorization === basic('docker', 'pw')) return true;
    res.statusCode = 401;
    res.setHeader('WWW-Authenticate', 'Basic realm="Registry Realm"');
    res.end();
    return false;
  });
  try {
    const request: ChartRequest = { kind: 'oci-source', url: `oci://${reg.base}/charts/podinfo`, semver: '~6.13 || ^6.14', insecure: true };
    const withLogin = await fetchChart(request, options({ env: dockerConfig({ [reg.base]: { username: 'docker', password: 'pw' } }) }));
    assert.ok(withLogin.ok, withLogin.ok ? '' : withLogin.error);
    assert.equal(withLogin.value.version, '6.14.1');

    const env = dockerConfig({ 'ghcr.io': { auth: Buffer.from('u:p').toString('base64') } }, { credHelpers: { [reg.base]: 'secretservice' } });
    const without = await fetchChart(request, options({ env }));
    assert.ok(!without.ok && without.kind === 'unavailable');
    const host = reg.base.split('.').join('\\.');
    assert.match(
      without.error,
      new RegExp(`^chart oci://${host}/charts/podinfo \\(semver ~6\\.13 \\|\\| \\^6\\.14\\) cannot be fetched: access refused \\(HTTP 401\\): run \`docker login ${host}\` or \`helm registry login ${host}\`\\. Tried: GET http://${host}/v2/charts/podinfo/tags/list\\?n=1000; credentials looked for in `),
    );
    assert.ok(without.error.split(' or `helm registry login')[0].length < 160, 'what fails and the fix come first');
    assert.match(without.error, /; a secretRef names a Secret in the cluster, which is not read$/);
    assert.ok(without.error.includes(`${env.HOME}/.config/helm/registry/config.json (none)`), without.error);
    assert.ok(without.error.includes(`${env.HOME}/.docker/config.json (no inline auths entry for ${reg.base}; credential helpers are not run)`), without.error);
    assert.ok(!without.error.includes('dTpw') && !without.error.includes('u:p'));
  } finally {
    await reg.close();
  }
});

test('registry hosts: scheme, path and docker hub aliases normalised, the port kept', () => {
  assert.equal(registryHost('https://index.docker.io/v1/'), 'docker.io');
  assert.equal(registryHost('registry-1.docker.io'), 'docker.io');
  assert.equal(registryHost('GHCR.io/org'), 'ghcr.io');
  assert.equal(registryHost('127.0.0.1:5000'), '127.0.0.1:5000');
  assert.notEqual(registryHost('127.0.0.1:5001'), registryHost('127.0.0.1:5000'));
  const env = dockerConfig({ 'https://index.docker.io/v1/': { auth: Buffer.from('hub:pw').toString('base64') }, 'evil.example.com': { username: 'e', password: 'x' } });
  assert.equal(findLogin('registry-1.docker.io', env).login?.username, 'hub');
  assert.equal(findLogin('example.com', env).login, undefined, 'a suffix is another host');
  assert.equal(findLogin('evil.example.com:443', env).login, undefined, 'another port is another registry');
});

test('OCI URLs and references from the repository cannot bend the request path', async () => {
  assert.deepEqual(parseOciUrl('oci://ghcr.io/org/charts/', false), { host: 'ghcr.io', repository: 'org/charts', scheme: 'https' });
  assert.equal(parseOciUrl('oci://127.0.0.1:5000/charts', true)?.scheme, 'http');
  for (const bad of ['oci://ghcr.io/a/../b', 'oci://ghcr.io/a?x=1', 'oci://ghcr.io/a#b', 'oci://ghcr.io/A', 'oci://ghcr.io', 'oci://user@ghcr.io/a', 'https://ghcr.io/a']) {
    assert.equal(parseOciUrl(bad, false), undefined, bad);
  }
  for (const ok of ['6.14.1', 'v1.2.3_build.1', 'latest', `sha256:${'a'.repeat(64)}`]) assert.ok(validReference(ok), ok);
  for (const bad of ['../x', 'a/b', '.hidden', '-x', 'a?b', `sha256:${'a'.repeat(63)}`, 'x'.repeat(129)]) assert.ok(!validReference(bad), bad);
  const reg = await serve((_req, res) => res.end('{}'));
  try {
    const r = await fetchChart({ kind: 'oci-source', url: `oci://${reg.base}/charts/podinfo`, tag: '../../../v2/_catalog', insecure: true }, options());
    assert.ok(!r.ok && /'\.\.\/\.\.\/\.\.\/v2\/_catalog' is not an OCI tag or sha256 digest/.test(r.error), JSON.stringify(r));
    assert.equal(reg.seen.length, 0);
  } finally {
    await reg.close();
  }
});
