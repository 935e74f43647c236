/**
 * Plays Flux's controllers once for a repository in the project (default examples/demo-repo,
 * cluster `demo`) against the local test cluster, then makes hand-made changes so drift has
 * something to show. No controllers run in the test cluster, so this is what "Flux has synced"
 * means there:
 *   - kustomize-controller: `kustomize build` of each Kustomization's path (roots first, then in
 *     dependsOn order), server-side applied with field manager `kustomize-controller` and Flux's
 *     `kustomize.toolkit.fluxcd.io/{name,namespace}` labels; status Ready=True with the inventory;
 *   - helm-controller: `helm template` of each HelmRelease whose chart is a folder of the repo,
 *     applied with field manager `helm-controller`; status Ready=True;
 *   - a person: `kubectl edit`-style changes (field manager `kubectl-edit`) to the objects listed
 *     in DRIFT.
 *
 *   node --import tsx test/e2e/seed.ts --kubeconfig FILE [--repo DIR] [--cluster NAME] [--no-drift]
 *
 * Needs KUSTOMIZE_BIN and HELM_BIN (test/cluster/tools-env.sh). Prints one line per applied object.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubeRequest } from '../cluster/harness';

type Obj = Record<string, any>;

export interface Drift {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Merged into the object by a server-side apply with field manager kubectl-edit. */
  change: Obj;
}

/** The hand-made changes `make demo` and the drift e2e scenario look for. */
export const DRIFT: Drift[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'demo', name: 'web-config', change: { data: { GREETING: 'Hello from kubectl edit' } } },
  { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'demo', name: 'web', change: { spec: { replicas: 5 } } },
];

const REVISION = 'main@sha1:0123456789abcdef0123456789abcdef01234567';

interface Args {
  kubeconfig: string;
  repo: string;
  cluster: string;
  drift: boolean;
}

function parseArgs(argv: string[]): Args {
  const out: Args = { kubeconfig: '', repo: path.resolve(__dirname, '../../examples/demo-repo'), cluster: 'demo', drift: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--kubeconfig') out.kubeconfig = argv[++i] ?? '';
    else if (a === '--repo') out.repo = path.resolve(argv[++i] ?? '');
    else if (a === '--cluster') out.cluster = argv[++i] ?? '';
    else if (a === '--no-drift') out.drift = false;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!out.kubeconfig) throw new Error('--kubeconfig FILE is required');
  return out;
}

class Api {
  private readonly resources = new Map<string, { plural: string; namespaced: boolean }>();
  constructor(private readonly kubeconfig: string) {}

  async resource(apiVersion: string, kind: string): Promise<{ base: string; plural: string; namespaced: boolean }> {
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const key = `${apiVersion}/${kind}`;
    if (!this.resources.has(key)) {
      // CRDs applied a moment ago take a little while to be served.
      for (let attempt = 0; ; attempt++) {
        const res = await kubeRequest(this.kubeconfig, { path: base });
        if (res.status === 200) {
          for (const r of res.json().resources as Obj[]) {
            if (!String(r.name).includes('/')) this.resources.set(`${apiVersion}/${r.kind}`, { plural: r.name, namespaced: r.namespaced });
          }
        }
        if (this.resources.has(key) || attempt >= 10) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    const found = this.resources.get(key);
    if (!found) throw new Error(`the cluster does not serve ${kind} in ${apiVersion}`);
    return { base, ...found };
  }

  async objectPath(o: Obj): Promise<string> {
    const r = await this.resource(o.apiVersion, o.kind);
    const ns = r.namespaced ? `/namespaces/${o.metadata.namespace ?? 'default'}` : '';
    return `${r.base}${ns}/${r.plural}/${o.metadata.name}`;
  }

  async apply(o: Obj, fieldManager: string): Promise<Obj> {
    const p = await this.objectPath(o);
    const res = await kubeRequest(this.kubeconfig, {
      method: 'PATCH',
      path: `${p}?fieldManager=${fieldManager}&force=true`,
      body: JSON.stringify(o),
      contentType: 'application/apply-patch+yaml',
    });
    if (res.status >= 300) throw new Error(`apply ${o.kind}/${o.metadata.name}: HTTP ${res.status} ${res.body.slice(0, 500)}`);
    return res.json();
  }

  async status(o: Obj, status: Obj, fieldManager: string): Promise<void> {
    const p = await this.objectPath(o);
    const body = { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, namespace: o.metadata.namespace }, status };
    const res = await kubeRequest(this.kubeconfig, {
      method: 'PATCH',
      path: `${p}/status?fieldManager=${fieldManager}&force=true`,
      body: JSON.stringify(body),
      contentType: 'application/apply-patch+yaml',
    });
    if (res.status >= 300) throw new Error(`status of ${o.kind}/${o.metadata.name}: HTTP ${res.status} ${res.body.slice(0, 500)}`);
  }
}

function yamlObjects(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o && typeof o === 'object' && !!o.kind);
}

