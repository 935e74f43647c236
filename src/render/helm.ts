/**
 * helm-controller's install of one HelmRelease, as `helm template`: the chart from the workspace
 * (GitRepository) or pulled by helm into a cache (HelmRepository, OCIRepository), the merged values,
 * release name and namespace as the controller computes them, then its post-renderers
 * (kustomize patches/images, commonMetadata, origin labels).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { HelmReleaseNode, RepoModel } from '../core/model/graph';
import { asArray, asRecord, asString } from '../core/model/objects';
import { findSource } from '../core/model/sources';
import { clampVirtual, normalizeVirtual, type SourceView } from '../core/model/view';
import { kubeVersionProblem } from '../core/flux/validation';
import { describeConfinement, kustomizeConfinement } from '../core/render/confine';
import { describeLocated, helmReleaseValueProblems } from '../core/render/helmInputs';
import { helmReleaseValues, mergeMaps } from '../core/render/helmValues';
import { maskSops } from '../core/render/mask';
import { setCommonMetadata } from '../core/render/postbuild';
import { fail, ok, type Errorable } from './errors';
import { resolveHelm, resolveKustomize, runProcess } from './exec';
import { DEFAULT_TIMEOUT_MS } from './kustomize';
import { LinkGuard, makeTempDir, removeDir, stageDiskDir, stagedTree } from './stage';
import type { HelmRenderResult, RenderedObject, RenderOptions } from './types';

export const HELM_NAME_LABEL = 'helm.toolkit.fluxcd.io/name';
export const HELM_NAMESPACE_LABEL = 'helm.toolkit.fluxcd.io/namespace';
const PULL_TIMEOUT_MS = 120_000;

function hrLabel(hr: HelmReleaseNode): string {
  return `HelmRelease ${hr.applied.namespace ?? 'default'}/${hr.applied.name}`;
}

export function defaultChartCache(): string {
  return path.join(os.homedir(), '.cache', 'gitops-preview', 'charts');
}

/** Where the chart comes from: a folder of the workspace, or a reference helm pulls. */
type ChartLocation =
  | { kind: 'local'; dir: string; view: SourceView; display: string }
  | { kind: 'pull'; ref: string; repo?: string; version?: string; display: string };

function sourceViewOf(model: RepoModel, hr: HelmReleaseNode, kind: string, name: string, namespace: string): SourceView | undefined {
  // The Kustomizations of the cluster already resolved their sources (workspace remotes included).
  for (const ks of hr.applied.cluster.kustomizations) {
    const r = ks.sourceRef;
    if (r && r.kind === kind && r.name === name && r.namespace === namespace && ks.source.kind === 'view') return ks.source.view;
  }
  if (kind === 'GitRepository' && name === 'flux-system' && namespace === 'flux-system') {
    for (const ks of hr.applied.cluster.kustomizations) if (ks.source.kind === 'view') return ks.source.view;
  }
  return undefined;
}

