/**
 * Our helm rendering equals `helm template` (HELM_BIN, helm v3.22.0) for every real chart of
 * ../shared/charts/repo, each with its default values and with a second, non-trivial value set
 * such as a home-ops repository would write.
 *
 * Ours: the helm WebAssembly module (wasm/cmd/helm) called as renderHelmReleaseImpl calls it
 * (release name, namespace, kubeVersion, includeCRDs and skipTests true), over the chart files the
 * product takes from a fetched package: readTarGz, storeChart into a chart cache, diskDirFiles of
 * the cached folder. Native: `helm template REL CHART.tgz --namespace NS --values values.json
 * --kube-version 1.33.0 --include-crds --skip-tests`. Outputs are compared byte for byte; the only
 * exception is material a chart generates at random on every render (grafana's admin password,
 * victoria-metrics-operator's webhook certificates), which is replaced on both sides by a
 * description of what it is (certificate subject, issuer, SANs, key size) and then compared too.
 *
 * Then one HelmRelease goes through the product's whole path (renderHelmReleaseImpl, the chart
 * fetched from a local HTTP chart repository), and its objects are checked against `helm
 * template`'s objects with helm-controller's differences applied explicitly.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { Repo } from '../../src/core/repo';
import { Workspace } from '../../src/core/workspace/workspace';
import { diskHost } from '../../src/node/fsHost';
import { wasmModule } from '../../src/engine/wasm/pool';
import type { MemFile } from '../../src/engine/wasm/protocol';
import { readTarGz } from '../../src/render/charts/tar';
import { storeChart } from '../../src/render/charts/cache';
import { diskDirFiles } from '../../src/render/files';
import { HELM_NAME_LABEL, HELM_NAMESPACE_LABEL, renderHelmReleaseImpl } from '../../src/render/helm';
import { gotkSyncYaml, serveChartRepo, writeAt } from './chartRepo';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '../..');
const chartRepo = path.join(repoRoot, '..', 'shared', 'charts', 'repo');
const KUBE_VERSION = '1.33.0';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-helm-parity-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function helmBin(): string {
  const out = execFileSync('bash', [path.join(repoRoot, 'test/cluster/tools-env.sh'), '--print'], { encoding: 'utf8', timeout: 10_000 });
  const env = Object.fromEntries(out.trim().split('\n').map((l) => l.split('=') as [string, string]));
  const h = process.env.HELM_BIN || env.HELM_BIN;
  assert.ok(h && fs.existsSync(h), `helm binary missing (${h}); run bash test/cluster/build.sh`);
  return h;
}

// Missing charts or a missing helm fail the file here, before any test runs.
assert.ok(fs.existsSync(path.join(chartRepo, 'index.yaml')), `${chartRepo} is missing (see ../shared/charts/README.md)`);
const helm = helmBin();
const helmVersion = execFileSync(helm, ['version', '--short'], { encoding: 'utf8' }).trim();
assert.match(helmVersion, /^v3\.22\./, `HELM_BIN is ${helmVersion}, not helm v3.22`);

/** Random material a chart generates on every render, described instead of compared literally. */
type Volatile = 'pem' | 'grafana-admin-password';

interface Case {
  chart: string;
  label: string;
  namespace: string;
  release: string;
  values: Record<string, unknown>;
  /** What this render is known to generate at random (every other render must have none). */
  volatile?: Volatile[];
  /** The same render as this earlier case (its native output is that one's). */
  again?: Case;
}

