import { trimEndChars } from '../text';

/**
 * The rules Flux (and the Kubernetes API server in front of it) applies to values that end up on a
 * helm or kustomize command line. A value that breaks them never reaches a cluster, so the preview
 * refuses it too, before any process starts: an argument array stops shell injection, not a value
 * that the tool itself parses as a flag (`--post-renderer=sh` as a release name).
 *
 * Each check returns undefined when the value is valid, else the reason (no field name: callers
 * say which field and file).
 */

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Helm's `chartutil.ValidateReleaseName` and helm-controller's `spec.releaseName` maxLength. */
export const MAX_RELEASE_NAME_LENGTH = 53;
const SHORT_HASH_LENGTH = 12;

function shown(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Kubernetes' IsDNS1123Label: namespaces, most object names. */
export function dns1123LabelProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 63) return `${shown(value)} is longer than 63 characters`;
  if (!DNS1123_LABEL.test(value)) return `${shown(value)} must consist of lower case alphanumeric characters or '-', and start and end with an alphanumeric character (RFC 1123 label)`;
  return undefined;
}

/** Kubernetes' IsDNS1123Subdomain. */
export function dns1123SubdomainProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 253) return `${shown(value)} is longer than 253 characters`;
  if (!DNS1123_SUBDOMAIN.test(value)) return `${shown(value)} must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character (RFC 1123 subdomain)`;
  return undefined;
}

export function namespaceProblem(value: string): string | undefined {
  return dns1123LabelProblem(value);
}

/** Helm's release name rule (helm install/template refuse anything else). */
export function releaseNameProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_RELEASE_NAME_LENGTH) return `${shown(value)} is longer than ${MAX_RELEASE_NAME_LENGTH} characters`;
  if (!DNS1123_SUBDOMAIN.test(value)) return `${shown(value)} is not a valid Helm release name: lower case alphanumeric characters, '-' or '.', starting and ending with an alphanumeric character`;
  return undefined;
}

/**
 * helm-controller's `release.ShortenName`: a name past 53 characters becomes its first 40
 * characters, '-', and the first 12 hex digits of its SHA-256.
 */
export function shortenReleaseName(name: string, sha256Hex: (s: string) => string): string {
  if (name.length <= MAX_RELEASE_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_RELEASE_NAME_LENGTH - (SHORT_HASH_LENGTH + 1))}-${sha256Hex(name).slice(0, SHORT_HASH_LENGTH)}`;
}

const CHART_NAME = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/**
 * A chart name looked up in a chart repository (HelmRepository): one path segment as Helm's
 * chart metadata allows, never a flag, a path or a URL.
 */
export function chartNameProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 2048) return `${shown(value)} is longer than 2048 characters`;
  if (!CHART_NAME.test(value) || value.includes('..')) return `${shown(value)} is not a chart name: letters, digits, '.', '_', '+' or '-', starting with a letter or digit`;
  return undefined;
}

/** A chart name under an OCI HelmRepository URL: repository path segments as OCI allows them. */
export function ociChartNameProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (!OCI_PATH.test(value)) return `${shown(value)} is not an OCI repository name: lower case path components of letters, digits and '.', '_', '-' separators`;
  return undefined;
}

/**
 * A chart version or Masterminds semver constraint (`1.2.3`, `>=1.0.0 <2.0.0`, `~1.2`, `*`) as
 * source-controller accepts in `spec.chart.spec.version` and OCIRepository `ref.semver`.
 */
export function versionConstraintProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > 256) return `${shown(value)} is longer than 256 characters`;
  if (!/^[0-9A-Za-z.+*^~<>=!|, -]+$/.test(value) || /^\s*-/.test(value) || !/[0-9*xX]/.test(value)) {
    return `${shown(value)} is not a version or semver constraint`;
  }
  return undefined;
}

/** OCI distribution-spec tag. */
export function ociTagProblem(value: string): string | undefined {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(value)) return `${shown(value)} is not an OCI tag (letters, digits, '_', '.', '-', at most 128, not starting with '.' or '-')`;
  return undefined;
}

/** OCI distribution-spec digest (`sha256:<64 hex>` and other registered algorithms). */
export function ociDigestProblem(value: string): string | undefined {
  if (!/^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/.test(value)) return `${shown(value)} is not an OCI digest (algorithm:hex, e.g. sha256:…)`;
  if (value.startsWith('sha256:') && !/^sha256:[a-f0-9]{64}$/.test(value)) return `${shown(value)} is not a sha256 digest (64 lower case hex digits)`;
  return undefined;
}

const HOST_PORT = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;
const OCI_PATH = /^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*$/;

/** An `oci://host[:port]/repository` URL (OCIRepository, OCI HelmRepository). */
export function ociUrlProblem(value: string): string | undefined {
  const m = /^oci:\/\/([^/]+)(?:\/(.*))?$/.exec(value);
  if (!m) return `${shown(value)} is not an oci:// URL`;
  if (!HOST_PORT.test(m[1])) return `${shown(value)}: '${m[1]}' is not a registry host`;
  const repo = trimEndChars(m[2] ?? '', '/');
  if (repo && !OCI_PATH.test(repo)) return `${shown(value)}: '${repo}' is not an OCI repository path (lower case letters, digits, '.', '_', '-' separated by '/')`;
  return undefined;
}

/** A chart repository URL: http(s) (index.yaml) — never a helm downloader plugin scheme or a local path. */
export function chartRepoUrlProblem(value: string): string | undefined {
  if (/[\s\u0000-\u001f\u007f]/.test(value)) return `${shown(value)} contains whitespace or control characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${shown(value)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${shown(value)}: the scheme must be http:// or https:// (or oci:// for OCI repositories)`;
  if (!url.hostname) return `${shown(value)} has no host`;
  return undefined;
}

/** `helm template --kube-version`: a Kubernetes semantic version. */
export function kubeVersionProblem(value: string): string | undefined {
  if (!/^v?\d{1,4}\.\d{1,4}(\.\d{1,6})?([-+][0-9A-Za-z.-]{1,64})?$/.test(value)) return `${shown(value)} is not a Kubernetes version (e.g. 1.33.0)`;
  return undefined;
}

/** One invalid value: the field as Flux names it and why. */
export interface ValueProblem {
  field: string;
  reason: string;
}

/** Runs `check` on `value` and records a problem under `field`. */
export function collect(out: ValueProblem[], field: string, value: string | undefined, check: (v: string) => string | undefined): void {
  if (value === undefined) return;
  const reason = check(value);
  if (reason) out.push({ field, reason });
}
