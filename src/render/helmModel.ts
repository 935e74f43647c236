/**
 * HelmRelease renders for the model (core/helm/install.ts): only from a chart already at hand — a
 * chart folder of the workspace, or one the chart cache holds — never from the network (fetching
 * stays with `build hr` and drift, behind the workspace's trust and offline mode). Each render is
 * named by a key digesting everything helm-controller's render depends on: the chart's content
 * digest, the merged values, release name and namespace, valuesFiles, post-renderers,
 * commonMetadata and the Kubernetes version. Same key, same render.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { HelmReleaseNode, RepoModel } from '../core/model/graph';
import type { HelmInstall } from '../core/helm/install';
import type { BuiltObject } from '../core/model/rendered';
import { asArray, asRecord } from '../core/model/objects';
import { clampVirtual } from '../core/model/view';
import { helmReleaseValues } from '../core/flux/helmValues';
import { maskSecrets } from '../core/flux/mask';
import type { Workspace } from '../core/workspace/workspace';
import { defaultChartCache } from './charts/cache';
import { cachedResolution, describeRequest, type FetchedChart } from './charts/fetch';
import { diskDirFiles } from './files';
import { chartFilesDigest, locateChart, renderHelmReleaseImpl } from './helm';
import type { RenderOptions } from './types';

/** Bumped when what a render holds changes shape or meaning: older cached renders are then not reused. */
const RENDER_FORMAT = 'helm-install-3';

/** Where the model's renders find charts: the chart cache they may read (never fill). */
export interface HelmModelOptions {
  /** The chart cache; default the user's (`$GITOPS_PREVIEW_CACHE/charts`, else `~/.cache/gitops-preview/charts`). Null: workspace charts only. */
  readonly cacheDir?: string | null;
  readonly env?: NodeJS.ProcessEnv;
}

export function chartCacheOf(options: HelmModelOptions): string | undefined {
  if (options.cacheDir === null) return undefined;
  return options.cacheDir ?? defaultChartCache(options.env ?? process.env);
}

/**
 * What charts are at hand, looked up once per pass (ChartsAtHand.newPass): the chart cache's
 * resolution of each chart request, and each workspace chart folder's content digest (recomputed
 * only when a file's size, time or, for files the workspace reads, text changed).
 */
export class ChartsAtHand {
  private readonly remote = new Map<string, FetchedChart | null>();
  private readonly local = new Map<string, { signature: string; digest: string }>();
  private readonly localChecked = new Set<string>();

  constructor(private readonly cacheDir: string | undefined) {}

  /** Forget this pass's answers: the cache and the chart folders may have changed since. */
  newPass(): void {
    this.remote.clear();
    this.localChecked.clear();
  }

  cached(request: Parameters<typeof cachedResolution>[0]): FetchedChart | undefined {
    if (!this.cacheDir) return undefined;
    const key = JSON.stringify(request);
    let got = this.remote.get(key);
    if (got === undefined) this.remote.set(key, (got = cachedResolution(request, this.cacheDir) ?? null));
    return got ?? undefined;
  }

  get chartCache(): string | undefined {
    return this.cacheDir;
  }

  localDigest(ws: Workspace, dir: string): string {
    const memo = this.local.get(dir);
    if (memo && this.localChecked.has(dir)) return memo.digest;
    const signature = folderSignature(ws, dir);
    this.localChecked.add(dir);
    if (memo?.signature === signature) return memo.digest;
    const digest = chartFilesDigest(diskDirFiles(ws, dir));
    this.local.set(dir, { signature, digest });
    return digest;
  }
}

/** Paths, sizes and times of a folder's files (texts of those the workspace reads: editor buffers count). */
function folderSignature(ws: Workspace, dir: string): string {
  // A commit's tree does not change under its engine.
  if (ws.hostBytes) return 'commit';
  const h = createHash('sha256');
  const walk = (abs: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name === '.git') continue;
      const p = path.join(abs, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const posix = p.split(path.sep).join('/');
        const text = ws.files.has(posix) ? ws.readText(posix) : undefined;
        if (text !== undefined) h.update(`${posix}\0t${text.length}\0${text}\0`);
        else {
          try {
            const st = fs.statSync(p);
            h.update(`${posix}\0s${st.size}\0${st.mtimeMs}\0`);
          } catch {
            // Vanished meanwhile: the next pass sees it.
          }
        }
      }
    }
  };
  walk(dir);
  return h.digest('hex');
}

