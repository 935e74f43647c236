/**
 * helm-controller's install of one HelmRelease, as `helm template`: the chart from the workspace
 * (GitRepository) or from the chart cache (HelmRepository, OCIRepository: fetched there in process
 * when it is not cached yet and the network is allowed, see charts/fetch.ts), the merged values,
 * release name and namespace as the controller computes them, then its post-renderers
 * (kustomize patches/images, commonMetadata, origin labels). helm's and kustomize's own code run
 * as WebAssembly over in-memory copies of the chart's files.
 */
import { parseYaml, QUIET } from '../core/yaml/document';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments, stringify as stringifyYaml } from 'yaml';
import { wasmModule } from '../engine/wasm/pool';
import type { MemFile } from '../engine/wasm/protocol';
import type { HelmReleaseNode, RepoModel } from '../core/model/graph';
import { asArray, asRecord, asString } from '../core/model/objects';
import { findSource } from '../core/model/sources';
import { clampVirtual, normalizeVirtual, type SourceView } from '../core/model/view';
import { kubeVersionProblem } from '../core/flux/validation';
import { clusterKubeVersion } from '../core/helm/kubeVersion';
import { describeLocated, helmReleaseValueProblems } from '../core/flux/helmInputs';
import { helmReleaseValues, mergeMaps } from '../core/flux/helmValues';
import { getOwn } from '../core/safeRecord';
import { maskSops } from '../core/flux/mask';
import { setCommonMetadata } from '../core/flux/postbuild';
import type { Result } from '../core/result';
import { fail, ok, type RenderError } from './errors';
import { defaultChartCache } from './charts/cache';
import { describeRequest, fetchChart, type ChartRequest } from './charts/fetch';
import { diskDirFiles, InputBudget } from './files';
import { DEFAULT_TIMEOUT_MS } from './kustomize';
import type { HelmRenderResult, RenderedObject, RenderOptions } from './types';
import { fromWasm } from './wasm';
import { cachedChartFiles, callHelm, SCHEMA_FAILURE, valuesViolations } from './helmCalls';
import { unreadTopLevelValues } from './unreadValues';

export const HELM_NAME_LABEL = 'helm.toolkit.fluxcd.io/name';
export const HELM_NAMESPACE_LABEL = 'helm.toolkit.fluxcd.io/namespace';
const PULL_TIMEOUT_MS = 120_000;

function hrLabel(hr: HelmReleaseNode): string {
  return `HelmRelease ${hr.applied.namespace ?? 'default'}/${hr.applied.name}`;
}

/** Where the chart comes from: a folder of the workspace, or a chart repository or registry. */
export type ChartLocation = { kind: 'local'; dir: string; view: SourceView; display: string } | { kind: 'remote'; request: ChartRequest; display: string };

function remote(request: ChartRequest): ChartLocation {
  return { kind: 'remote', request, display: describeRequest(request) };
}

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

export function locateChart(model: RepoModel, hr: HelmReleaseNode): Result<ChartLocation, RenderError> {
  const label = hrLabel(hr);
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  const ref = hr.chartSourceRef;
  if (!ref) return fail('invalid', `${label}: neither spec.chart.spec.sourceRef nor spec.chartRef is set.`);
  const source = findSource(model.sourceIndex, ref.kind, ref.name, ref.namespace, hr.applied.object.doc.file.path);
  const sourceSpec = asRecord(source?.body.spec) ?? {};
  const chartSpec = asRecord(asRecord(spec.chart)?.spec) ?? {};
  const chart = asString(chartSpec.chart) ?? '';
  const version = asString(chartSpec.version);
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
      if (sourceSpec.type === 'oci' || url.startsWith('oci://')) return ok(remote({ kind: 'oci-helm', url, chart, version, insecure: sourceSpec.insecure === true }));
      if (!url.startsWith('http://') && !url.startsWith('https://')) return fail('invalid', `${label}: HelmRepository ${ref.namespace}/${ref.name} has no http(s) or oci:// url.`);
      return ok(remote({ kind: 'http', repoUrl: url, chart, version }));
    }
    case 'OCIRepository': {
      if (!source) return fail('unavailable', `${label}: OCIRepository ${ref.namespace}/${ref.name} is not in the workspace.`);
      const url = asString(sourceSpec.url) ?? '';
      const r = asRecord(sourceSpec.ref) ?? {};
      return ok(remote({ kind: 'oci-source', url, tag: asString(r.tag), semver: asString(r.semver), digest: asString(r.digest), insecure: sourceSpec.insecure === true }));
    }
    default:
      return fail('unavailable', `${label}: charts from ${ref.kind} cannot be rendered locally.`);
  }
}

