import * as vscode from 'vscode';
import { liveLookup, type LiveLookupView } from '../../cluster/liveLookup';
import type { RepoModel } from '../../core/model/graph';
import type { LiveObjectStatus, LiveStatusSource } from '../tree/liveStatus';
import type { ClusterConnection } from './connection';

/** The tree's LiveStatusSource: the connection's watcher cache, seen through `liveLookup`. */
export class WatchLiveStatusSource implements LiveStatusSource, vscode.Disposable {
  readonly onDidChange: vscode.Event<void>;
  private readonly disposables: vscode.Disposable[] = [];
  private view: { watcher: unknown; lookup: LiveLookupView } | undefined;

  constructor(
    private readonly connection: ClusterConnection,
    private readonly model: () => RepoModel,
    onDidChangeModel: vscode.Event<RepoModel>,
  ) {
    const emitter = new vscode.EventEmitter<void>();
    this.onDidChange = emitter.event;
    this.disposables.push(emitter, connection.onDidChange(() => emitter.fire()), onDidChangeModel(() => emitter.fire()));
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

  private lookup(): LiveLookupView | undefined {
    const watcher = this.connection.watcher;
    if (!watcher || !this.connected) return undefined;
    if (this.view?.watcher !== watcher) this.view = { watcher, lookup: liveLookup(watcher, this.model) };
    return this.view.lookup;
  }

  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined {
    return this.lookup()?.get(kind, namespace, name);
  }

  clusterOnly(): LiveObjectStatus[] {
    return this.lookup()?.clusterOnly() ?? [];
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
