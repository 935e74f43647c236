import type { ClusterModel } from './types';
import { asRecord, asString, type KubeObject } from './objects';

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
  const origin = cluster.root.applied.object.origin;
  if (origin) {
    const spec = asRecord(origin.body.spec);
    const instance = origin.kind === 'FluxInstance' ? spec : asRecord(asRecord(spec?.values)?.instance);
    const v = asRecord(instance?.distribution)?.version;
    const parsed = parse(typeof v === 'number' ? String(v) : asString(v), `${origin.kind} ${origin.namespace ?? ''}/${origin.name} distribution.version`);
    if (parsed) return parsed;
  }
  for (const applied of cluster.objects) {
    const o = applied.object;
    if (o.fluxKind === 'OCIRepository') {
      const spec = asRecord(o.body.spec);
      if (!/fluxcd\/flux-manifests$/.test(asString(spec?.url) ?? '')) continue;
      const parsed = parse(asString(asRecord(spec?.ref)?.tag), `OCIRepository ${applied.namespace}/${applied.name} (flux-manifests) tag`);
      if (parsed) return parsed;
    }
    // Flux installed from the manifests of a flux2 release tag (`./manifests/install` of fluxcd/flux2).
    if (o.fluxKind === 'GitRepository') {
      const spec = asRecord(o.body.spec);
      if (!/github\.com[/:]fluxcd\/flux2(\.git)?\/?$/.test(asString(spec?.url) ?? '')) continue;
      const parsed = parse(asString(asRecord(spec?.ref)?.tag), `GitRepository ${applied.namespace}/${applied.name} (fluxcd/flux2) tag`);
      if (parsed) return parsed;
    }
  }
  for (const applied of cluster.objects) {
    const parsed = headerVersion(applied.object);
    if (parsed) return parsed;
  }
  return undefined;
}

function headerVersion(o: KubeObject): FluxVersion | undefined {
  if (!o.file.endsWith('/gotk-components.yaml')) return undefined;
  const m = /^#\s*Flux\s+Version:\s*(\S+)/im.exec(o.doc.file.text.slice(0, 2000));
  return parse(m?.[1], 'gotk-components.yaml header');
}

function parse(text: string | undefined, source: string): FluxVersion | undefined {
  const m = text ? /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$|^v?(\d+)\.(\d+)\.x$/.exec(text.trim()) : null;
  if (!m) return undefined;
  const major = Number(m[1] ?? m[3]);
  const minor = Number(m[2] ?? m[4]);
  return { major, minor, text: text!.trim(), source };
}
