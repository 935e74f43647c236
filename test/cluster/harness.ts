/**
 * Test helper for node:test integration tests that need a real kube-apiserver.
 * Node builtins only; run with `node --import tsx --test`.
 *
 *   import { getTestCluster, kubeRequest, readAuditLog } from '../cluster/harness';
 *   const cluster = await getTestCluster();   // GITOPS_TEST_* env (test/integration/run.sh) or a fresh one
 *   const res = await kubeRequest(cluster.kubeconfig, { path: '/version' });
 *
 * The cluster is etcd + kube-apiserver only (no controllers, no scheduler, no nodes), with the
 * Flux CRDs installed, RBAC on, an admin kubeconfig and a read-only kubeconfig, and an audit
 * log (JSON lines; writes at level Request) — see test/cluster/README.md.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TestCluster {
  /** Admin kubeconfig (group system:masters). */
  kubeconfig: string;
  /** Kubeconfig of user gitops-preview-readonly: get/list/watch on everything, nothing else. */
  readonlyKubeconfig: string;
  /** https://127.0.0.1:<port> */
  server: string;
  /** JSON lines audit log of the API server. */
  auditLog: string;
  stateDir: string;
  /** Stops the cluster if this process started it; a no-op for a cluster from the environment. */
  stop(): Promise<void>;
}

/** The parts of an audit.k8s.io/v1 Event that tests usually look at. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: 'Metadata' | 'Request' | 'RequestResponse';
  auditID: string;
  stage: 'ResponseStarted' | 'ResponseComplete' | 'Panic' | 'RequestReceived';
  requestURI: string;
  verb: string;
  user: { username: string; groups?: string[]; extra?: Record<string, string[]> };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: {
    resource?: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion?: string;
    subresource?: string;
  };
  responseStatus?: { code?: number; status?: string; reason?: string; message?: string };
  /** Present for writes (level Request): the body the client sent. */
  requestObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

const UP_TIMEOUT_MS = 240_000;
const DOWN_TIMEOUT_MS = 60_000;

function harnessDir(): string {
  // The project is CommonJS (tsx gives __dirname). Under ESM, fall back to looking for
  // test/cluster/up.sh from the working directory upwards.
  if (typeof __dirname !== 'undefined') return __dirname;
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'test', 'cluster');
    if (fs.existsSync(path.join(candidate, 'up.sh'))) return candidate;
    if (path.dirname(dir) === dir) throw new Error('cannot find test/cluster/up.sh from the working directory');
  }
}

/** test/cluster in the repository (where up.sh and down.sh live). */
export const clusterScriptsDir: string = harnessDir();
/** Repository root. */
export const repoRoot: string = path.resolve(clusterScriptsDir, '..', '..');

function run(file: string, args: string[], timeoutMs: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: repoRoot, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGTERM' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${path.basename(args[0] ?? file)} failed: ${error.message}\n${stderr}`));
        } else {
          resolve({ stdout, stderr });
        }
      },
    );
  });
}

function serverFromKubeconfig(kubeconfig: string): string {
  const m = /^\s*server:\s*(\S+)\s*$/m.exec(fs.readFileSync(kubeconfig, 'utf8'));
  if (!m) throw new Error(`no server in ${kubeconfig}`);
  return m[1];
}

function clusterIn(stateDir: string, stop: () => Promise<void>): TestCluster {
  const kubeconfig = path.join(stateDir, 'kubeconfig');
  return {
    kubeconfig,
    readonlyKubeconfig: path.join(stateDir, 'kubeconfig-readonly'),
    server: serverFromKubeconfig(kubeconfig),
    auditLog: path.join(stateDir, 'audit.log'),
    stateDir,
    stop,
  };
}

/** Runs test/cluster/down.sh synchronously (for process 'exit' and signal handlers). */
function stopSync(stateDir: string): void {
  spawnSync('bash', [path.join(clusterScriptsDir, 'down.sh'), stateDir], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: DOWN_TIMEOUT_MS,
  });
}

/**
 * Starts etcd + kube-apiserver with test/cluster/up.sh (binaries from test/cluster/build.sh).
 * Without opts.stateDir, a fresh temporary state dir is used and removed again by stop()
 * (kept when GITOPS_TEST_KEEP_STATE=1).
 */
