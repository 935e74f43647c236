/**
 * The CustomResourceDefinitions a kube context serves, reduced to what schema validation, hover and
 * completion read: plain data, so it crosses to the engine's worker and is kept on disk per context
 * as it is. The cluster's text is untrusted (see SchemaSource.trusted).
 */
import { asArray, asRecord, asString } from '../model/objects';

export interface ServedCrd {
  /** `metadata.name`: `widgets.example.com`. */
  readonly name: string;
  readonly group: string;
  readonly kind: string;
  /** Served versions with a schema (`openAPIV3Schema`, as the API server holds it). */
  readonly versions: readonly { readonly name: string; readonly schema: Record<string, unknown> }[];
}

export interface ClusterCrds {
  /** The kubeconfig context, for messages: `CRD widgets.example.com (cluster prod)`. */
  readonly context: string;
  readonly server: string;
  readonly crds: readonly ServedCrd[];
}

/** A CRD object (from the cluster, a file or a chart) as the schemas it serves; undefined when it serves none. */
export function servedCrdOf(body: unknown): ServedCrd | undefined {
  const spec = asRecord(asRecord(body)?.spec);
  const group = asString(spec?.group);
  const kind = asString(asRecord(spec?.names)?.kind);
  const name = asString(asRecord(asRecord(body)?.metadata)?.name) ?? '';
  if (!group || !kind) return undefined;
  const versions: { name: string; schema: Record<string, unknown> }[] = [];
  for (const v of asArray(spec?.versions)) {
    const version = asRecord(v);
    const schema = asRecord(asRecord(version?.schema)?.openAPIV3Schema);
    const versionName = asString(version?.name);
    if (!version || version.served === false || !schema || !versionName) continue;
    versions.push({ name: versionName, schema });
  }
  return versions.length ? { name, group, kind, versions } : undefined;
}

/**
 * A value read back from disk, checked field by field: the ClusterCrds it holds, or why it is not
 * one. A CRD entry of the wrong shape is dropped, not the whole set.
 */
export function clusterCrdsFrom(value: unknown): { crds: ClusterCrds } | { error: string } {
  const v = asRecord(value);
  const context = asString(v?.context);
  const server = asString(v?.server);
  if (!v || context === undefined || server === undefined || !Array.isArray(v.crds)) return { error: 'not a set of CRDs (context, server, crds)' };
  const crds: ServedCrd[] = [];
  for (const c of v.crds as unknown[]) {
    const crd = asRecord(c);
    const versions = asArray(crd?.versions).flatMap((x) => {
      const version = asRecord(x);
      const name = asString(version?.name);
      const schema = asRecord(version?.schema);
      return name && schema ? [{ name, schema }] : [];
    });
    const name = asString(crd?.name);
    const group = asString(crd?.group);
    const kind = asString(crd?.kind);
    if (name !== undefined && group && kind && versions.length) crds.push({ name, group, kind, versions });
  }
  return { crds: { context, server, crds } };
}