/**
 * The chart from the chart cache, fetched there first (in process: HTTP index and package, or the
 * OCI distribution API) when it is not cached, the network is allowed and not offline.
 */
async function remoteChart(loc: Extract<ChartLocation, { kind: 'remote' }>, opts: RenderOptions, label: string): Promise<Result<{ dir: string; digest: string }, RenderError>> {
  // The options that choose a folder to write and the credentials' environment are read as own
  // properties only: nothing inherited (a polluted prototype) can choose them.
  const env = (getOwn(opts, 'env') as NodeJS.ProcessEnv | undefined) ?? process.env;
  const cacheDir = (getOwn(opts, 'cacheDir') as string | undefined) ?? defaultChartCache(env);
  const offline = getOwn(opts, 'offline') === true;
  const allowNetwork = getOwn(opts, 'allowNetwork') === true && !offline;
  const noNetworkReason = offline
    ? 'charts are not fetched offline: run once without --offline (or gitopsPreview.charts.offline) to fetch it'
    : 'fetching charts is disabled in an untrusted workspace: trust the workspace to fetch it';
  const got = await fetchChart(loc.request, { cacheDir, allowNetwork, noNetworkReason, env, timeoutMs: Math.max(opts.timeoutMs ?? 0, PULL_TIMEOUT_MS), signal: opts.signal });
  return got.ok ? ok({ dir: got.value.dir, digest: got.value.digest }) : fail(got.kind, `${label}: ${got.error}`);
}

/**
 * source-controller's `valuesFiles`: their merge replaces the chart's default values (values.yaml
 * counts only when listed). Local charts resolve them in the source, pulled ones in the chart.
 */
