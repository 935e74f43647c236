/**
 * The report from both sides' builds: per producer, its objects compared when it built on both
 * sides; a producer built on one side only is a failure, never wholesale additions or removals
 * (a render failure hides the objects, it does not delete them). A producer on one side only (a
 * new or deleted Kustomization) adds or removes its objects.
 */
import type { KubeJson } from '../kubeJson';
import { compareObjects } from './objects';
import { imageChanges, imagesOf } from './images';
import type { ChangedFinding, ChangesReport, ProducerChanges, ProducerFailure } from './types';

export interface Producer {
  cluster: string;
  kind: 'Kustomization' | 'HelmRelease';
  name: string;
  namespace: string;
  /** Its objects (a HelmRelease: itself, as its spec diff), or why it did not build. */
  result: { ok: true; objects: KubeJson[] } | { ok: false; message: string };
}

/** One side: every producer of every cluster, and what `check` finds there. */
export interface Side {
  producers: Producer[];
  findings: ChangedFinding[];
}

export function compareSides(base: string, before: Side, after: Side): ChangesReport {
  const key = (p: Producer) => JSON.stringify([p.cluster, p.kind, p.namespace, p.name]);
  const beforeBy = new Map(before.producers.map((p) => [key(p), p]));
  const afterBy = new Map(after.producers.map((p) => [key(p), p]));
  const changes: ProducerChanges[] = [];
  const failures: ProducerFailure[] = [];
  for (const k of new Set([...beforeBy.keys(), ...afterBy.keys()])) {
    const b = beforeBy.get(k);
    const a = afterBy.get(k);
    const p = (a ?? b)!;
    const id = { cluster: p.cluster, kind: p.kind, name: p.name, namespace: p.namespace };
    if ((b && !b.result.ok) || (a && !a.result.ok)) {
      const failed = b && !b.result.ok && a && !a.result.ok ? 'both' : a && !a.result.ok ? 'head' : 'base';
      const message = (failed === 'base' ? b!.result : a!.result) as { message: string };
      failures.push({ ...id, failed, message: message.message });
      continue;
    }
    const objects = compareObjects(b?.result.ok ? b.result.objects : [], a?.result.ok ? a.result.objects : []);
    if (objects.length) changes.push({ ...id, objects });
  }
  const order = (x: { cluster: string; kind: string; namespace: string; name: string }) => `${x.cluster}\0${x.kind}\0${x.namespace}\0${x.name}`;
  changes.sort((x, y) => order(x).localeCompare(order(y)));
  failures.sort((x, y) => order(x).localeCompare(order(y)));
  return {
    base,
    changes,
    findings: findingChanges(before.findings, after.findings),
    failures,
    images: imageChanges(sideImages(before), sideImages(after)),
  };
}

function sideImages(side: Side): string[] {
  return side.producers.flatMap((p) => (p.kind === 'Kustomization' && p.result.ok ? imagesOf(p.result.objects) : []));
}

/**
 * Findings on one side only, compared by rule, file and message (a line shift above a finding
 * does not make it new); a finding found twice before and three times after is introduced once.
 */
export function findingChanges(before: readonly ChangedFinding[], after: readonly ChangedFinding[]): { introduced: ChangedFinding[]; fixed: ChangedFinding[] } {
  const key = (f: ChangedFinding) => JSON.stringify([f.rule, f.file, f.message]);
  const onlyIn = (list: readonly ChangedFinding[], other: readonly ChangedFinding[]) => {
    const left = new Map<string, number>();
    for (const f of other) left.set(key(f), (left.get(key(f)) ?? 0) + 1);
    return list.filter((f) => {
      const n = left.get(key(f)) ?? 0;
      if (n > 0) left.set(key(f), n - 1);
      return n === 0;
    });
  };
  return { introduced: onlyIn(after, before), fixed: onlyIn(before, after) };
}
