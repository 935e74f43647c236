/**
 * Container images on each side, summarised per image repository: `ghcr.io/a/app` went from tag
 * `1.0` to `1.1`. Read from the pod templates of workloads (Pod, Deployment, StatefulSet,
 * DaemonSet, ReplicaSet, Job, CronJob and any object with a `spec.template.spec`).
 */
import { isRecord } from '../drift/types';
import type { KubeJson } from '../kubeJson';
import type { ImageChange } from './types';

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Every image reference of the objects' pod templates. */
export function imagesOf(objects: Iterable<KubeJson>): string[] {
  const out: string[] = [];
  for (const o of objects) {
    const spec = isRecord(o.spec) ? o.spec : undefined;
    const podSpecs = [o.kind === 'Pod' ? spec : undefined, podSpecOf(spec?.template), podSpecOf(isRecord(spec?.jobTemplate) ? spec.jobTemplate.spec?.template : undefined)];
    for (const pod of podSpecs) {
      if (!pod) continue;
      for (const list of CONTAINER_LISTS) {
        const containers = pod[list];
        if (!Array.isArray(containers)) continue;
        for (const c of containers) if (isRecord(c) && typeof c.image === 'string' && c.image) out.push(c.image);
      }
    }
  }
  return out;
}

function podSpecOf(template: unknown): Record<string, any> | undefined {
  return isRecord(template) && isRecord(template.spec) ? template.spec : undefined;
}

/** Repositories whose set of references differs between the sides, with the references only one side has. */
export function imageChanges(before: readonly string[], after: readonly string[]): ImageChange[] {
  const byRepo = (refs: readonly string[]) => {
    const m = new Map<string, Set<string>>();
    for (const r of refs) {
      const { repo, version } = splitImage(r);
      let s = m.get(repo);
      if (!s) m.set(repo, (s = new Set()));
      s.add(version);
    }
    return m;
  };
  const b = byRepo(before);
  const a = byRepo(after);
  const out: ImageChange[] = [];
  for (const repo of new Set([...b.keys(), ...a.keys()])) {
    const was = b.get(repo) ?? new Set<string>();
    const now = a.get(repo) ?? new Set<string>();
    const gone = [...was].filter((v) => !now.has(v)).sort();
    const come = [...now].filter((v) => !was.has(v)).sort();
    const kept = [...now].filter((v) => was.has(v)).sort();
    if (gone.length || come.length) out.push({ image: repo, before: gone, after: come, ...(kept.length ? { kept } : {}) });
  }
  return out.sort((x, y) => x.image.localeCompare(y.image));
}

/** `repo:tag@digest` → repo and `tag@digest` (`latest` when neither: what the runtime pulls). */
export function splitImage(ref: string): { repo: string; version: string } {
  const at = ref.indexOf('@');
  const name = at < 0 ? ref : ref.slice(0, at);
  const digest = at < 0 ? '' : ref.slice(at);
  const colon = name.lastIndexOf(':');
  const hasTag = colon > name.lastIndexOf('/');
  const repo = hasTag ? name.slice(0, colon) : name;
  const tag = hasTag ? name.slice(colon + 1) : '';
  return { repo, version: `${tag}${digest}` || 'latest' };
}
