import * as vscode from 'vscode';
import { RepoService } from './repoService';
import { registerTree } from './tree/registerTree';
import { registerNavigation } from './navigation/registerNavigation';
import { registerCluster } from './status';
import { registerDiagnostics } from './diagnostics/index';
import { registerDrift } from './drift';
import { registerGraph } from './graph/registerGraph';
import type { TreeNode } from '../core/tree/viewModel';

/**
 * What every feature module receives. Features register their own providers and commands in a
 * `register…(context, services)` function listed in FEATURES below.
 */
export interface Services {
  repo: RepoService;
  output: vscode.OutputChannel;
  /** The Flux tree view, once registerTree has created it. */
  treeView?: vscode.TreeView<TreeNode>;
}

type Feature = (context: vscode.ExtensionContext, services: Services) => void;

/** Feature modules, in registration order. */
const FEATURES: Feature[] = [registerTree, registerNavigation, registerCluster, registerDiagnostics, registerDrift, registerGraph];

export function activate(context: vscode.ExtensionContext): void {
  const folder = vscode.workspace.workspaceFolders?.[0];
  const output = vscode.window.createOutputChannel('GitOps Preview');
  context.subscriptions.push(output);
  if (!folder || folder.uri.scheme !== 'file') return;
  const repo = new RepoService(folder.uri.fsPath.split('\\').join('/'));
  context.subscriptions.push(repo);
  const services: Services = { repo, output };
  for (const feature of FEATURES) feature(context, services);
}

export function deactivate(): void {}
