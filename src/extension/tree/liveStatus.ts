import * as vscode from 'vscode';
import type { LiveObjectStatus } from '../../core/status/conditions';

/**
 * The seam between the cluster (live status engineer) and the Flux tree. The tree never talks to a
 * cluster itself: whoever watches the cluster registers a LiveStatusSource here, and the tree reads
 * it whenever it renders a node.
 */
export type { LiveState, LiveObjectStatus } from '../../core/status/conditions';

export interface LiveStatusSource {
  get(kind: string, namespace: string, name: string): LiveObjectStatus | undefined;
  /** Flux objects in the cluster but not in the workspace */
  clusterOnly(): LiveObjectStatus[];
  readonly onDidChange: vscode.Event<void>;
  readonly connected: boolean;
  /** Workspace cluster (tree cluster name) this status describes; undefined decorates every cluster. */
  readonly clusterName?: string;
  /** Why it is not connected (shown as the tree's message), e.g. "kubeconfig not found". */
  readonly disconnectedReason?: string;
}

let current: LiveStatusSource | undefined;
let currentSubscription: vscode.Disposable | undefined;
const changed = new vscode.EventEmitter<void>();

/** Fires when the source is replaced or reports a change; the tree refreshes on it. */
export const onDidChangeLiveStatus: vscode.Event<void> = changed.event;

/** Registers (or clears, with undefined) the live status source the tree reads; fires a tree refresh. */
export function setLiveStatusSource(source: LiveStatusSource | undefined): void {
  currentSubscription?.dispose();
  current = source;
  currentSubscription = source?.onDidChange(() => changed.fire());
  changed.fire();
}

/** The registered source, or undefined when none is registered. */
export function liveStatusSource(): LiveStatusSource | undefined {
  return current;
}
