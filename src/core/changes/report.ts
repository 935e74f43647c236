/**
 * The report from both sides' builds: per producer, its objects compared when it built on both
 * sides; a producer built on one side only is a failure, never wholesale additions or removals
 * (a render failure hides the objects, it does not delete them). A producer on one side only (a
 * new or deleted Kustomization) adds or removes its objects. A HelmRelease is compared by what its
 * chart renders; by its spec, with the reason, when the chart is not at hand on a side.
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
  /** Its objects (a HelmRelease: its release manifest), or why it did not build. */
  result: { ok: true; objects: KubeJson[]; crds?: ChartCrds } | { ok: false; message: string };
  /**
   * A HelmRelease: itself, compared instead of its render when its chart is not at hand on a side
   * (`unrendered` says why; `result` is then not used).
   */
  spec?: KubeJson;
  unrendered?: string;
}

/** A chart's `crds/` folder, applied by helm-controller on install and upgrade as its policies say. */
export interface ChartCrds {
  objects: KubeJson[];
  policy: { install: string; upgrade: string };
}

/** One side: every producer of every cluster, and what `check` finds there. */
export interface Side {
  producers: Producer[];
  findings: ChangedFinding[];
}

/** A producer's identity on either side: cluster, kind, namespace, name. */
function producerKey(p: Producer): string {
  return JSON.stringify([p.cluster, p.kind, p.namespace, p.name]);
}

export function compareSides(base: string, before: Side, after: Side): ChangesReport {
  const beforeBy = new Map(before.producers.map((p) => [producerKey(p), p]));
  const afterBy = new Map(after.producers.map((p) => [producerKey(p), p]));
  const changes: ProducerChanges[] = [];
  const failures: ProducerFailure[] = [];
  for (const k of new Set([...beforeBy.keys(), ...afterBy.keys()])) {
    const b = beforeBy.get(k);
    const a = afterBy.get(k);
    const p = (a ?? b)!;
    const id = { cluster: p.cluster, kind: p.kind, name: p.name, namespace: p.namespace };
    const unrendered = a?.unrendered ?? b?.unrendered;
    if (unrendered !== undefined) {
      const side = a?.unrendered === undefined ? 'at the base' : b && b.unrendered === undefined ? 'in the working tree' : undefined;
      const objects = compareObjects(b?.spec ? [b.spec] : [], a?.spec ? [a.spec] : []);
      if (objects.length) changes.push({ ...id, objects, note: shortReason(unrendered, side) });
      continue;
    }
    if ((b && !b.result.ok) || (a && !a.result.ok)) {
      const failed = b && !b.result.ok && a && !a.result.ok ? 'both' : a && !a.result.ok ? 'head' : 'base';
      const message = (failed === 'base' ? b!.result : a!.result) as { message: string };
      failures.push({ ...id, failed, message: message.message });
      continue;
    }
    const withCrds = crdsCompared(b?.result.ok ? b.result : undefined, a?.result.ok ? a.result : undefined);
    const objects = compareObjects(b?.result.ok ? applied(b.result, withCrds) : [], a?.result.ok ? applied(a.result, withCrds) : []);
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
    images: imageChanges(sideImages(before, after), sideImages(after, before)),
  };
}

type Rendered = { objects: KubeJson[]; crds?: ChartCrds };

/**
 * Whether a chart's crds/ folder is part of what changes: helm-controller applies it when it installs
 * a release (install policy) and when it upgrades one (upgrade policy, Skip by default), and never
 * deletes it with the release.
 */
function crdsCompared(before: Rendered | undefined, after: Rendered | undefined): boolean {
  if (!after?.crds) return false;
  return before ? after.crds.policy.upgrade !== 'Skip' : after.crds.policy.install !== 'Skip';
}

function applied(result: Rendered, withCrds: boolean): KubeJson[] {
  return withCrds && result.crds ? [...result.crds.objects, ...result.objects] : result.objects;
}

/** Why a HelmRelease's spec is compared: the first line of the reason, and the side it holds on. */
function shortReason(reason: string, side: string | undefined): string {
  const line = reason.split('\n')[0].trim();
  const short = line.length > 400 ? `${line.slice(0, 399)}…` : line;
  return side ? `${short} (${side})` : short;
}

/** Images of what the side applies: a HelmRelease's only where it renders on both sides (else its images would show as changed). */
function sideImages(side: Side, other: Side): string[] {
  const unrenderedElsewhere = new Set(other.producers.filter((p) => p.unrendered !== undefined).map(producerKey));
  return side.producers.flatMap((p) =>
    p.result.ok && p.unrendered === undefined && !unrenderedElsewhere.has(producerKey(p)) ? imagesOf(p.result.objects) : [],
  );
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