function mergedValuesFiles(files: string[], ignoreMissing: boolean, read: (p: string) => string | undefined, label: string): Result<Record<string, any>, RenderError> {
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

export async function renderHelmReleaseImpl(model: RepoModel, hr: HelmReleaseNode, opts: RenderOptions): Promise<Result<HelmRenderResult, RenderError>> {
  const label = hrLabel(hr);
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  const namespace = hr.targetNamespace;
  const hrNamespace = hr.applied.namespace ?? 'default';
  // helm-controller refuses these before it renders; so does the preview (and a chart fetch never sees them).
  const ref = hr.chartSourceRef;
  const source = ref ? findSource(model.sourceIndex, ref.kind, ref.name, ref.namespace, hr.applied.object.doc.file.path) : undefined;
  const problems = helmReleaseValueProblems(hr, source);
  // As the model renders it: the version the repository pins for the cluster, else the default.
  const kubeVersion = opts.kubeVersion ?? clusterKubeVersion(model, hr.applied.cluster).version;
  const kubeProblem = kubeVersionProblem(kubeVersion);
  if (problems.length || kubeProblem) {
    const lines = problems.length ? [describeLocated(problems, model.workspace.root)] : [];
    if (kubeProblem) lines.push(`  Kubernetes version (kubeVersion option): ${kubeProblem}`);
    return fail('invalid', `${label}: helm-controller would refuse these values:\n${lines.join('\n')}`);
  }
  const vals = helmReleaseValues(model, hr.applied.cluster, spec, hrNamespace, opts.revealSecretValues === true);
  if (vals.error) return fail('invalid', `${label}: ${vals.error}`);
  const warnings = [...vals.warnings];
  const loc = locateChart(model, hr);
  if (!loc.ok) return loc;

  const chartSpec = asRecord(asRecord(spec.chart)?.spec) ?? {};
  const valuesFiles = asArray(chartSpec.valuesFiles).filter((f): f is string => typeof f === 'string');
  let chartFiles: MemFile[];
  const budget = new InputBudget();
  let readValuesFile: (f: string) => string | undefined;
  let chartDigest: { digest: string; from: 'workspace' | 'chart cache' };
  if (loc.value.kind === 'local') {
    chartFiles = diskDirFiles(model.workspace, loc.value.dir, budget);
    chartDigest = { digest: chartFilesDigest(chartFiles), from: 'workspace' };
    const view = loc.value.view;
    readValuesFile = (f) => {
      // source-controller joins values file paths securely: `..` stops at the source root.
      const real = view.file(clampVirtual(f));
      return real ? model.workspace.readText(real) : undefined;
    };
  } else {
    const fetched = await remoteChart(loc.value, opts, label);
    if (!fetched.ok) return fetched;
    chartFiles = cachedChartFiles(fetched.value.digest, () => diskDirFiles(model.workspace, fetched.value.dir, budget));
    chartDigest = { digest: fetched.value.digest, from: 'chart cache' };
    readValuesFile = (f) => {
      const want = normalizeVirtual(f) ?? f;
      const file = chartFiles.find((c) => c.path === want);
      return file === undefined ? undefined : typeof file.data === 'string' ? file.data : Buffer.from(file.data).toString('utf8');
    };
  }
  if (valuesFiles.length) {
    // source-controller replaces the chart's values.yaml with the merge of spec.chart.spec.valuesFiles.
    const merged = mergedValuesFiles(valuesFiles, chartSpec.ignoreMissingValuesFiles === true, readValuesFile, label);
    if (!merged.ok) return merged;
    chartFiles = [...chartFiles.filter((f) => f.path !== 'values.yaml'), { path: 'values.yaml', data: JSON.stringify(merged.value) }];
  }

  const values = structuredClone(vals.values);
  const incompleteValues = [...vals.warnings];
  if (maskSops(values)) {
    warnings.push('Some values are SOPS-encrypted: they are shown as *** (never decrypted).');
    incompleteValues.push('Some values are SOPS-encrypted: they are shown as *** (never decrypted).');
  }
  const install = asRecord(spec.install) ?? {};
  const crds = asString(install.crds) ?? 'Create';
  const postRenderers = asArray(spec.postRenderers).map((p) => asRecord(asRecord(p)?.kustomize)).filter((k): k is Record<string, any> => !!k);
  const args = {
    // The instance keeps the chart loaded under this key, so the next render of it sends no files.
    chartKey: createHash('sha256').update(`${chartDigest.digest}\0${valuesFiles.length ? (chartFiles.find((f) => f.path === 'values.yaml')?.data ?? '') : ''}`).digest('hex'),
    releaseName: hr.releaseName,
    namespace,
    kubeVersion,
    // The crds/ folder is always rendered, then kept apart: helm installs it outside the release
    // manifest (post-renderers never see it), by the CRD policy.
    includeCRDs: true,
    skipTests: true,
    values,
    objects: true,
    texts: postRenderers.length > 0,
  };
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const templated = fromWasm(await callHelm('helm', args, chartFiles, { timeoutMs, signal: opts.signal }), label, 'helm template', budget.describe());
  if (!templated.ok) {
    const error: RenderError = { ...templated.error, incompleteValues };
    if (templated.error.stderr?.includes(SCHEMA_FAILURE)) {
      const violations = await valuesViolations(args, chartFiles, { timeoutMs, signal: opts.signal });
      if (violations) error.violations = violations;
    }
    return { ok: false, error };
  }

  // Post-renderers drop helm's `# Source:` comments; remember them by object identity first.
  const origins = new Map<string, RenderedObject['origin']>();
  // The module answers each document as data (the JSON Kubernetes decodes from its YAML), so
  // megabytes of CRDs are not parsed again here; with its text when a post-renderer needs it.
  type Parsed = { js: unknown; error?: string };
  const crdDocs: Parsed[] = [];
  let manifestDocs: Parsed[] = [];
  const manifestTexts: string[] = [];
  const documents = renderedDocuments(templated.value);
  if (!documents) return fail('build-failed', `${label}: the helm module answered something that is not JSON`);
  for (const doc of documents) {
    const parsed: Parsed = doc.error !== undefined ? { js: undefined, error: doc.error } : { js: doc.json };
    const o = asRecord(parsed.js);
    const origin = sourceOrigin(doc.source, loc.value);
    if (o && origin) origins.set(`${o.kind}/${asString(asRecord(o.metadata)?.name)}`, origin);
    if (doc.crd) crdDocs.push(parsed);
    else {
      manifestDocs.push(parsed);
      if (doc.text !== undefined) manifestTexts.push(doc.text);
    }
  }
  if (postRenderers.length && manifestDocs.length) {
    const post = await kustomizePostRender(manifestTexts.join(''), postRenderers, opts, label);
    if (!post.ok) return post;
    manifestDocs = parseAllDocuments(post.value, QUIET).map((doc) => (doc.errors.length ? { js: undefined, error: doc.errors[0].message } : { js: doc.toJS() }));
  }

  let hooks = 0;
  // The crds/ folder is applied by helm-controller itself (action/crds.go), with its origin labels
  // only: commonMetadata is a post-renderer of the release manifest, which never holds those CRDs.
  const toObjects = (docs: readonly Parsed[], postRendered: boolean): Result<RenderedObject[], RenderError> => {
    const out: RenderedObject[] = [];
    for (const doc of docs) {
      if (doc.error !== undefined) return fail('build-failed', `${label}: helm output is not valid YAML: ${doc.error.split('\n')[0]}`);
      const obj = asRecord(doc.js);
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
      if (common && postRendered) setCommonMetadata(obj, asRecord(common.labels), asRecord(common.annotations));
      obj.metadata.labels = { ...(asRecord(obj.metadata.labels) ?? {}), [HELM_NAME_LABEL]: hr.applied.name, [HELM_NAMESPACE_LABEL]: hrNamespace };
      const rendered = obj as RenderedObject;
      const origin = origins.get(`${obj.kind}/${asString(obj.metadata?.name)}`);
      if (origin) rendered.origin = origin;
      out.push(rendered);
    }
    return ok(out);
  };
  const chartCrds = toObjects(crdDocs, false);
  if (!chartCrds.ok) return chartCrds;
  const released = toObjects(manifestDocs, true);
  if (!released.ok) return released;
  const objects = crds === 'Skip' ? released.value : [...chartCrds.value, ...released.value];
  if (hooks) warnings.push(`${hooks} Helm hook object(s) left out: hooks run during install/upgrade and are not part of the release manifest.`);
  const unread = unreadTopLevelValues(asRecord(spec.values) ?? {}, chartFiles);
  return ok({ objects, chartCrds: chartCrds.value, warnings, incompleteValues, releaseName: hr.releaseName, namespace, chart: loc.value.display, chartInfo: chartInfoOf(chartFiles, chartDigest), values, unread: unread.keys, chartKeys: unread.known });
}

/** One rendered document as the helm module answers it (wasm/cmd/helm/objects.go). */
interface RenderedDocument {
  source: string;
  crd: boolean;
  json?: unknown;
  error?: string;
  text?: string;
}

function renderedDocuments(answer: string): RenderedDocument[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return undefined;
  }
  return asArray(asRecord(parsed)?.docs).map((d) => {
    const o = asRecord(d) ?? {};
    return { source: asString(o.source) ?? '', crd: o.crd === true, json: o.json, error: asString(o.error), text: asString(o.text) };
  });
}

