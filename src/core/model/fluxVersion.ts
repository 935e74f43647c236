import type { ClusterModel } from './types';
import { asRecord, asString, type KubeObject } from './objects';
import { syncVersionOf } from './fluxOperator';

/** The Flux version a cluster runs, as the repository pins it, and where. */
export interface FluxVersion {
  readonly major: number;
  readonly minor: number;
  /** As written (`v2.4.0`, `2.9.4`, `2.8.x`). */
  readonly text: string;
  /** What pins it, for messages: `flux-manifests OCIRepository tag`, `FluxInstance distribution.version`, … */
  readonly source: string;
}

const cache = new WeakMap<ClusterModel, FluxVersion | null>();

/**
 * Read from what installs Flux in the cluster: the FluxInstance that creates its root
 * (`distribution.version`), an OCIRepository of `fluxcd/flux-manifests` or a GitRepository of
 * `fluxcd/flux2` (its tag), or the `# Flux Version:` header `flux install`/`flux bootstrap` write
 * into gotk-components.yaml.
 * Undefined when none is found or the version is a range such as `2.x` (the latest release).
 */
export function fluxVersionOf(cluster: ClusterModel): FluxVersion | undefined {
  const known = cache.get(cluster);
  if (known !== undefined) return known ?? undefined;
  const found = findVersion(cluster) ?? null;
  cache.set(cluster, found);
  return found ?? undefined;
}

function findVersion(cluster: ClusterModel): FluxVersion | undefined {
  const root = cluster.root.applied.object;
  const origin = root.origin;
  const synced = syncVersionOf(root);
  const own = origin && (fluxVersionIn(origin) ?? parseFluxVersion(synced, `${origin.kind} ${origin.namespace ?? ''}/${origin.name} distribution.version`));
  if (own) return own;
  for (const applied of cluster.objects) {
    if (applied.object.fluxKind !== 'OCIRepository' && applied.object.fluxKind !== 'GitRepository') continue;
    const v = fluxVersionIn(applied.object, `${applied.namespace ?? ''}/${applied.name}`);
    if (v) return v;
  }
  for (const applied of cluster.objects) {
    const v = headerVersion(applied.object);
    if (v) return v;
  }
  return undefined;
}

/**
 * The Flux release one object pins, if it is one of those that install Flux (see fluxVersionOf);
 * `id` names it in messages (`namespace/name` as applied).
 */
export function fluxVersionIn(o: KubeObject, id = `${o.namespace ?? ''}/${o.name}`): FluxVersion | undefined {
  const spec = asRecord(o.body.spec);
  if (o.kind === 'FluxInstance' || o.fluxKind === 'HelmRelease') {
    const instance = o.kind === 'FluxInstance' ? spec : asRecord(asRecord(spec?.values)?.instance);
    const v = asRecord(instance?.distribution)?.version;
    return parseFluxVersion(typeof v === 'number' ? String(v) : asString(v), `${o.kind} ${o.namespace ?? ''}/${o.name} distribution.version`);
  }
  if (o.fluxKind === 'OCIRepository') {
    if (!/fluxcd\/flux-manifests$/.test(asString(spec?.url) ?? '')) return undefined;
    return parseFluxVersion(asString(asRecord(spec?.ref)?.tag), `OCIRepository ${id} (flux-manifests) tag`);
  }
  // Flux installed from the manifests of a flux2 release tag (`./manifests/install` of fluxcd/flux2).
  if (o.fluxKind === 'GitRepository') {
    if (!/github\.com[/:]fluxcd\/flux2(\.git)?\/?$/.test(asString(spec?.url) ?? '')) return undefined;
    return parseFluxVersion(asString(asRecord(spec?.ref)?.tag), `GitRepository ${id} (fluxcd/flux2) tag`);
  }
  return headerVersion(o);
}

function headerVersion(o: KubeObject): FluxVersion | undefined {
  if (!o.file.endsWith('/gotk-components.yaml')) return undefined;
  const m = /^#\s*Flux\s+Version:\s*(\S+)/im.exec(o.doc.file.text.slice(0, 2000));
  return parseFluxVersion(m?.[1], 'gotk-components.yaml header');
}

/** A release as written (`v2.4.0`, `2.9.4`, `2.8.x`); undefined for ranges such as `2.x`. */
export function parseFluxVersion(text: string | undefined, source: string): FluxVersion | undefined {
  const m = text ? /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$|^v?(\d+)\.(\d+)\.x$/.exec(text.trim()) : null;
  if (!m) return undefined;
  const major = Number(m[1] ?? m[3]);
  const minor = Number(m[2] ?? m[4]);
  return { major, minor, text: text!.trim(), source };
}