function run(bin: string | undefined, name: string, args: string[]): string {
  if (!bin) throw new Error(`${name} binary unknown: set ${name.toUpperCase()}_BIN (bash test/cluster/tools-env.sh --print)`);
  return execFileSync(bin, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/**
 * `kustomize build DIR`; like kustomize-controller, a folder without a kustomization file gets a
 * generated one listing its YAML files (and sub-folders holding a kustomization), built in a
 * temporary copy so the repository is never written to.
 */
function kustomizeBuild(bin: string | undefined, dir: string): string {
  if (KUSTOMIZATION_FILES.some((f) => fs.existsSync(path.join(dir, f)))) return run(bin, 'kustomize', ['build', dir]);
  const copy = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'seed-ks-'));
  try {
    fs.cpSync(dir, copy, { recursive: true });
    const resources: string[] = [];
    const walk = (rel: string) => {
      for (const e of fs.readdirSync(path.join(copy, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const r = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (KUSTOMIZATION_FILES.some((f) => fs.existsSync(path.join(copy, r, f)))) resources.push(r);
          else walk(r);
        } else if (/\.ya?ml$/.test(e.name)) {
          const docs = yamlObjects(fs.readFileSync(path.join(copy, r), 'utf8'));
          if (docs.length > 0) resources.push(r);
        }
      }
    };
    walk('');
    fs.writeFileSync(path.join(copy, 'kustomization.yaml'), JSON.stringify({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources }));
    return run(bin, 'kustomize', ['build', copy]);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

const ready = (reason: string, message: string) => ({
  observedGeneration: 1,
  conditions: [{ type: 'Ready', status: 'True', reason, message, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
});

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
}

async function waitEstablished(api: Api, kubeconfig: string, crd: Obj): Promise<void> {
  const p = await api.objectPath(crd);
  for (let i = 0; i < 100; i++) {
    const res = await kubeRequest(kubeconfig, { path: p });
    const conds: Obj[] = res.status === 200 ? res.json().status?.conditions ?? [] : [];
    if (conds.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`CRD ${crd.metadata.name} not Established`);
}

export async function seed(args: Args, log: (line: string) => void = console.log): Promise<void> {
  const api = new Api(args.kubeconfig);
  const kustomize = process.env.KUSTOMIZE_BIN;
  const helm = process.env.HELM_BIN;
  await api.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flux-system' } }, 'kustomize-controller');

  // Root: the Kustomization in clusters/<name>/flux-system/gotk-sync.yaml.
  const sync = yamlObjects(fs.readFileSync(path.join(args.repo, 'clusters', args.cluster, 'flux-system', 'gotk-sync.yaml'), 'utf8'));
  const found = sync.find((o) => o.kind === 'Kustomization');
  if (!found) throw new Error(`no Kustomization in clusters/${args.cluster}/flux-system/gotk-sync.yaml`);

  const root: Obj = found;
  const queue: Obj[] = [root];
  const done = new Set<string>();
  const helmReleases = new Map<string, Obj>();
  const attempts = new Map<Obj, number>();
  while (queue.length > 0) {
    // dependsOn order: take the first Kustomization whose dependencies are all applied.
    const idx = queue.findIndex((k) => (k.spec.dependsOn ?? []).every((d: Obj) => done.has(`${d.namespace ?? k.metadata.namespace}/${d.name}`)));
    const ks = queue.splice(idx < 0 ? 0 : idx, 1)[0];
    try {
      await applyKustomization(ks);
    } catch (err) {
      // As kustomize-controller does, retry later: e.g. a CR whose CRD another Kustomization applies.
      const n = (attempts.get(ks) ?? 0) + 1;
      attempts.set(ks, n);
      if (n >= 3) throw err;
      log(`Kustomization ${ks.metadata.name} failed, retrying after the others: ${err instanceof Error ? err.message : String(err)}`);
      queue.push(ks);
    }
  }

  async function applyKustomization(ks: Obj): Promise<void> {
    const ksNs = ks.metadata.namespace ?? 'flux-system';
    const built = yamlObjects(kustomizeBuild(kustomize, path.join(args.repo, ks.spec.path ?? '.')));
    const inventory: Obj[] = [];
    // CRDs and Namespaces first, as kustomize-controller does.
    const rank = (o: Obj) => (o.kind === 'CustomResourceDefinition' ? 0 : o.kind === 'Namespace' ? 1 : 2);
    built.sort((a, b) => rank(a) - rank(b));
    for (const o of built) {
      if (ks.spec.targetNamespace && (await api.resource(o.apiVersion, o.kind)).namespaced) o.metadata.namespace = ks.spec.targetNamespace;
      o.metadata.labels = { ...o.metadata.labels, 'kustomize.toolkit.fluxcd.io/name': ks.metadata.name, 'kustomize.toolkit.fluxcd.io/namespace': ksNs };
      const applied = await api.apply(o, 'kustomize-controller');
      if (o.kind === 'CustomResourceDefinition') await waitEstablished(api, args.kubeconfig, o);
      log(`applied ${o.kind}/${o.metadata.namespace ? o.metadata.namespace + '/' : ''}${o.metadata.name} (Kustomization ${ks.metadata.name})`);
      const ns = (await api.resource(o.apiVersion, o.kind)).namespaced ? applied.metadata.namespace : '';
      inventory.push({ id: `${ns}_${o.metadata.name}_${groupOf(o.apiVersion)}_${o.kind}`, v: o.apiVersion.split('/').pop() });
      if (o.apiVersion.startsWith('source.toolkit.fluxcd.io/')) {
        // source-controller: an artifact for the revision every Kustomization reports.
        await api.status(o, {
          ...ready('Succeeded', `stored artifact for revision '${REVISION}'`),
          artifact: { path: `${o.kind.toLowerCase()}/${o.metadata.namespace}/${o.metadata.name}/latest.tar.gz`, url: `http://source-controller.flux-system.svc.cluster.local./${o.kind.toLowerCase()}/${o.metadata.namespace}/${o.metadata.name}/latest.tar.gz`, revision: REVISION, digest: 'sha256:' + '0'.repeat(64), lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
        }, 'source-controller');
      }
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      const isFlux = (group: string, kind: string) => o.apiVersion.startsWith(`${group}/`) && o.kind === kind;
      if (isFlux('kustomize.toolkit.fluxcd.io', 'Kustomization') && o.metadata.name !== root.metadata.name && !done.has(key) && !queue.some((q) => `${q.metadata.namespace}/${q.metadata.name}` === key)) queue.push(o);
      if (isFlux('helm.toolkit.fluxcd.io', 'HelmRelease')) helmReleases.set(key, o);
    }
    if (ks === root) await api.apply({ ...root, metadata: { ...root.metadata, namespace: ksNs } }, 'kustomize-controller');
    await api.status(ks, {
      ...ready('ReconciliationSucceeded', `Applied revision: ${REVISION}`),
      lastAppliedRevision: REVISION,
      lastAttemptedRevision: REVISION,
      inventory: { entries: inventory },
    }, 'kustomize-controller');
    done.add(`${ksNs}/${ks.metadata.name}`);
  }

  for (const hr of helmReleases.values()) {
    const chart = hr.spec.chart?.spec?.chart as string | undefined;
    if (!chart || !fs.existsSync(path.join(args.repo, chart, 'Chart.yaml'))) continue;
    const ns = hr.spec.targetNamespace ?? hr.metadata.namespace;
    const valuesFile = path.join(fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'seed-values-')), 'values.json');
    fs.writeFileSync(valuesFile, JSON.stringify(hr.spec.values ?? {}));
    const rendered = yamlObjects(run(helm, 'helm', ['template', hr.spec.releaseName ?? hr.metadata.name, path.join(args.repo, chart), '--namespace', ns, '--values', valuesFile]));
    fs.rmSync(path.dirname(valuesFile), { recursive: true, force: true });
    for (const o of rendered) {
      if ((await api.resource(o.apiVersion, o.kind)).namespaced) o.metadata.namespace ??= ns;
      o.metadata.labels = { ...o.metadata.labels, 'helm.toolkit.fluxcd.io/name': hr.metadata.name, 'helm.toolkit.fluxcd.io/namespace': hr.metadata.namespace };
      await api.apply(o, 'helm-controller');
      log(`applied ${o.kind}/${o.metadata.namespace}/${o.metadata.name} (HelmRelease ${hr.metadata.name})`);
    }
    await api.status(hr, { ...ready('InstallSucceeded', 'Helm install succeeded'), lastAttemptedRevision: '0.1.0' }, 'helm-controller');
  }

  if (!args.drift) return;
  for (const d of DRIFT) {
    await api.apply({ apiVersion: d.apiVersion, kind: d.kind, metadata: { name: d.name, namespace: d.namespace }, ...d.change }, 'kubectl-edit');
    log(`drift: changed ${d.kind}/${d.namespace}/${d.name} ${JSON.stringify(d.change)}`);
  }
}

if (require.main === module) {
  seed(parseArgs(process.argv.slice(2))).catch((err: unknown) => {
    console.error(`seed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
