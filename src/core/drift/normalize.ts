/**
 * Normalisation as Flux does it before a dry-run (fluxcd/pkg ssa/normalize) and the metadata noise
 * it ignores when showing a diff.
 */
import type { KubeJson } from '../kubeJson';
import { clone, isRecord } from './types';

const POD_TEMPLATE_PATHS: Record<string, string[][]> = {
  Pod: [['spec']],
  Deployment: [['spec', 'template', 'spec']],
  StatefulSet: [['spec', 'template', 'spec']],
  DaemonSet: [['spec', 'template', 'spec']],
  ReplicaSet: [['spec', 'template', 'spec']],
  Job: [['spec', 'template', 'spec']],
  CronJob: [['spec', 'jobTemplate', 'spec', 'template', 'spec']],
};

const CORE_GROUPS: Record<string, string[]> = {
  Pod: ['v1'],
  Service: ['v1'],
  Secret: ['v1'],
  Deployment: ['apps/v1'],
  StatefulSet: ['apps/v1'],
  DaemonSet: ['apps/v1'],
  ReplicaSet: ['apps/v1'],
  Job: ['batch/v1'],
  CronJob: ['batch/v1'],
};

/**
 * A copy of a desired object the way kustomize-controller and helm-controller send it: Secret
 * stringData folded into base64 data, TCP as the default port protocol in pod templates and
 * Services, `creationTimestamp: null`, and no `status` (kept for CRDs).
 */
export function normalizeDesired(obj: KubeJson): KubeJson {
  const o = clone(obj);
  const kind = String(o.kind ?? '');
  const apiVersion = String(o.apiVersion ?? '');
  // Flux skips Role/ClusterRole (kustomize-controller#1041: the typed round trip resets rules).
  const rbacSkip = apiVersion === 'rbac.authorization.k8s.io/v1' && (kind === 'Role' || kind === 'ClusterRole');
  if (!rbacSkip && CORE_GROUPS[kind]?.includes(apiVersion)) {
    for (const p of POD_TEMPLATE_PATHS[kind] ?? []) defaultContainerPortProtocol(get(o, p));
    if (kind === 'Service') defaultPortProtocol(o.spec?.ports);
    if (kind === 'Secret') foldStringData(o);
  }
  if (!isRecord(o.metadata)) o.metadata = {};
  o.metadata.creationTimestamp = null;
  if (!(kind === 'CustomResourceDefinition' && apiVersion.startsWith('apiextensions.k8s.io/'))) delete o.status;
  return o;
}

function get(o: unknown, path: string[]): unknown {
  let cur = o;
  for (const p of path) cur = isRecord(cur) ? cur[p] : undefined;
  return cur;
}

function defaultContainerPortProtocol(podSpec: unknown): void {
  if (!isRecord(podSpec) || !Array.isArray(podSpec.containers)) return;
  for (const c of podSpec.containers) if (isRecord(c)) defaultPortProtocol(c.ports);
}

function defaultPortProtocol(ports: unknown): void {
  if (!Array.isArray(ports)) return;
  for (const p of ports) if (isRecord(p) && !p.protocol) p.protocol = 'TCP';
}

function foldStringData(secret: KubeJson): void {
  const sd = secret.stringData;
  if (!isRecord(sd) || Object.keys(sd).length === 0) {
    delete secret.stringData;
    return;
  }
  if (!isRecord(secret.data)) secret.data = {};
  for (const [k, v] of Object.entries(sd)) secret.data[k] = base64Utf8(String(v ?? ''));
  delete secret.stringData;
}

/** base64 of a string's UTF-8 bytes, without Buffer (core stays free of Node-only globals). */
export function base64Utf8(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function fromBase64Utf8(s: string): string | undefined {
  try {
    const bin = atob(s);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Metadata the server maintains: never drift, only noise in a diff. */
const NOISE_METADATA = ['managedFields', 'resourceVersion', 'uid', 'generation', 'creationTimestamp', 'selfLink'];

/** A copy for display and field comparison: no status, no server-maintained metadata. */
export function withoutNoise(obj: KubeJson): KubeJson {
  const o = clone(obj);
  delete o.status;
  if (isRecord(o.metadata)) {
    for (const k of NOISE_METADATA) delete o.metadata[k];
  }
  return o;
}