/** The second value set of each chart (the first is the chart's defaults). */
const VALUES: Record<string, { namespace: string; release: string; values: Record<string, unknown>; volatileDefaults?: Volatile[] }> = {
  'app-template': {
    namespace: 'media',
    release: 'radarr',
    values: {
      controllers: {
        radarr: {
          annotations: { 'reloader.stakater.com/auto': 'true' },
          containers: {
            app: {
              image: { repository: 'ghcr.io/home-operations/radarr', tag: '5.26.2.10099' },
              env: { TZ: 'Europe/Paris', RADARR__SERVER__PORT: '7878', RADARR__AUTH__METHOD: 'External' },
              envFrom: [{ secretRef: { name: 'radarr-secret' } }],
              probes: {
                liveness: { enabled: true, custom: true, spec: { httpGet: { path: '/ping', port: 7878 }, initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3 } },
                readiness: { enabled: true, custom: true, spec: { httpGet: { path: '/ping', port: 7878 }, initialDelaySeconds: 0, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3 } },
              },
              securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
              resources: { requests: { cpu: '10m' }, limits: { memory: '1Gi' } },
            },
          },
        },
      },
      defaultPodOptions: { securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, fsGroupChangePolicy: 'OnRootMismatch' } },
      service: { app: { controller: 'radarr', ports: { http: { port: 7878 } } } },
      route: {
        app: {
          hostnames: ['radarr.example.com'],
          parentRefs: [{ name: 'internal', namespace: 'kube-system', sectionName: 'https' }],
          rules: [{ backendRefs: [{ identifier: 'app', port: 7878 }] }],
        },
      },
      persistence: {
        config: { existingClaim: 'radarr' },
        tmp: { type: 'emptyDir' },
        media: { type: 'nfs', server: 'nas.internal', path: '/volume1/media', globalMounts: [{ path: '/media' }] },
      },
    },
  },
  podinfo: {
    namespace: 'default',
    release: 'podinfo',
    values: {
      replicaCount: 3,
      ui: { color: '#34577c', message: 'hello from the parity test' },
      ingress: {
        enabled: true,
        className: 'nginx',
        annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt' },
        hosts: [{ host: 'podinfo.example.com', paths: [{ path: '/', pathType: 'ImplementationSpecific' }] }],
        tls: [{ secretName: 'podinfo-tls', hosts: ['podinfo.example.com'] }],
      },
      redis: { enabled: true },
      serviceMonitor: { enabled: true, interval: '30s' },
      hpa: { enabled: true, maxReplicas: 6, cpu: 80 },
      podDisruptionBudget: { maxUnavailable: 1 },
      certificate: { create: true, dnsNames: ['podinfo.example.com'] },
      // Hooks are kept by --skip-tests (only test hooks go): printed after the manifests.
      hooks: { preInstall: { job: { enabled: true, sleepSeconds: 5 } }, postUpgrade: { job: { enabled: true, ttlSecondsAfterFinished: 60 } } },
      resources: { limits: { memory: '256Mi' }, requests: { cpu: '10m', memory: '64Mi' } },
    },
  },
  'cert-manager': {
    namespace: 'cert-manager',
    release: 'cert-manager',
    values: {
      crds: { enabled: true, keep: true },
      replicaCount: 2,
      podDisruptionBudget: { enabled: true },
      dns01RecursiveNameservers: 'https://1.1.1.1:443/dns-query,https://1.0.0.1:443/dns-query',
      dns01RecursiveNameserversOnly: true,
      prometheus: { enabled: true, servicemonitor: { enabled: true } },
      webhook: { replicaCount: 2 },
      cainjector: { replicaCount: 2 },
    },
  },
  'external-secrets': {
    namespace: 'external-secrets',
    release: 'external-secrets',
    values: {
      installCRDs: false,
      serviceMonitor: { enabled: true },
      grafanaDashboard: { enabled: true },
      webhook: { serviceMonitor: { enabled: true } },
      certController: { serviceMonitor: { enabled: true } },
      'bitwarden-sdk-server': { enabled: true },
    },
  },
  'cloudnative-pg': {
    namespace: 'database',
    release: 'cloudnative-pg',
    values: {
      crds: { create: false },
      replicaCount: 2,
      config: { clusterWide: true, data: { INHERITED_LABELS: 'app, environment' } },
      // Turns on the `monitoring` subchart (alias of `cluster`, a dependency condition).
      monitoring: { podMonitorEnabled: true, grafanaDashboard: { create: true, labels: { grafana_dashboard: '1' } } },
    },
  },
  'prometheus-operator-crds': {
    namespace: 'observability',
    release: 'prometheus-operator-crds',
    values: { crds: { annotations: { 'helm.sh/resource-policy': 'keep' }, alertmanagerconfigs: { enabled: false }, prometheusagents: { enabled: false }, thanosrulers: { enabled: false } } },
  },
  'victoria-metrics-operator': {
    namespace: 'observability',
    release: 'victoria-metrics-operator',
    // The webhook's CA and certificate come from genCA/genSignedCert on every render.
    volatileDefaults: ['pem'],
    values: {
      // The CRDs from the subchart's crds/ folder (--include-crds) instead of templates.
      crds: { plain: true },
      admissionWebhooks: { certManager: { enabled: true } },
      serviceMonitor: { enabled: true },
      operator: { disable_prometheus_converter: false },
      env: [{ name: 'VM_VMALERTDEFAULT_CONFIGRELOADERCPU', value: '10m' }],
    },
  },
  'victoria-metrics-operator-crds': {
    namespace: 'observability',
    release: 'victoria-metrics-operator-crds',
    values: { crds: { annotations: { 'helm.sh/resource-policy': 'keep', 'example.com/owner': 'platform' } } },
  },
  'flux-operator': {
    namespace: 'flux-system',
    release: 'flux-operator',
    values: {
      installCRDs: true,
      web: { ingress: { enabled: true, className: 'internal', hosts: [{ host: 'flux.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }] } },
      serviceMonitor: { create: true },
      multitenancy: { enabled: true },
      commonLabels: { team: 'platform' },
    },
  },
  'flux-instance': {
    namespace: 'flux-system',
    release: 'flux-instance',
    values: {
      instance: {
        distribution: { version: '2.7.x' },
        components: ['source-controller', 'kustomize-controller', 'helm-controller', 'notification-controller', 'image-reflector-controller', 'image-automation-controller'],
        cluster: { networkPolicy: false },
        sync: { kind: 'GitRepository', url: 'https://github.com/example/home-ops', ref: 'refs/heads/main', path: 'kubernetes/flux/cluster', interval: '30m' },
        kustomize: {
          patches: [{ patch: '- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --concurrent=10\n', target: { kind: 'Deployment' } }],
        },
      },
    },
  },
  traefik: {
    namespace: 'network',
    release: 'traefik',
    values: {
      deployment: { replicas: 2 },
      ingressRoute: { dashboard: { enabled: true, matchRule: 'Host(`traefik.example.com`)', entryPoints: ['websecure'] } },
      providers: { kubernetesGateway: { enabled: true } },
      accessLog: { enabled: true, format: 'json' },
      service: { spec: { type: 'LoadBalancer', loadBalancerClass: 'io.cilium/l2-announcer' } },
      ports: { web: { http: { redirections: { entryPoint: { to: 'websecure', scheme: 'https', permanent: true } } }, forwardedHeaders: { trustedIPs: ['10.0.0.0/8'] } } },
      gateway: { listeners: { websecure: { port: 8443, protocol: 'HTTPS', hostname: '*.example.com', certificateRefs: [{ name: 'wildcard-tls' }], namespacePolicy: { from: 'All' } } } },
    },
  },
  'gateway-helm': {
    namespace: 'envoy-gateway-system',
    release: 'envoy-gateway',
    values: {
      crds: { enabled: false },
      deployment: { replicas: 2 },
      podDisruptionBudget: { minAvailable: 1 },
      config: { envoyGateway: { logging: { level: { default: 'debug' } }, extensionApis: { enableBackend: true } } },
    },
  },
  'external-dns': {
    namespace: 'network',
    release: 'external-dns',
    values: {
      provider: { name: 'cloudflare' },
      env: [{ name: 'CF_API_TOKEN', valueFrom: { secretKeyRef: { name: 'cloudflare-secret', key: 'api-token' } } }],
      extraArgs: ['--cloudflare-proxied', '--crd-source-apiversion=externaldns.k8s.io/v1alpha1', '--crd-source-kind=DNSEndpoint'],
      sources: ['crd', 'gateway-httproute', 'service'],
      policy: 'sync',
      txtOwnerId: 'home',
      txtPrefix: 'k8s.',
      domainFilters: ['example.com'],
      serviceMonitor: { enabled: true },
    },
  },
  grafana: {
    namespace: 'observability',
    release: 'grafana',
    // The admin password is randAlphaNum on every render (no cluster to look the Secret up in).
    volatileDefaults: ['grafana-admin-password'],
    values: {
      adminPassword: 'not-a-secret',
      replicas: 2,
      persistence: { enabled: true, size: '5Gi' },
      ingress: { enabled: true, ingressClassName: 'internal', hosts: ['grafana.example.com'] },
      datasources: { 'datasources.yaml': { apiVersion: 1, datasources: [{ name: 'Prometheus', type: 'prometheus', url: 'http://prometheus:9090', isDefault: true }] } },
      sidecar: { dashboards: { enabled: true, searchNamespace: 'ALL' }, datasources: { enabled: true } },
      'grafana.ini': { analytics: { check_for_updates: false }, server: { root_url: 'https://grafana.example.com' } },
      serviceMonitor: { enabled: true },
    },
  },
};

const LIBRARY = 'common';

function packages(): { chart: string; file: string }[] {
  return fs
    .readdirSync(chartRepo)
    .filter((f) => f.endsWith('.tgz'))
    .sort()
    .map((file) => ({ file, chart: file.replace(/-v?\d+\.\d+\.\d+\.tgz$/, '') }));
}

/** The chart's files as the product hands them to the module: unpacked, stored in the chart cache, read back. */
const cacheDir = path.join(tmp, 'chart-cache');
const emptyWorkspace = new Workspace(fs.mkdtempSync(path.join(tmp, 'ws-')), diskHost);
function productChartFiles(file: string): MemFile[] {
  const tgz = fs.readFileSync(path.join(chartRepo, file));
  const unpacked = readTarGz(tgz);
  assert.ok(unpacked.ok, `${file}: ${unpacked.ok ? '' : unpacked.error}`);
  const dir = storeChart(cacheDir, createHash('sha256').update(tgz).digest('hex'), unpacked.files);
  assert.ok(dir, `${file}: not stored in the chart cache`);
  return diskDirFiles(emptyWorkspace, dir);
}

async function nativeTemplate(c: Case, file: string, includeCRDs = true): Promise<{ ok: boolean; out: string }> {
  const valuesFile = path.join(tmp, `values-${c.chart}-${c.label}.json`);
  await fs.promises.writeFile(valuesFile, JSON.stringify(c.values));
  const args = ['template', c.release, path.join(chartRepo, file), '--namespace', c.namespace, '--values', valuesFile, '--kube-version', KUBE_VERSION, '--skip-tests'];
  if (includeCRDs) args.push('--include-crds');
  try {
    const r = await run(helm, args, { maxBuffer: 256 * 2 ** 20, timeout: 120_000, env: { HOME: tmp, PATH: '', HELM_CACHE_HOME: path.join(tmp, 'helm-cache'), HELM_CONFIG_HOME: path.join(tmp, 'helm-config'), HELM_DATA_HOME: path.join(tmp, 'helm-data') } });
    return { ok: true, out: r.stdout };
  } catch (err) {
    return { ok: false, out: String((err as { stderr?: string }).stderr ?? err) };
  }
}

/** Each base64 scalar that decodes to PEM, replaced by what the PEM is (not its random bytes). */
function describePem(b64: string): string | undefined {
  const text = Buffer.from(b64, 'base64').toString('utf8');
  if (!text.startsWith('-----BEGIN ')) return undefined;
  const blocks = text.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  const parts = blocks.map((pem) => {
    const type = /-----BEGIN ([A-Z ]+)-----/.exec(pem)![1];
    if (type === 'CERTIFICATE') {
      const cert = new X509Certificate(pem);
      const days = Math.round((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / 86_400_000);
      return `certificate subject=${cert.subject.replace(/\n/g, ',')} issuer=${cert.issuer.replace(/\n/g, ',')} san=${cert.subjectAltName ?? ''} ca=${cert.ca} days=${days}`;
    }
    if (type.endsWith('PRIVATE KEY')) {
      const key = createPrivateKey(pem);
      return `${type.toLowerCase()} ${key.asymmetricKeyType} ${key.asymmetricKeyDetails?.modulusLength ?? ''}`;
    }
    return type.toLowerCase();
  });
  return `<generated: ${parts.join(' + ')}>`;
}

/** The output with its random material described; how many values were replaced. */
function normalize(out: string, volatile: readonly Volatile[]): { text: string; replaced: number } {
  let replaced = 0;
  let text = out;
  if (volatile.includes('pem')) {
    text = text.replace(/^(\s*[\w.-]+: )"?([A-Za-z0-9+/]{64,}={0,2})"?$/gm, (line, key: string, b64: string) => {
      const d = describePem(b64);
      if (!d) return line;
      replaced++;
      return `${key}${d}`;
    });
  }
  if (volatile.includes('grafana-admin-password')) {
    let password = '';
    text = text.replace(/^( {2}admin-password: )"([A-Za-z0-9+/=]+)"$/m, (line, key: string, b64: string) => {
      const decoded = Buffer.from(b64, 'base64').toString('utf8');
      if (!/^[A-Za-z0-9]{40}$/.test(decoded)) return line;
      password = decoded;
      replaced++;
      return `${key}<generated: randAlphaNum 40>`;
    });
    // The Deployment's checksum of secret.yaml, which holds that password.
    if (password) text = text.replace(/^( {8}checksum\/secret: )[0-9a-f]{64}$/m, (_l, key: string) => (replaced++, `${key}<sha256 of secret.yaml>`));
  }
  return { text, replaced };
}

/** The first differing lines, with a little context, as a unified-style hunk. */
function firstDifference(want: string, got: string, context = 3, shown = 12): string {
  const a = want.split('\n');
  const b = got.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let source = '';
  for (let k = i; k >= 0; k--) {
    const m = /^# Source: (.+)$/.exec(a[k] ?? '');
    if (m) {
      source = m[1];
      break;
    }
  }
  const out = [`first difference at line ${i + 1} (native ${a.length} lines, wasm ${b.length})${source ? `, in ${source}` : ''}:`, `@@ -${i + 1} +${i + 1} @@`];
  for (let k = Math.max(0, i - context); k < i; k++) out.push(`  ${a[k]}`);
  for (let k = i; k < Math.min(a.length, i + shown); k++) out.push(`- ${a[k]}`);
  for (let k = i; k < Math.min(b.length, i + shown); k++) out.push(`+ ${b[k]}`);
  return out.join('\n');
}

async function pool<T>(items: readonly T[], n: number, f: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await f(items[next++]);
    }),
  );
}

const docCount = (s: string) => (s.match(/^---$/gm) ?? []).length;

test('helm template: the WebAssembly module renders every shared chart as helm v3.22 does, with the default values and a second value set', async (t) => {
  const pkgs = packages();
  const names = pkgs.map((p) => p.chart);
  // Every package is covered: a chart added to the folder without a value set fails here.
  assert.deepEqual(names.filter((n) => n !== LIBRARY && !VALUES[n]), [], 'charts without a second value set');
  assert.deepEqual(Object.keys(VALUES).filter((n) => !names.includes(n)), [], 'value sets for charts that are not in the repository');
  assert.ok(names.includes(LIBRARY), 'the library chart common is in the repository');
  assert.equal(names.length, 15);

  const jobs: { c: Case; file: string; files: MemFile[] }[] = [];
  for (const p of pkgs) {
    const files = productChartFiles(p.file);
    assert.ok(files.some((f) => f.path === 'Chart.yaml') && files.some((f) => f.path === 'values.yaml'), `${p.file}: chart files at the set's root`);
    if (p.chart === LIBRARY) {
      jobs.push({ c: { chart: p.chart, label: 'defaults', namespace: 'default', release: 'common', values: {} }, file: p.file, files });
      continue;
    }
    const v = VALUES[p.chart];
    const defaults: Case = { chart: p.chart, label: 'defaults', namespace: v.namespace, release: v.release, values: {}, volatile: v.volatileDefaults };
    jobs.push({ c: defaults, file: p.file, files });
    jobs.push({ c: { chart: p.chart, label: 'values', namespace: v.namespace, release: v.release, values: v.values }, file: p.file, files });
    // The defaults again, from the chart the instance kept loaded after the second set's render
    // (which enables subcharts, imports values): a render must not change the chart it starts from.
    jobs.push({ c: { ...defaults, label: 'defaults again', again: defaults }, file: p.file, files });
  }

  const native = new Map<Case, { ok: boolean; out: string }>();
  const wasm = new Map<Case, { ok: boolean; out: string }>();
  const asData = new Map<Case, { json?: unknown; error?: string }[]>();
  let nativeMs = 0;
  let wasmMs = 0;
  const t0 = performance.now();
  await Promise.all([
    // Native helm two at a time, beside the module (one render at a time).
    pool(jobs.filter((j) => !j.c.again), 2, async ({ c, file }) => {
      const s = performance.now();
      native.set(c, await nativeTemplate(c, file));
      nativeMs += performance.now() - s;
    }),
    (async () => {
      const loaded = new Set<string>();
      for (const { c, file, files } of jobs) {
        const s = performance.now();
        // As the product calls it: the chart's files once, under a key; later renders of it send
        // none (wasm/cmd/helm/loaded.go), and the module answers from the chart it kept.
        const first = !loaded.has(file);
        loaded.add(file);
        const r = await wasmModule('helm').call(
          'helm',
          { chartKey: `parity:${file}`, releaseName: c.release, namespace: c.namespace, kubeVersion: KUBE_VERSION, includeCRDs: true, skipTests: true, values: c.values },
          first ? files : [],
          { timeoutMs: 120_000 },
        );
        wasmMs += performance.now() - s;
        wasm.set(c, r.ok ? { ok: true, out: r.output } : { ok: false, out: r.message });
        if (r.ok && !c.volatile?.length) {
          // The same render answered as data (what the product asks for): its documents' JSON.
          const data = await wasmModule('helm').call(
            'helm',
            { chartKey: `parity:${file}`, releaseName: c.release, namespace: c.namespace, kubeVersion: KUBE_VERSION, includeCRDs: true, skipTests: true, values: c.values, objects: true },
            [],
            { timeoutMs: 120_000 },
          );
          assert.ok(data.ok, data.ok ? '' : data.message);
          asData.set(c, (JSON.parse(data.output) as { docs: { json?: unknown; error?: string }[] }).docs);
        }
      }
    })(),
  ]);

  const problems: string[] = [];
  const summary: string[] = [];
  let identical = 0;
  let documents = 0;
  let objectsCompared = 0;
  for (const { c } of jobs) {
    const want = native.get(c.again ?? c)!;
    const got = wasm.get(c)!;
    const name = `${c.chart} (${c.label})`;
    if (c.chart === LIBRARY) {
      // Library charts are not installable: both refuse, with helm's message.
      assert.ok(!want.ok && /library charts are not installable/.test(want.out), `native helm rendered the library chart: ${want.out.slice(0, 300)}`);
      assert.ok(!got.ok && /library charts are not installable/.test(got.out), `the module rendered the library chart: ${got.out.slice(0, 300)}`);
      summary.push(`${name}: refused by both`);
      continue;
    }
    if (!want.ok) {
      problems.push(`${name}: native helm failed: ${want.out.trim().split('\n')[0]}`);
      continue;
    }
    if (!got.ok) {
      problems.push(`${name}: the module failed: ${got.out.trim().split('\n')[0]}`);
      continue;
    }
    const volatile = c.volatile ?? [];
    const a = normalize(want.out, volatile);
    const b = normalize(got.out, volatile);
    if (volatile.length) {
      // Declared random material is really there, as much on both sides; nowhere else is any replaced.
      if (a.replaced === 0 || a.replaced !== b.replaced) problems.push(`${name}: ${a.replaced} generated value(s) in native output, ${b.replaced} in the module's`);
    }
    if (a.text !== b.text) {
      problems.push(`${name}: outputs differ\n${firstDifference(a.text, b.text)}`);
      continue;
    }
    const data = asData.get(c);
    if (data) {
      // As data, the documents are those of the text: parsed here, they give the same objects, keys in the same order.
      const parsed = parseAllDocuments(want.out).map((d) => d.toJS()).filter((o) => o !== null && o !== undefined);
      const objects = data.filter((d) => d.error === undefined && d.json !== null).map((d) => d.json);
      const failed = data.filter((d) => d.error !== undefined);
      if (failed.length) problems.push(`${name}: ${failed.length} document(s) not converted: ${failed[0].error}`);
      else {
        try {
          assert.deepStrictEqual(objects, parsed);
          // Keys too in the document's order, as the templates write them.
          assert.equal(JSON.stringify(objects), JSON.stringify(parsed), 'the same objects, but their keys in another order');
          objectsCompared += objects.length;
        } catch (err) {
          problems.push(`${name}: the documents as data differ from helm template's\n${(err as Error).message.slice(0, 2000)}`);
          continue;
        }
      }
    }
    identical++;
    documents += docCount(want.out);
    summary.push(`${name}: ${docCount(want.out)} documents, ${want.out.length} bytes${a.replaced ? `, ${a.replaced} generated values described` : ''}`);
  }
  for (const line of summary) t.diagnostic(line);
  t.diagnostic(`${jobs.length} renders, ${identical} identical (${documents} documents); native ${(nativeMs / 1000).toFixed(1)} s, wasm ${(wasmMs / 1000).toFixed(1)} s (summed), wall ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t.diagnostic(`${objectsCompared} documents answered as data, each equal to helm template's parsed`);
  assert.equal(problems.length, 0, problems.join('\n\n'));
  assert.equal(identical, 3 * (names.length - 1));
  assert.ok(objectsCompared > 500, `only ${objectsCompared} documents compared as data`);
  // Not trivially equal: the non-default values change what every chart renders.
  for (const n of names.filter((x) => x !== LIBRARY)) {
    const [d, v] = jobs.filter((j) => j.c.chart === n && !j.c.again).map((j) => native.get(j.c)!.out);
    assert.notEqual(d, v, `${n}: the second value set renders the same as the defaults`);
  }
});

// ---------------------------------------------------------------------------------------------
// One HelmRelease through the product: chart from an HTTP chart repository, values, release name
// from targetNamespace, then helm-controller's post-rendering.

const CLUSTER_SCOPED = new Set(['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding', 'MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'Namespace', 'PriorityClass', 'StorageClass', 'IngressClass', 'GatewayClass']);

test('renderHelmReleaseImpl: a HelmRelease of gateway-helm from an HTTP chart repository gives helm template\'s objects plus helm-controller\'s post-rendering', async (t) => {
  const server = await serveChartRepo(chartRepo);
  const base = server.base;
  t.after(() => server.close());

  const values = { deployment: { replicas: 2 }, config: { envoyGateway: { logging: { level: { default: 'debug' } } } } };
  const root = path.join(tmp, 'hr-repo');
  const write = (rel: string, text: string) => writeAt(root, rel, text);
  write('clusters/home/flux-system/gotk-sync.yaml', gotkSyncYaml('clusters/home', 'ssh://git@example.com/org/home-ops'));
  write(
    'clusters/home/envoy-gateway.yaml',
    `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: local
  namespace: flux-system
spec:
  interval: 1h
  url: http://${base}/
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: envoy-gateway
  namespace: flux-system
spec:
  interval: 1h
  targetNamespace: network
  chart:
    spec:
      chart: gateway-helm
      version: v1.9.0
      sourceRef:
        kind: HelmRepository
        name: local
  commonMetadata:
    labels:
      app.kubernetes.io/part-of: home-ops
    annotations:
      example.com/owner: platform
  values: ${JSON.stringify(values)}
`,
  );
  const model = new Repo(root, diskHost, { sha256: (s: string) => createHash('sha256').update(s).digest('hex') }).model();
  const hr = model.clusters.flatMap((c) => c.helmReleases).find((h) => h.applied.name === 'envoy-gateway');
  assert.ok(hr, 'the HelmRelease is in the model');
  // helm-controller's release name with a targetNamespace: `<targetNamespace>-<name>`.
  assert.equal(hr.releaseName, 'network-envoy-gateway');

  const rendered = await renderHelmReleaseImpl(model, hr, { allowNetwork: true, cacheDir: path.join(tmp, 'hr-cache'), env: { HOME: tmp }, timeoutMs: 120_000 });
  assert.ok(rendered.ok, rendered.ok ? '' : rendered.error.message);
  const r = rendered.value;
  assert.equal(r.releaseName, 'network-envoy-gateway');
  assert.equal(r.namespace, 'network');
  assert.deepEqual(r.values, values);
  // The package the product fetched is the repository's, byte for byte.
  const tgzFile = 'gateway-helm-v1.9.0.tgz';
  assert.deepEqual(r.chartInfo, { name: 'gateway-helm', version: 'v1.9.0', digest: createHash('sha256').update(fs.readFileSync(path.join(chartRepo, tgzFile))).digest('hex'), from: 'chart cache' });

  const nativeCase: Case = { chart: 'gateway-helm', label: 'helmrelease', namespace: 'network', release: 'network-envoy-gateway', values };
  const nat = await nativeTemplate(nativeCase, tgzFile);
  assert.ok(nat.ok, nat.out);
  const objectsOf = (out: string) =>
    parseAllDocuments(out)
      .map((d) => {
        assert.deepEqual(d.errors, []);
        return d.toJS() as Record<string, any> | null;
      })
      .filter((o): o is Record<string, any> => !!o);
  const docs = objectsOf(nat.out);
  // The crds/ folder's objects, as helm itself tells them apart: what --include-crds adds.
  const withoutCrds = await nativeTemplate(nativeCase, tgzFile, false);
  assert.ok(withoutCrds.ok, withoutCrds.out);
  const templated = new Set(objectsOf(withoutCrds.out).map((o) => JSON.stringify(o)));
  const crdFolder = new Set(docs.filter((o) => !templated.has(JSON.stringify(o))));

  // What helm-controller changes between `helm template` and what it applies, stated one by one:
  //  1. hooks (helm.sh/hook) are not part of the release manifest: left out;
  //  2. a namespaced object without a namespace gets the release namespace;
  //  3. spec.commonMetadata labels and annotations are added to every object of the release
  //     manifest (a post-renderer: metadata only), but not to the crds/ folder's CRDs, which
  //     helm-controller applies itself before the install (internal/action/crds.go);
  //  4. the origin labels helm.toolkit.fluxcd.io/name and /namespace (the HelmRelease's) are added
  //     to all, crds/ folder included (its setOriginVisitor), over commonMetadata's.
  // The crds/ folder (here gateway-helm's crds subchart) is installed too (install.crds Create).
  let hooks = 0;
  let defaulted = 0;
  const expected: Record<string, any>[] = [];
  const expectedCrds: Record<string, any>[] = [];
  for (const obj of docs) {
    if (obj.metadata?.annotations?.['helm.sh/hook'] !== undefined) {
      hooks++;
      continue;
    }
    const o = structuredClone(obj);
    if (!CLUSTER_SCOPED.has(o.kind) && !o.metadata.namespace) {
      o.metadata.namespace = 'network';
      defaulted++;
    }
    const fromCrdsFolder = crdFolder.has(obj);
    const common = fromCrdsFolder ? {} : { 'app.kubernetes.io/part-of': 'home-ops' };
    o.metadata.labels = { ...(o.metadata.labels ?? {}), ...common, [HELM_NAME_LABEL]: 'envoy-gateway', [HELM_NAMESPACE_LABEL]: 'flux-system' };
    if (!fromCrdsFolder) o.metadata.annotations = { ...(o.metadata.annotations ?? {}), 'example.com/owner': 'platform' };
    expected.push(o);
    if (fromCrdsFolder) expectedCrds.push(o);
  }
  const strip = (objs: readonly Record<string, any>[]) => objs.map(({ origin: _origin, ...o }) => o);
  assert.deepEqual(strip(r.objects), expected);
  assert.deepEqual(strip(r.chartCrds), expectedCrds);
  // The chart exercises each difference that applies to it.
  assert.equal(expectedCrds.length, 21, 'gateway-helm ships 21 CRDs in the crds/ folder of its crds subchart');
  assert.ok(expectedCrds.every((o) => o.kind === 'CustomResourceDefinition'));
  assert.equal(hooks, 7, 'the certgen Job and its RBAC are pre-install hooks');
  assert.ok(r.warnings.some((w) => w.startsWith(`${hooks} Helm hook object(s) left out`)), r.warnings.join('\n'));
  assert.ok(r.objects.some((o) => o.kind === 'Deployment' && (o as any).spec.replicas === 2));
  t.diagnostic(`${docs.length} objects from helm template: ${hooks} hooks left out, ${expectedCrds.length} CRDs from crds/, ${defaulted} namespaces defaulted, ${expected.length} objects compared`);
});