function locateChart(model: RepoModel, hr: HelmReleaseNode): Errorable<ChartLocation> {
  const label = hrLabel(hr);
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  const ref = hr.chartSourceRef;
  if (!ref) return fail('invalid', `${label}: neither spec.chart.spec.sourceRef nor spec.chartRef is set.`);
  const source = findSource(model.sourceIndex, ref.kind, ref.name, ref.namespace, hr.applied.object.doc.file.path);
  const sourceSpec = asRecord(source?.body.spec) ?? {};
  const chartSpec = asRecord(asRecord(spec.chart)?.spec) ?? {};
  const chart = asString(chartSpec.chart) ?? '';
  const version = asString(chartSpec.version);
  const pinned = version && version !== '*' ? version : undefined;
  switch (ref.kind) {
    case 'GitRepository':
    case 'Bucket': {
      const view = sourceViewOf(model, hr, ref.kind, ref.name, ref.namespace);
      if (!view) return fail('unavailable', `${label}: the chart's source ${ref.kind}/${ref.namespace}/${ref.name} is not this workspace, so the chart cannot be read locally.`);
      const vdir = normalizeVirtual(chart);
      const dir = vdir === undefined ? undefined : view.realDir(vdir);
      if (!dir || !fs.existsSync(path.join(dir, 'Chart.yaml'))) return fail('unavailable', `${label}: chart path '${chart}' is not a chart folder (no Chart.yaml) in ${ref.kind}/${ref.namespace}/${ref.name}.`);
      return ok({ kind: 'local', dir, view, display: chart });
    }
    case 'HelmRepository': {
      if (!source) return fail('unavailable', `${label}: HelmRepository ${ref.namespace}/${ref.name} is not in the workspace.`);
      const url = asString(sourceSpec.url) ?? '';
      if (sourceSpec.type === 'oci' || url.startsWith('oci://')) {
        return ok({ kind: 'pull', ref: `${url.replace(/\/+$/, '')}/${chart}`, version: pinned, display: `${url}/${chart}${pinned ? `@${pinned}` : ''}` });
      }
      if (!/^https?:\/\//.test(url)) return fail('invalid', `${label}: HelmRepository ${ref.namespace}/${ref.name} has no http(s) or oci:// url.`);
      return ok({ kind: 'pull', ref: chart, repo: url, version: pinned, display: `${chart}${pinned ? `@${pinned}` : ''} from ${url}` });
    }
    case 'OCIRepository': {
      if (!source) return fail('unavailable', `${label}: OCIRepository ${ref.namespace}/${ref.name} is not in the workspace.`);
      const url = asString(sourceSpec.url) ?? '';
      const r = asRecord(sourceSpec.ref) ?? {};
      const v = asString(r.tag) ?? asString(r.semver);
      const digest = asString(r.digest);
      const full = digest ? `${url}@${digest}` : url;
      return ok({ kind: 'pull', ref: full, version: digest ? undefined : v, display: `${full}${!digest && v ? `:${v}` : ''}` });
    }
    default:
      return fail('unavailable', `${label}: charts from ${ref.kind} cannot be rendered locally.`);
  }
}

/** `helm pull` into the cache (keyed by reference and version), untarred; reused when present. */
export function chartCacheKey(loc: { repo?: string; ref: string; version?: string }): string {
  return createHash('sha256').update(`${loc.repo ?? ''}|${loc.ref}|${loc.version ?? ''}`).digest('hex').slice(0, 16);
}

async function pullChart(resolveBin: () => Errorable<string>, loc: Extract<ChartLocation, { kind: 'pull' }>, opts: RenderOptions, label: string): Promise<Errorable<string>> {
  const cache = opts.cacheDir ?? defaultChartCache();
  const key = chartCacheKey(loc);
  const dest = path.join(cache, key);
  const existing = chartDirIn(dest);
  if (existing) return ok(existing);
  const helm = resolveBin();
  if (!helm.ok) return helm;
  await fs.promises.mkdir(cache, { recursive: true });
  const tmp = await fs.promises.mkdtemp(path.join(cache, `.pull-${key}-`));
  const args = ['pull', '--untar', `--untardir=${tmp}`];
  if (loc.repo) args.push(`--repo=${loc.repo}`);
  if (loc.version) args.push(`--version=${loc.version}`);
  args.push('--', loc.ref);
  const run = await runProcess(helm.value, args, { timeoutMs: Math.max(opts.timeoutMs ?? 0, PULL_TIMEOUT_MS), signal: opts.signal, env: opts.env, network: true });
  if (!run.ok) {
    await removeDir(tmp);
    return fail(run.error.kind === 'build-failed' ? 'unavailable' : run.error.kind, `${label}: could not pull chart ${loc.display} (helm pull needs network access to the chart repository): ${run.error.message}`, run.error.stderr);
  }
  await fs.promises.rename(tmp, dest).catch(async () => removeDir(tmp));
  const dir = chartDirIn(dest);
  return dir ? ok(dir) : fail('unavailable', `${label}: helm pull of ${loc.display} produced no chart`);
}

function chartDirIn(dir: string): string | undefined {
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'Chart.yaml'))) return path.join(dir, e.name);
    }
  } catch {
    /* not pulled yet */
  }
  return undefined;
}

/**
 * source-controller's `valuesFiles`: their merge replaces the chart's default values (values.yaml
 * counts only when listed). Local charts resolve them in the source, pulled ones in the chart.
 */
