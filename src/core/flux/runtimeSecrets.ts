/**
 * Secrets the cluster makes at runtime from objects Flux applies (an ExternalSecret's target, an
 * operator's client Secret, a Terraform's outputs): what a Kustomization may read with
 * `postBuild.substituteFrom` though no file of the repository holds it.
 */
import type { KustomizationNode } from '../model/graph';
import { asArray, asRecord, asString, type KubeObject } from '../model/objects';

/** Kustomizations `ks` waits for, through `spec.dependsOn`, transitively. */
function upstreamOf(ks: KustomizationNode): KustomizationNode[] {
  const byKey = new Map(ks.applied.cluster.kustomizations.map((k) => [`${k.applied.namespace ?? 'default'}/${k.applied.name}`, k]));
  const seen = new Set<KustomizationNode>();
  const queue = [ks];
  for (let head = 0; head < queue.length && seen.size < 1000; head++) {
    const node = queue[head];
    for (const dep of asArray(asRecord(node.applied.object.body.spec)?.dependsOn)) {
      const d = asRecord(dep);
      const target = byKey.get(`${asString(d?.namespace) ?? node.applied.namespace ?? 'default'}/${asString(d?.name) ?? ''}`);
      if (target && !seen.has(target) && target !== ks) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen];
}

/** Whether a Kustomization `ks` waits for applies an object that makes Secret/ConfigMap `namespace/name` at runtime. */
export function producedUpstream(ks: KustomizationNode, kind: string, namespace: string, name: string): boolean {
  for (const up of upstreamOf(ks)) {
    for (const a of up.applies) {
      if ((a.namespace ?? namespace) !== namespace || !a.apiVersion.includes('.')) continue;
      if (makes(a, kind, name)) return true;
    }
  }
  return false;
}

/**
 * An ExternalSecret's target (its own name by default), or a custom resource naming the Secret it
 * writes (`secretName`, `secret.name`, a Crossplane claim's `writeConnectionSecretToRef`, a
 * tofu-controller Terraform's `writeOutputsToSecret`).
 */
function makes(a: { kind: string; name: string; object: KubeObject }, kind: string, name: string): boolean {
  const spec = asRecord(a.object.body.spec);
  if (!spec) return false;
  if (a.kind === 'ExternalSecret' && kind === 'Secret') return (asString(asRecord(spec.target)?.name) ?? a.name) === name;
  if (kind !== 'Secret') return false;
  const walk = (v: unknown, depth: number): boolean => {
    const o = asRecord(v);
    if (!o || depth > 4) return false;
    for (const [k, x] of Object.entries(o)) {
      if (k === 'secretName' && x === name) return true;
      if (/^(secret|secretRef|target|writeConnectionSecretToRef|writeOutputsToSecret|credentialsSecret)$/i.test(k) && asString(asRecord(x)?.name) === name) return true;
      if (x && typeof x === 'object' && !Array.isArray(x) && walk(x, depth + 1)) return true;
    }
    return false;
  };
  return walk(spec, 0);
}