/** Name and version of the chart's Chart.yaml, with the digest that identifies its content. */
function chartInfoOf(files: readonly MemFile[], digest: { digest: string; from: 'workspace' | 'chart cache' }): HelmRenderResult['chartInfo'] {
  let named = chartNames.get(digest.digest);
  if (!named) {
    const file = files.find((f) => f.path === 'Chart.yaml');
    let meta: Record<string, any> = {};
    try {
      meta = asRecord(parseYaml(typeof file?.data === 'string' ? file.data : Buffer.from(file?.data ?? '').toString('utf8'))) ?? {};
    } catch {
      // helm read it: it parses.
    }
    named = { name: asString(meta.name) ?? '', version: String(meta.version ?? '') };
    if (chartNames.size >= 1024) chartNames.clear();
    chartNames.set(digest.digest, named);
  }
  return { ...named, ...digest };
}

/** Chart.yaml's name and version by the chart's digest (which names its files' content). */
const chartNames = new Map<string, { name: string; version: string }>();

/** The sha256 of a chart folder's files (paths and bytes, in path order): what identifies a workspace chart. */
export function chartFilesDigest(files: readonly MemFile[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update(`${f.path}\0${f.data.length}\0`);
    h.update(f.data);
  }
  return h.digest('hex');
}

/** A document's source as helm names it (`chart/templates/x.yaml`) → the template file, for local charts. */
function sourceOrigin(source: string, loc: ChartLocation): RenderedObject['origin'] {
  if (loc.kind !== 'local') return undefined;
  const m = /^[^/]+\/(.+)$/.exec(source);
  return m ? { file: `${loc.dir}/${m[1].trim()}`, docIndex: 0 } : undefined;
}

/** helm-controller's Kustomize post-renderer: patches and images over the rendered manifest. */
async function kustomizePostRender(manifest: string, renderers: Record<string, any>[], opts: RenderOptions, label: string): Promise<Result<string, RenderError>> {
  let current = manifest;
  for (const [i, r] of renderers.entries()) {
    const k: Record<string, unknown> = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['all.yaml'] };
    const patches = asArray(r.patches).map((p) => asRecord(p)).filter((p): p is Record<string, any> => !!p);
    if (patches.length) k.patches = patches.map((p) => (p.target ? { patch: p.patch, target: p.target } : { patch: p.patch }));
    const images = asArray(r.images);
    if (images.length) k.images = images;
    const files: MemFile[] = [
      { path: 'all.yaml', data: current },
      { path: 'kustomization.yaml', data: stringifyYaml(k, { lineWidth: 0 }) },
    ];
    const result = await wasmModule('kustomize').call('kustomize', { dir: '' }, files, { timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal: opts.signal });
    const built = fromWasm(result, `${label}: spec.postRenderers[${i}].kustomize`, 'kustomize build');
    if (!built.ok) return built;
    current = built.value;
  }
  return ok(current);
}
