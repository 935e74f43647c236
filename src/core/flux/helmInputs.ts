/**
 * Every value of a HelmRelease and its chart source that reaches a helm command line (release
 * name, namespaces, chart name, version, repository URL, OCI tag/semver/digest), checked with the
 * rules Flux and the API server apply, and located (file, line, field) for the message.
 */
import type { HelmReleaseNode } from '../model/types';
import { asArray, asRecord, asString, type KubeObject } from '../model/objects';
import { parsePath } from './helmValues';
import { rangeAt, type PathSegment } from '../yaml/document';
import {
  chartNameProblem,
  chartRepoUrlProblem,
  namespaceProblem,
  ociChartNameProblem,
  ociDigestProblem,
  ociTagProblem,
  ociUrlProblem,
  releaseNameProblem,
  versionConstraintProblem,
} from './validation';

export interface LocatedProblem {
  /** Workspace path of the file. */
  file: string;
  /** 1-based line of the field (or of the nearest part of it that is written). */
  line: number;
  field: string;
  reason: string;
}

function locate(obj: KubeObject, path: PathSegment[], field: string, reason: string): LocatedProblem {
  let line = 1;
  if (!obj.synthetic) {
    try {
      line = rangeAt(obj.doc, path).start.line + 1;
    } catch {
      line = 1;
    }
  }
  return { file: obj.file, line, field, reason };
}

function check(out: LocatedProblem[], obj: KubeObject, path: PathSegment[], field: string, value: string | undefined, rule: (v: string) => string | undefined): void {
  if (value === undefined) return;
  const reason = rule(value);
  if (reason) out.push(locate(obj, path, field, reason));
}

/** Problems with the values helm would be given for `hr`; `source` is its chart source object when in the workspace. */
export function helmReleaseValueProblems(hr: HelmReleaseNode, source: KubeObject | undefined): LocatedProblem[] {
  const out: LocatedProblem[] = [];
  const obj = hr.applied.object;
  const spec = asRecord(obj.body.spec) ?? {};
  const written = asString(spec.releaseName);
  if (written) check(out, obj, ['spec', 'releaseName'], 'spec.releaseName', written, releaseNameProblem);
  else check(out, obj, ['metadata', 'name'], `release name '[spec.targetNamespace-]metadata.name' = '${hr.releaseName}'`, hr.releaseName, releaseNameProblem);
  if (asString(spec.targetNamespace)) check(out, obj, ['spec', 'targetNamespace'], 'spec.targetNamespace', hr.targetNamespace, namespaceProblem);
  else check(out, obj, ['metadata', 'namespace'], 'metadata.namespace', hr.targetNamespace, namespaceProblem);
  if (asString(spec.storageNamespace)) check(out, obj, ['spec', 'storageNamespace'], 'spec.storageNamespace', hr.storageNamespace, namespaceProblem);

  asArray(spec.valuesFrom).forEach((entry, i) => {
    check(out, obj, ['spec', 'valuesFrom', i, 'targetPath'], `spec.valuesFrom[${i}].targetPath`, asString(asRecord(entry)?.targetPath) || undefined, targetPathProblem);
  });

  const chartSpec = asRecord(asRecord(spec.chart)?.spec);
  const ref = hr.chartSourceRef;
  const sourceSpec = asRecord(source?.body.spec) ?? {};
  const chartPath: PathSegment[] = ['spec', 'chart', 'spec'];
  if (chartSpec && ref?.kind === 'HelmRepository') {
    const url = asString(sourceSpec.url);
    const oci = sourceSpec.type === 'oci' || url?.startsWith('oci://') === true;
    check(out, obj, [...chartPath, 'chart'], 'spec.chart.spec.chart', asString(chartSpec.chart) ?? '', oci ? ociChartNameProblem : chartNameProblem);
    const version = asString(chartSpec.version);
    if (version && version !== '*') check(out, obj, [...chartPath, 'version'], 'spec.chart.spec.version', version, versionConstraintProblem);
    if (source) check(out, source, ['spec', 'url'], 'spec.url', url ?? '', oci ? ociUrlProblem : chartRepoUrlProblem);
  }
  if (ref?.kind === 'OCIRepository' && source) {
    check(out, source, ['spec', 'url'], 'spec.url', asString(sourceSpec.url) ?? '', ociUrlProblem);
    const r = asRecord(sourceSpec.ref) ?? {};
    check(out, source, ['spec', 'ref', 'tag'], 'spec.ref.tag', asString(r.tag), ociTagProblem);
    check(out, source, ['spec', 'ref', 'semver'], 'spec.ref.semver', asString(r.semver), versionConstraintProblem);
    check(out, source, ['spec', 'ref', 'digest'], 'spec.ref.digest', asString(r.digest), ociDigestProblem);
  }
  return out;
}

/** helm-controller sets a targetPath through Helm's `--set` parser, which refuses what parsePath refuses. */
function targetPathProblem(path: string): string | undefined {
  try {
    parsePath(path);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** One line per problem, paths relative to `root`. */
export function describeLocated(problems: readonly LocatedProblem[], root: string): string {
  return problems.map((p) => `  ${p.file.startsWith(root + '/') ? p.file.slice(root.length + 1) : p.file}:${p.line}: ${p.field}: ${p.reason}`).join('\n');
}