function mergedValuesFiles(files: string[], ignoreMissing: boolean, read: (p: string) => string | undefined, label: string): Errorable<Record<string, any>> {
  let merged: Record<string, any> = {};
  for (const f of files) {
    const text = read(f);
    if (text === undefined) {
      if (ignoreMissing) continue;
      return fail('invalid', `${label}: values file '${f}' (spec.chart.spec.valuesFiles) not found`);
    }
    try {
      merged = mergeMaps(merged, asRecord(parseYaml(text)) ?? {});
    } catch (err) {
      return fail('invalid', `${label}: values file '${f}' is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return ok(merged);
}

/**
 * A values file of a pulled chart, as source-controller finds it: a chart file whose cleaned name
 * is the reference, so nothing outside the chart (absolute, `..`) and no link is ever read.
 */
function readChartFile(chartDir: string, ref: string): string | undefined {
  const clean = path.posix.normalize(ref.split('\\').join('/'));
  if (clean.startsWith('/') || clean === '..' || clean.startsWith('../') || clean === '.') return undefined;
  const file = path.join(chartDir, ...clean.split('/'));
  try {
    const real = fs.realpathSync(file);
    if (real !== path.join(fs.realpathSync(chartDir), ...clean.split('/')) || !fs.lstatSync(file).isFile()) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function renderHelmReleaseImpl(model: RepoModel, hr: HelmReleaseNode, opts: RenderOptions): Promise<Errorable<HelmRenderResult>> {
  if (!opts.allowProcesses) return fail('not-allowed', 'Rendering runs helm, which is disabled in an untrusted workspace. Trust the workspace to render.');
  const label = hrLabel(hr);
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  const namespace = hr.targetNamespace;
  const hrNamespace = hr.applied.namespace ?? 'default';
  const vals = helmReleaseValues(model, hr.applied.cluster, spec, hrNamespace, opts.revealSecretValues === true);
  if (vals.error) return fail('invalid', `${label}: ${vals.error}`);
  const warnings = [...vals.warnings];
  const ref = hr.chartSourceRef;
  const source = ref ? findSource(model.sourceIndex, ref.kind, ref.name, ref.namespace, hr.applied.object.doc.file.path) : undefined;
  const problems = helmReleaseValueProblems(hr, source);
  const kubeVersion = opts.kubeVersion ?? '1.33.0';
  const kubeProblem = kubeVersionProblem(kubeVersion);
  if (problems.length || kubeProblem) {
    const lines = problems.length ? [describeLocated(problems, model.workspace.root)] : [];
    if (kubeProblem) lines.push(`  Kubernetes version (kubeVersion option): ${kubeProblem}`);
    return fail('invalid', `${label}: helm-controller would refuse these values, so helm is not run:\n${lines.join('\n')}`);
  }
  const loc = locateChart(model, hr);
  if (!loc.ok) return loc;
  const links = new LinkGuard(model.workspace.root);
  if (loc.value.kind === 'local' && !links.linkFree(loc.value.dir)) {
    return fail('invalid', `${label}: the chart folder '${asString(asRecord(asRecord(spec.chart)?.spec)?.chart) ?? ''}' is reached through a symbolic link; Flux source artifacts hold no links, so the chart is not read.`);
  }
  // Found only when a process is about to start, so every refusal above and below comes first.
  const resolveBin = () => resolveHelm({ helmBin: opts.helmBin, env: opts.env });

  const tmp = await makeTempDir('helm');
  try {
    const chartSpec = asRecord(asRecord(spec.chart)?.spec) ?? {};
    const valuesFiles = asArray(chartSpec.valuesFiles).filter((f): f is string => typeof f === 'string');
    let chartDir: string;
    const staged = path.join(tmp, 'chart');
    if (loc.value.kind === 'local') {
      await stageDiskDir(model.workspace, loc.value.dir, staged);
      chartDir = staged;
      const view = loc.value.view;
      if (valuesFiles.length) {
        const merged = mergedValuesFiles(valuesFiles, chartSpec.ignoreMissingValuesFiles === true, (f) => {
          const real = view.file(clampVirtual(f));
          return real && links.linkFree(real) ? model.workspace.readText(real) : undefined;
        }, label);
        if (!merged.ok) return merged;
        await fs.promises.writeFile(path.join(staged, 'values.yaml'), JSON.stringify(merged.value));
      }
    } else {
      const pulled = await pullChart(resolveBin, loc.value, opts, label);
      if (!pulled.ok) return pulled;
      chartDir = pulled.value;
      if (valuesFiles.length) {
        await stageDiskDir(model.workspace, pulled.value, staged);
        chartDir = staged;
        const merged = mergedValuesFiles(valuesFiles, chartSpec.ignoreMissingValuesFiles === true, (f) => readChartFile(pulled.value, f), label);
        if (!merged.ok) return merged;
        await fs.promises.writeFile(path.join(staged, 'values.yaml'), JSON.stringify(merged.value));
      }
    }

    const valuesPath = path.join(tmp, 'values.json');
    const values = structuredClone(vals.values);
    if (maskSops(values)) warnings.push('Some values are SOPS-encrypted: they are shown as *** (never decrypted).');
    await fs.promises.writeFile(valuesPath, JSON.stringify(values));
    const install = asRecord(spec.install) ?? {};
    const crds = asString(install.crds) ?? 'Create';
    const args = ['template', `--namespace=${namespace}`, `--values=${valuesPath}`, `--kube-version=${kubeVersion}`, '--skip-tests'];
    if (crds !== 'Skip') args.push('--include-crds');
    args.push('--', hr.releaseName, chartDir);
    const helm = resolveBin();
    if (!helm.ok) return helm;
    const run = await runProcess(helm.value, args, { cwd: tmp, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: opts.signal, env: opts.env });
    if (!run.ok) return { ok: false, error: { ...run.error, message: `${label}: ${run.error.message.split(tmp + '/').join('')}` } };

    let manifest = run.value.stdout;
    // Post-renderers drop helm's `# Source:` comments; remember them by object identity first.
    const origins = new Map<string, RenderedObject['origin']>();
    for (const doc of parseAllDocuments(manifest)) {
      const o = asRecord(doc.toJS());
      const origin = sourceComment(`${doc.commentBefore ?? ''}\n${doc.contents?.commentBefore ?? ''}`, loc.value);
      if (o && origin) origins.set(`${o.kind}/${asString(asRecord(o.metadata)?.name)}`, origin);
    }
    const postRenderers = asArray(spec.postRenderers).map((p) => asRecord(asRecord(p)?.kustomize)).filter((k): k is Record<string, any> => !!k);
    if (postRenderers.length) {
      const post = await kustomizePostRender(manifest, postRenderers, opts, tmp, label);
      if (!post.ok) return post;
      manifest = post.value;
    }

    const objects: RenderedObject[] = [];
    let hooks = 0;
    for (const doc of parseAllDocuments(manifest)) {
      if (doc.errors.length) return fail('build-failed', `${label}: helm output is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
      const obj = asRecord(doc.toJS());
      if (!obj) continue;
      if (asRecord(obj.metadata?.annotations)?.['helm.sh/hook'] !== undefined) {
        hooks++;
        continue;
      }
      if (!obj.metadata?.namespace && model.isNamespaced(String(obj.kind))) {
        obj.metadata ??= {};
        obj.metadata.namespace = namespace;
      }
      maskSops(obj);
      const common = asRecord(spec.commonMetadata);
      if (common) setCommonMetadata(obj, asRecord(common.labels), asRecord(common.annotations));
      obj.metadata.labels = { ...(asRecord(obj.metadata.labels) ?? {}), [HELM_NAME_LABEL]: hr.applied.name, [HELM_NAMESPACE_LABEL]: hrNamespace };
      const rendered = obj as RenderedObject;
      const origin = origins.get(`${obj.kind}/${asString(obj.metadata?.name)}`);
      if (origin) rendered.origin = origin;
      objects.push(rendered);
    }
    warnings.push(...links.warnings());
    if (hooks) warnings.push(`${hooks} Helm hook object(s) left out: hooks run during install/upgrade and are not part of the release manifest.`);
    return ok({ objects, warnings, releaseName: hr.releaseName, namespace, chart: loc.value.display, values });
  } finally {
    await removeDir(tmp);
  }
}

/** `# Source: chart/templates/x.yaml` → the template file, for local charts. */
function sourceComment(comment: string, loc: ChartLocation): RenderedObject['origin'] {
  if (loc.kind !== 'local') return undefined;
  const m = /Source: [^/\n]+\/(.+)$/m.exec(comment);
  return m ? { file: `${loc.dir}/${m[1].trim()}`, docIndex: 0 } : undefined;
}

/** helm-controller's Kustomize post-renderer: patches and images over the rendered manifest. */
async function kustomizePostRender(manifest: string, renderers: Record<string, any>[], opts: RenderOptions, tmp: string, label: string): Promise<Errorable<string>> {
  const cmd = resolveKustomize({ kustomizeBin: opts.kustomizeBin, kubectlBin: opts.kubectlBin, env: opts.env });
  if (!cmd.ok) return { ok: false, error: { ...cmd.error, message: `${label}: spec.postRenderers needs kustomize: ${cmd.error.message}` } };
  let current = manifest;
  for (const [i, r] of renderers.entries()) {
    const dir = path.join(tmp, `post-${i}`);
    await fs.promises.mkdir(dir, { recursive: true });
    await fs.promises.writeFile(path.join(dir, 'all.yaml'), current);
    const k: Record<string, unknown> = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['all.yaml'] };
    // Inline patches only, as helm-controller builds them: a patch is never a path.
    const patches = asArray(r.patches).map((p) => asRecord(p)).filter((p): p is Record<string, any> => !!p && typeof p.patch === 'string');
    if (patches.length) k.patches = patches.map((p) => (p.target ? { patch: p.patch, target: p.target } : { patch: p.patch }));
    const images = asArray(r.images);
    if (images.length) k.images = images;
    await fs.promises.writeFile(path.join(dir, 'kustomization.yaml'), stringifyYaml(k, { lineWidth: 0 }));
    const problems = kustomizeConfinement(stagedTree(dir), '');
    if (problems.length) return fail('invalid', `${label}: spec.postRenderers[${i}].kustomize would read outside the rendered chart:\n${describeConfinement(problems)}`);
    const run = await runProcess(cmd.value.bin, [...cmd.value.prefix, '--', dir], { cwd: tmp, timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: opts.signal, env: opts.env });
    if (!run.ok) return { ok: false, error: { ...run.error, message: `${label}: spec.postRenderers[${i}].kustomize failed: ${run.error.message}` } };
    current = run.value.stdout;
  }
  return ok(current);
}
