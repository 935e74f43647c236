import * as vscode from 'vscode';
import type { ObjectChange, ProducerChanges } from '../../core/changes/types';
import type { ChangesAnswer } from '../../engine/protocol';
import type { ReviewStore } from './review';

export const REVIEW_SCHEME = 'gitops-review';

export type ReviewSide = 'base' | 'working';

/** An object of the report, by names only: it is found again in each newer answer. */
export interface ObjectKey {
  cluster: string;
  producer: { kind: string; namespace: string; name: string };
  object: { kind: string; namespace: string; name: string };
}

export function objectKey(p: ProducerChanges, o: ObjectChange): ObjectKey {
  return { cluster: p.cluster, producer: { kind: p.kind, namespace: p.namespace, name: p.name }, object: { kind: o.kind, namespace: o.namespace, name: o.name } };
}

/** `gitops-review:/<side>/<Kind>-<name>.yaml?<key>`: the file name for tabs and YAML highlighting, the key to look the object up. */
export function reviewUri(key: ObjectKey, side: ReviewSide): vscode.Uri {
  const name = `${key.object.kind}-${key.object.name}`.replace(/[^\w.-]+/g, '-');
  return vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${side}/${name}.yaml`, query: JSON.stringify(key) });
}

export function findObject(answer: ChangesAnswer | undefined, key: ObjectKey): ObjectChange | undefined {
  const same = (a: { kind: string; namespace: string; name: string }, b: typeof a) => a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
  const producer = answer?.report.changes.find((p) => p.cluster === key.cluster && same(p, key.producer));
  return producer?.objects.find((o) => same(o, key.object));
}

/** The object's YAML at the base or in the working tree, from the review's latest answer (Secret values masked by the core). */
export function reviewDocument(store: ReviewStore, uri: vscode.Uri): string {
  let key: ObjectKey;
  try {
    key = JSON.parse(uri.query) as ObjectKey;
  } catch {
    return '# Not a review document.\n';
  }
  const side = uri.path.split('/')[1] as ReviewSide;
  const object = findObject(store.current?.answer, key);
  if (!object) return '# This object no longer differs from the base: see the Review view.\n';
  const yaml = side === 'base' ? object.yaml.before : object.yaml.after;
  if (yaml) return yaml;
  return side === 'base' ? '# Not at the base: this change adds it.\n' : '# Not in the working tree: this change removes it.\n';
}
