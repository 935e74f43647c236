import * as vscode from 'vscode';
import { toYaml } from '../../core/drift';
import type { DriftStore } from './store';

export const DRIFT_SCHEME = 'gitops-drift';

export type DriftSide = 'live' | 'desired';

/** `gitops-drift:/<run>/<entry>/<side>/<Kind>-<name>.yaml`: read-only, content from the store. */
export function driftUri(runId: number, index: number, side: DriftSide, subject: string): vscode.Uri {
  const name = subject.replace(/[^\w.-]+/g, '-');
  return vscode.Uri.from({ scheme: DRIFT_SCHEME, path: `/${runId}/${index}/${side}/${name}.yaml` });
}

/** Live or desired YAML of a drift entry (Secret values already masked by the core). */
export function driftDocument(store: DriftStore, uri: vscode.Uri): string {
  const [runId, index, side] = uri.path.split('/').filter(Boolean);
  const run = store.byId(Number(runId));
  const entry = run?.report.entries[Number(index)];
  if (!run || !entry) return '# This drift result is no longer available: run Show Drift again.\n';
  const obj = side === 'live' ? entry.live : entry.desired;
  if (obj) return toYaml(obj);
  if (side === 'live') return entry.verdict === 'created' ? '# Not in the cluster: it would be created.\n' : '# No live object.\n';
  return entry.verdict === 'deleted' ? '# No longer rendered: it would be deleted (prune).\n' : '# No desired object.\n';
}
