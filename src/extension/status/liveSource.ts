import * as vscode from 'vscode';
import type { RepoModel } from '../../core/model/graph';
import type { LiveObjectStatus, LiveStatusSource } from '../tree/liveStatus';
import type { ClusterConnection } from './connection';

const FLUX_KINDS = new Set(['Kustomization', 'HelmRelease', 'GitRepository', 'OCIRepository', 'HelmRepository', 'HelmChart', 'Bucket', 'ExternalArtifact']);
const key = (kind: string, ns: string, name: string) => `${kind}/${ns}/${name}`;

/**
 * The tree's view of the cluster: lookups in the watcher's cache only (no request per node), "Absent"
 * once a kind has been listed without the object, and the Flux objects the workspace does not have.
 */
export class WatchLiveStatusSource implements LiveStatusSource, vscode.Disposable {
  readonly onDidChange: vscode.Event<void>;
  private workspaceKeys: Set<string> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly connection: ClusterConnection,
    private readonly model: () => RepoModel,
    onDidChangeModel: vscode.Event<RepoModel>,
  ) {
    const emitter = new vscode.EventEmitter<void>();
    this.onDidChange = emitter.event;
    this.disposables.push(
      emitter,
      connection.onDidChange(() => emitter.fire()),
      onDidChangeModel(() => {
        this.workspaceKeys = undefined;
        emitter.fire();
      }),
    );
  }

  get connected(): boolean {
    return this.connection.connected;
  }

  get disconnectedReason(): string | undefined {
    const s = this.connection.state;
    if (s.kind === 'error') return s.error.message;
    if (s.kind === 'connecting') return `connecting to ${s.context}…`;
    return undefined;
  }

  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined {
    const watcher = this.connection.watcher;
    if (!watcher || !this.connected) return undefined;
    const status = watcher.get(kind, namespace, name);
    if (status) return status;
    return watcher.kindSynced(kind) ? { kind, namespace, name, state: 'Absent' } : undefined;
  }

  clusterOnly(): LiveObjectStatus[] {
    const watcher = this.connection.watcher;
    if (!watcher || !this.connected) return [];
    const known = (this.workspaceKeys ??= workspaceFluxKeys(this.model()));
    return watcher
      .all()
      .filter((s) => !known.has(key(s.kind, s.namespace, s.name)))
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** Flux objects of the workspace under the namespace they end up in (after Kustomization namespace/targetNamespace). */
function workspaceFluxKeys(model: RepoModel): Set<string> {
  const keys = new Set<string>();
  for (const applied of model.appliedById.values()) {
    for (const a of applied) if (FLUX_KINDS.has(a.kind)) keys.add(key(a.kind, a.namespace ?? '', a.name));
  }
  for (const o of model.unapplied) if (FLUX_KINDS.has(o.kind)) keys.add(key(o.kind, o.namespace ?? 'default', o.name));
  return keys;
}
