import * as vscode from 'vscode';
import { EngineService } from './engineService';
import { registerTree } from './tree/registerTree';
import { registerNavigation } from './navigation/registerNavigation';
import { registerCluster } from './cluster';
import { ClusterConnection } from './cluster/connection';
import { registerDiagnostics } from './diagnostics/index';
import { registerDrift } from './drift';
import { registerGraph } from './graph/registerGraph';
import { registerReview } from './review';
import type { TreeItemData } from '../engine/protocol';

/**
 * What every feature module receives. Features register their own providers and commands in a
 * `register…(context, services)` function listed in FEATURES below.
 */
export interface Services {
  engine: EngineService;
  /** The one kube context of the window: live status, drift and reconcile all use it. */
  connection: ClusterConnection;
  output: vscode.OutputChannel;
  /** The Flux tree view, once registerTree has created it. */
  treeView?: vscode.TreeView<TreeItemData>;
}

type Feature = (context: vscode.ExtensionContext, services: Services) => void;

/** Feature modules, in registration order. */
const FEATURES: Feature[] = [registerTree, registerNavigation, registerCluster, registerDiagnostics, registerDrift, registerGraph, registerReview];

export function activate(context: vscode.ExtensionContext): void {
  // A log channel: its lines carry times, which is how a slow start is told apart (activation, worker, index, tree).
  const output = vscode.window.createOutputChannel('GitOps Preview', { log: true });
  context.subscriptions.push(output);
  const folders = vscode.workspace.workspaceFolders ?? [];
  output.appendLine(`[extension] activated (${context.extension.packageJSON.version as string}) for ${folders.length} folder(s)`);
  if (onDisk(folders)) return start(context, output);
  output.appendLine(`[extension] no workspace folder on disk (${folders.map((f) => f.uri.toString()).join(', ') || 'none open'}): nothing to index until one is added`);
  // A multi-root workspace gets folders without restarting extensions (and its folders may come
  // after the view that activated this one): start with the first folder on disk.
  const waiting = vscode.workspace.onDidChangeWorkspaceFolders(() => {
    if (!onDisk(vscode.workspace.workspaceFolders ?? [])) return;
    waiting.dispose();
    start(context, output);
  });
  context.subscriptions.push(waiting);
}

function onDisk(folders: readonly vscode.WorkspaceFolder[]): boolean {
  return folders.some((f) => f.uri.scheme === 'file');
}

function start(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): void {
  // Builds persist in this workspace's storage: a window never reads a cache another window is
  // writing (each storage's caches are capped together, engine/buildCacheCap.ts).
  const engine = new EngineService(context.asAbsolutePath('dist/engineWorker.js'), output, context.storageUri?.fsPath);
  const connection = new ClusterConnection(context.workspaceState, output);
  context.subscriptions.push(engine, connection);
  const services: Services = { engine, connection, output };
  for (const feature of FEATURES) feature(context, services);
}

export function deactivate(): void {}
