/**
 * `.Capabilities.KubeVersion` for the model's HelmRelease renders. helm's own default (v1.20) is
 * refused by most charts of today (`kubeVersion: ">=1.25.0-0"`), so a render would fail where the
 * cluster's succeeds: the version the repository pins for its cluster is used, else
 * DEFAULT_KUBE_VERSION.
 *
 * Pins read (from the repository's YAML, Talos machine-config templates included):
 *   - `kubernetesVersion: v1.36.4` at the top of a talhelper `talconfig.yaml` or a `topf.yaml`;
 *   - the kubelet or kube-apiserver image of a Talos machine config (`ghcr.io/siderolabs/kubelet:v1.36.4`);
 *   - a value Renovate keeps at the kubelet's version (`# renovate: … depName=ghcr.io/siderolabs/kubelet`
 *     over `k8s_version: v1.36.2`).
 * A file under a folder named like one cluster counts for that cluster only; among several pins,
 * the newest wins (charts state lower bounds far more often than upper ones).
 */
import type { RepoModel, ClusterModel } from '../model/types';
import type { SourceFile } from '../yaml/document';
import { bootstrapFiles } from '../bootstrap/files';

/**
 * A recent Kubernetes minor release, for repositories that pin none: new enough for the charts
 * of today, and what the integration tests' API server runs. Documented in docs/fidelity.md.
 */
export const DEFAULT_KUBE_VERSION = '1.33.0';

export interface KubeVersionPin {
  readonly version: string;
  readonly file: string;
  readonly line: number;
}

const PIN_PATTERNS: readonly RegExp[] = [
  /^kubernetesVersion:[ \t]*["']?v?(\d{1,3}\.\d{1,3}\.\d{1,4})["']?[ \t]*(?:#.*)?$/gm,
  /(?:siderolabs\/kubelet|\/kube-apiserver|\/kubelet):v(\d{1,3}\.\d{1,3}\.\d{1,4})\b/g,
  /#\s*renovate:[^\n]*depName=ghcr\.io\/siderolabs\/kubelet[^\n]*\n[ \t]*[A-Za-z0-9_.-]+:[ \t]*["']?v?(\d{1,3}\.\d{1,3}\.\d{1,4})["']?/g,
];

const pinsMemo = new WeakMap<SourceFile, readonly KubeVersionPin[]>();

function pinsOf(file: SourceFile): readonly KubeVersionPin[] {
  let pins = pinsMemo.get(file);
  if (pins) return pins;
  const text = file.text;
  const found: KubeVersionPin[] = [];
  // Most files hold none of it: one scan for the words before the patterns.
  if (text.includes('kubernetesVersion') || text.includes('kubelet') || text.includes('kube-apiserver')) {
    for (const pattern of PIN_PATTERNS) {
      for (const m of text.matchAll(pattern)) found.push({ version: m[1], file: file.path, line: file.lines.position(m.index! + m[0].indexOf(m[1])).line + 1 });
    }
  }
  pinsMemo.set(file, (pins = found));
  return pins;
}

const repoMemo = new WeakMap<RepoModel, readonly KubeVersionPin[]>();

/** Every pin of the repository, in file order. */
export function kubeVersionPins(model: RepoModel): readonly KubeVersionPin[] {
  let pins = repoMemo.get(model);
  if (!pins) repoMemo.set(model, (pins = bootstrapFiles(model.workspace).yaml.flatMap(pinsOf)));
  return pins;
}

/** The version `cluster`'s HelmReleases are rendered at, and where it comes from (for the tree). */
export function clusterKubeVersion(model: RepoModel, cluster: ClusterModel): { version: string; origin: string } {
  const root = model.workspace.root;
  const names = new Set(model.clusters.map((c) => c.name));
  const named = (p: KubeVersionPin) => p.file.slice(root.length + 1).split('/').filter((seg) => names.has(seg));
  const pins = kubeVersionPins(model).filter((p) => {
    const n = named(p);
    return n.length === 0 || n.includes(cluster.name);
  });
  // A pin in a folder of this cluster's name beats one for every cluster.
  const own = pins.filter((p) => named(p).includes(cluster.name));
  const best = newest(own.length ? own : pins);
  if (!best) return { version: DEFAULT_KUBE_VERSION, origin: `no version pinned in the repository: the default ${DEFAULT_KUBE_VERSION}` };
  return { version: best.version, origin: `pinned in ${best.file.slice(root.length + 1)}:${best.line}` };
}

/** `1.33.0` → a number that orders Kubernetes releases by major and minor. */
export function kubeMinor(version: string): number {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major * 1000 + (minor || 0);
}

function newest(pins: readonly KubeVersionPin[]): KubeVersionPin | undefined {
  let best: KubeVersionPin | undefined;
  for (const p of pins) if (!best || compare(p.version, best.version) > 0) best = p;
  return best;
}

function compare(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return 0;
}
