/**
 * The connected context's CRDs into the engine, so custom resources the workspace has no CRD for
 * are validated, hovered and completed from the cluster's (cluster/crdStore.ts). There is a client
 * only in a trusted workspace (an untrusted one contacts no cluster, connection.ts); the guard below
 * keeps listing off should that change.
 */
import * as vscode from 'vscode';
import { ClusterCrdStore } from '../../cluster/crdStore';
import { crdCacheDir } from '../../cluster/crdCache';
import { productCacheDir } from '../../node/cacheDir';
import type { EngineClient } from '../../engine/client';
import type { ClusterConnection } from './connection';

export function followClusterCrds(connection: ClusterConnection, engine: EngineClient, output: vscode.OutputChannel): vscode.Disposable {
  const store = new ClusterCrdStore({
    cacheDir: crdCacheDir(productCacheDir(process.env)),
    log: (m) => output.appendLine(m),
    onChange: (crds) => engine.clusterCrds(crds),
  });
  const follow = () => {
    const client = connection.client;
    if (client) {
      store.use({ context: client.context, server: client.server, client: vscode.workspace.isTrusted ? client : undefined });
      return;
    }
    // No client: the connection ended (its context's CRDs stay), or another context failed to load.
    const state = connection.state;
    if (state.kind === 'error' && state.context !== undefined && state.context !== store.current?.context) store.forget();
    else store.use(undefined);
  };
  const subscription = connection.onDidChangeClient(follow);
  follow();
  return vscode.Disposable.from(subscription, store);
}