export async function startCluster(opts: { stateDir?: string; timeoutMs?: number } = {}): Promise<TestCluster> {
  const ownsDir = !opts.stateDir;
  const stateDir = path.resolve(opts.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-cluster-')));
  const { stdout } = await run('bash', [path.join(clusterScriptsDir, 'up.sh'), stateDir], opts.timeoutMs ?? UP_TIMEOUT_MS);
  const last = stdout.trim().split('\n').pop() ?? '';
  if (!last.startsWith('export KUBECONFIG=')) {
    throw new Error(`up.sh did not print "export KUBECONFIG=...": ${stdout}`);
  }
  let stopped: Promise<void> | undefined;
  return clusterIn(stateDir, () => {
    stopped ??= run('bash', [path.join(clusterScriptsDir, 'down.sh'), stateDir], DOWN_TIMEOUT_MS).then(() => {
      if (ownsDir && process.env.GITOPS_TEST_KEEP_STATE !== '1') {
        fs.rmSync(stateDir, { recursive: true, force: true });
      }
    });
    return stopped;
  });
}

/**
 * The cluster started by the test runner (test/integration/run.sh), from GITOPS_TEST_KUBECONFIG,
 * GITOPS_TEST_KUBECONFIG_READONLY, GITOPS_TEST_AUDIT_LOG and GITOPS_TEST_STATE_DIR.
 */
export function clusterFromEnv(env: NodeJS.ProcessEnv = process.env): TestCluster | undefined {
  const kubeconfig = env.GITOPS_TEST_KUBECONFIG;
  if (!kubeconfig) return undefined;
  const stateDir = env.GITOPS_TEST_STATE_DIR ?? path.dirname(kubeconfig);
  return {
    kubeconfig,
    readonlyKubeconfig: env.GITOPS_TEST_KUBECONFIG_READONLY ?? path.join(stateDir, 'kubeconfig-readonly'),
    server: env.GITOPS_TEST_SERVER ?? serverFromKubeconfig(kubeconfig),
    auditLog: env.GITOPS_TEST_AUDIT_LOG ?? path.join(stateDir, 'audit.log'),
    stateDir,
    stop: async () => {},
  };
}

let shared: Promise<TestCluster> | undefined;

/**
 * The cluster from the environment if the runner set one up, else one started for this process
 * (once; later calls share it), stopped on process exit, on SIGINT/SIGTERM/SIGHUP and on
 * uncaught errors.
 */
export function getTestCluster(): Promise<TestCluster> {
  const fromEnv = clusterFromEnv();
  if (fromEnv) return Promise.resolve(fromEnv);
  shared ??= startCluster().then((cluster) => {
    let done = false;
    const cleanup = (): void => {
      if (done) return;
      done = true;
      stopSync(cluster.stateDir);
      if (process.env.GITOPS_TEST_KEEP_STATE !== '1') {
        fs.rmSync(cluster.stateDir, { recursive: true, force: true });
      }
    };
    process.once('exit', cleanup);
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
      process.once(signal, () => {
        cleanup();
        process.exit(code);
      });
    }
    const stop = cluster.stop;
    return {
      ...cluster,
      stop: async () => {
        if (done) return;
        done = true;
        await stop();
      },
    };
  });
  return shared;
}

/** Credentials from a kubeconfig written by up.sh (single cluster and user; data or file fields). */
export interface KubeCredentials {
  server: string;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

export function loadKubeconfig(kubeconfig: string): KubeCredentials {
  const text = fs.readFileSync(kubeconfig, 'utf8');
  const base = path.dirname(kubeconfig);
  const field = (name: string): Buffer => {
    const data = new RegExp(`^\\s*${name}-data:\\s*(\\S+)\\s*$`, 'm').exec(text);
    if (data) return Buffer.from(data[1], 'base64');
    const file = new RegExp(`^\\s*${name}:\\s*(\\S+)\\s*$`, 'm').exec(text);
    if (file) return fs.readFileSync(path.resolve(base, file[1]));
    throw new Error(`no ${name}(-data) in ${kubeconfig}`);
  };
  return {
    server: serverFromKubeconfig(kubeconfig),
    ca: field('certificate-authority'),
    cert: field('client-certificate'),
    key: field('client-key'),
  };
}

export interface KubeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Parsed JSON body (throws if it is not JSON). */
  json<T = any>(): T;
}

/**
 * One HTTPS request to the API server with the kubeconfig's client certificate.
 * body: a string is sent as is; anything else as JSON.
 */
export function kubeRequest(
  kubeconfig: string,
  req: {
    path: string;
    method?: string;
    body?: unknown;
    contentType?: string;
    headers?: Record<string, string>;
    timeoutMs?: number;
  },
): Promise<KubeResponse> {
  const creds = loadKubeconfig(kubeconfig);
  const url = new URL(req.path, creds.server);
  const payload =
    req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  const headers: Record<string, string> = { Accept: 'application/json', ...req.headers };
  if (payload !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const r = https.request(
      url,
      {
        method: req.method ?? 'GET',
        ca: creds.ca,
        cert: creds.cert,
        key: creds.key,
        headers,
        timeout: req.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: () => JSON.parse(body),
          });
        });
      },
    );
    r.on('timeout', () => r.destroy(new Error(`timeout: ${req.method ?? 'GET'} ${url.href}`)));
    r.on('error', reject);
    if (payload !== undefined) r.write(payload);
    r.end();
  });
}

/**
 * Parses the audit log (one JSON Event per line). The API server writes an event just after it
 * has sent the response, so to see the events of requests just made, pass `until` (polls every
 * 100 ms until it returns true, up to timeoutMs, default 5 s; then returns what is there).
 * Events of up.sh's own setup requests have userAgent "gitops-preview-test-harness".
 */
export async function readAuditLog(
  cluster: Pick<TestCluster, 'auditLog'>,
  opts: { until?: (events: AuditEvent[]) => boolean; timeoutMs?: number } = {},
): Promise<AuditEvent[]> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  for (;;) {
    let text = '';
    try {
      text = await fs.promises.readFile(cluster.auditLog, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const events: AuditEvent[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        events.push(JSON.parse(line) as AuditEvent);
      } catch {
        // a line being written right now
      }
    }
    if (!opts.until || opts.until(events) || Date.now() >= deadline) return events;
    await new Promise((r) => setTimeout(r, 100));
  }
}
