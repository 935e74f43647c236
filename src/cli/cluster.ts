import { ClusterClient } from '../cluster/client';
import type { ClusterError } from '../cluster/errors';
import { loadKubeConfig } from '../cluster/kubeconfig';
import { ok, type Result } from '../core/result';
import type { CliIO } from './io';

/**
 * The cluster of `--kubeconfig` / `--context` (else KUBECONFIG and its current context). Credential
 * plugins may run: the CLI is a command the user started.
 */
export function clusterClient(flags: Record<string, unknown>, io: CliIO): Result<ClusterClient, ClusterError> {
  const loaded = loadKubeConfig({ kubeconfigPath: flags.kubeconfig as string | undefined, context: flags.context as string | undefined, env: io.env, allowExec: true });
  return loaded.ok ? ok(new ClusterClient(loaded.value, { userAgent: 'gitops-preview-cli' })) : loaded;
}

/** Runs `work` with Ctrl-C aborting its signal (what it already wrote to the cluster stays). */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    return await work(abort.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
