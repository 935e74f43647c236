import * as vscode from 'vscode';
import { ClusterClient } from '../../cluster/client';
import type { ClusterError } from '../../cluster/errors';
import { loadKubeConfig, readKubeConfig } from '../../cluster/kubeconfig';
import { FluxStatusWatcher } from '../../cluster/watch';
import { userPathSetting } from '../userSetting';

const CONTEXT_KEY = 'gitopsPreview.context';

export type ConnectionState =
  | { kind: 'idle' }
  | { kind: 'connecting'; context: string }
  | { kind: 'connected'; context: string; server: string }
  | { kind: 'error'; context?: string; error: ClusterError };

/**
 * The kube context this workspace talks to: kubeconfig loading (setting, KUBECONFIG, ~/.kube/config),
 * the context chosen with Select Context (kept in workspace state, the kubeconfig file is never
 * written), the client, and the one status watcher. Reads only; writes go through the reconcile commands.
 */
export class ClusterConnection implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires on connection changes and on every live status change (coalesced by the watcher). */
  readonly onDidChange = this.changed.event;
  private readonly clientChanged = new vscode.EventEmitter<void>();
  /** Fires when `client` is replaced: another context or server, a reconnect, or none after a failed load. */
  readonly onDidChangeClient = this.clientChanged.event;
  private current: { client: ClusterClient; watcher: FluxStatusWatcher } | undefined;
  private stateValue: ConnectionState = { kind: 'idle' };
  private readonly disposables: vscode.Disposable[] = [];
  private lastNotified: string | undefined;

  constructor(
    private readonly memento: vscode.Memento,
    private readonly output: vscode.OutputChannel,
  ) {
    this.disposables.push(
      this.changed,
      this.clientChanged,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('gitopsPreview.kubeconfig')) this.connect();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.connect()),
    );
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  get client(): ClusterClient | undefined {
    return this.current?.client;
  }

  get watcher(): FluxStatusWatcher | undefined {
    return this.current?.watcher;
  }

  /** The client, or undefined after telling the user why there is none ("cannot `what`: …", with Select Context). */
  clientFor(what: string): ClusterClient | undefined {
    if (this.current) return this.current.client;
    const why = !vscode.workspace.isTrusted ? 'the workspace is not trusted, so no cluster is contacted' : this.stateValue.kind === 'error' ? this.stateValue.error.message : 'not connected to a cluster';
    void vscode.window.showErrorMessage(`GitOps Preview: cannot ${what}: ${why}`, 'Select Context').then((pick) => {
      if (pick) void vscode.commands.executeCommand('gitopsPreview.selectContext');
    });
    return undefined;
  }

  get connected(): boolean {
    return this.stateValue.kind === 'connected';
  }

  /** The context chosen for this workspace, if any (else the kubeconfig's current-context). */
  get selectedContext(): string | undefined {
    return this.memento.get<string>(CONTEXT_KEY) || undefined;
  }

  private kubeconfigSetting(): string | undefined {
    return userPathSetting(vscode.workspace.getConfiguration('gitopsPreview'), 'kubeconfig');
  }

  /** Contexts defined in the kubeconfig(s), for Select Context. */
  contexts(): { contexts: string[]; current?: string; error?: ClusterError } {
    const read = readKubeConfig({ kubeconfigPath: this.kubeconfigSetting(), env: process.env });
    if (!read.ok) return { contexts: [], error: read.error };
    return { contexts: read.value.kc.contexts.map((c) => c.name), current: read.value.kc.currentContext || undefined };
  }

  async selectContext(context: string | undefined): Promise<void> {
    await this.memento.update(CONTEXT_KEY, context);
    this.connect();
  }

  /** (Re)connects: new client and watcher; the old ones are stopped. */
  connect(): void {
    this.stop();
    // An untrusted workspace reaches no network: the cluster waits for trust (onDidGrantWorkspaceTrust).
    if (!vscode.workspace.isTrusted) {
      this.output.appendLine('[cluster] untrusted workspace: no cluster is contacted until the workspace is trusted');
      this.setState({ kind: 'idle' });
      this.clientChanged.fire();
      return;
    }
    const loaded = loadKubeConfig({
      kubeconfigPath: this.kubeconfigSetting(),
      context: this.selectedContext,
      env: process.env,
      // Exec credential plugins are processes: never run for an untrusted workspace (checked above too).
      allowExec: vscode.workspace.isTrusted,
    });
    if (!loaded.ok) {
      this.setState({ kind: 'error', context: this.selectedContext, error: loaded.error });
      this.clientChanged.fire();
      return;
    }
    const { context, server } = loaded.value;
    const client = new ClusterClient(loaded.value, { userAgent: 'gitops-preview-vscode' });
    const watcher = new FluxStatusWatcher(client, { onChange: () => this.onWatcherChange() });
    this.current = { client, watcher };
    this.setState({ kind: 'connecting', context });
    this.output.appendLine(`[cluster] connecting to context ${context} (${server})`);
    watcher.start();
    this.clientChanged.fire();
  }

  private onWatcherChange(): void {
    const cur = this.current;
    if (!cur) return;
    const context = cur.client.context;
    const error = cur.watcher.error;
    if (error) this.setState({ kind: 'error', context, error });
    else if (cur.watcher.synced) this.setState({ kind: 'connected', context, server: cur.client.server });
    this.changed.fire();
  }

  private setState(state: ConnectionState): void {
    const before = JSON.stringify(this.stateValue);
    this.stateValue = state;
    if (JSON.stringify(state) === before) return;
    if (state.kind === 'error') {
      this.output.appendLine(`[cluster] ${state.context ? `context ${state.context}: ` : ''}${state.error.message}`);
      this.notify(state);
    } else if (state.kind === 'connected') {
      this.lastNotified = undefined;
      this.output.appendLine(`[cluster] connected to ${state.context}`);
    }
    this.changed.fire();
  }

  /** One notification per distinct problem, with the way out; never for "no kubeconfig at all". */
  private notify(state: Extract<ConnectionState, { kind: 'error' }>): void {
    if (state.error.kind === 'no-kubeconfig' || this.lastNotified === state.error.message) return;
    this.lastNotified = state.error.message;
    void vscode.window.showWarningMessage(`GitOps Preview: ${state.error.message}`, 'Retry', 'Select Context').then((pick) => {
      if (pick === 'Retry') this.connect();
      else if (pick === 'Select Context') void vscode.commands.executeCommand('gitopsPreview.selectContext');
    });
  }

  private stop(): void {
    this.current?.watcher.stop();
    this.current = undefined;
  }

  dispose(): void {
    this.stop();
    for (const d of this.disposables) d.dispose();
  }
}