export type HelmKey = { ok: true; key: string } | { ok: false; message: string };

/**
 * The key of `hr`'s render at `kubeVersion`, or why its chart is not at hand. Synchronous and
 * without the network: the model asks it on every build.
 */
export function helmRenderKey(model: RepoModel, hr: HelmReleaseNode, kubeVersion: string, charts: ChartsAtHand): HelmKey {
  const loc = locateChart(model, hr);
  if (!loc.ok) return { ok: false, message: loc.error.message };
  const spec = asRecord(hr.applied.object.body.spec) ?? {};
  const chartSpec = asRecord(asRecord(spec.chart)?.spec) ?? {};
  const valuesFiles = asArray(chartSpec.valuesFiles).filter((f): f is string => typeof f === 'string');
  let chart: string;
  let valuesFileTexts: (string | null)[] = [];
  if (loc.value.kind === 'local') {
    chart = `workspace:${charts.localDigest(model.workspace, loc.value.dir)}`;
    const view = loc.value.view;
    // Resolved in the source, not in the chart folder: their text is part of the inputs.
    valuesFileTexts = valuesFiles.map((f) => {
      const real = view.file(clampVirtual(f));
      return (real && model.workspace.readText(real)) ?? null;
    });
  } else {
    const got = charts.cached(loc.value.request);
    if (!got) {
      const chart = `chart ${describeRequest(loc.value.request)}`;
      return {
        ok: false,
        message: charts.chartCache
          ? `${chart} is not in the chart cache (${charts.chartCache}): \`gitops-preview build hr\` or Show Drift in a trusted workspace fetches it there`
          : `${chart} is not in the workspace, and no chart cache is read`,
      };
    }
    chart = `cache:${got.digest}`;
  }
  const hrNamespace = hr.applied.namespace ?? 'default';
  const vals = helmReleaseValues(model, hr.applied.cluster, spec, hrNamespace, false);
  const inputs = [
    RENDER_FORMAT,
    chart,
    hrNamespace,
    hr.applied.name,
    hr.releaseName,
    hr.targetNamespace,
    kubeVersion,
    vals.error ?? null,
    vals.values,
    valuesFiles,
    valuesFileTexts,
    chartSpec.ignoreMissingValuesFiles === true,
    spec.postRenderers ?? null,
    spec.commonMetadata ?? null,
  ];
  return { ok: true, key: createHash('sha256').update(JSON.stringify(inputs)).digest('hex') };
}

/**
 * helm-controller's render of `hr` for the model, from the chart at hand only; 'cancelled' (nothing
 * to keep: it is asked again) or 'timeout' (the machine's load, not the files': the caller decides).
 */
export async function renderHelmInstall(
  model: RepoModel,
  hr: HelmReleaseNode,
  kubeVersion: { version: string; origin: string },
  charts: ChartsAtHand,
  opts: Pick<RenderOptions, 'timeoutMs' | 'signal' | 'env'>,
): Promise<HelmInstall | 'cancelled' | 'timeout'> {
  const cacheDir = charts.chartCache;
  const r = await renderHelmReleaseImpl(model, hr, {
    ...opts,
    allowNetwork: false,
    offline: true,
    kubeVersion: kubeVersion.version,
    // Asked only for a chart helmRenderKey found at hand: without a chart cache, a workspace chart.
    ...(cacheDir ? { cacheDir } : {}),
    revealSecretValues: false,
  });
  if (!r.ok) {
    if (r.error.kind === 'cancelled' || r.error.kind === 'timeout') return r.error.kind;
    const atHand = r.error.kind !== 'not-allowed' && r.error.kind !== 'unavailable';
    return {
      ok: false,
      atHand,
      message: r.error.message,
      ...(r.error.violations ? { violations: r.error.violations } : {}),
      ...(r.error.incompleteValues?.length ? { incomplete: r.error.incompleteValues } : {}),
    };
  }
  const crdSet = new Set(r.value.chartCrds);
  const plain = (o: object) => maskSecrets(o as BuiltObject);
  return {
    ok: true,
    chart: r.value.chartInfo,
    kubeVersion,
    crds: r.value.chartCrds.map(plain),
    objects: r.value.objects.filter((o) => !crdSet.has(o)).map(plain),
    incomplete: r.value.incompleteValues,
    ...(r.value.unread.length ? { unread: { keys: r.value.unread, known: r.value.chartKeys } } : {}),
  };
}
