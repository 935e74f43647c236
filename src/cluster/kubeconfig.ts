import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KubeConfig, User } from '@kubernetes/client-node';
import { kubeLibrary } from './library';
import { clusterError, type ClusterError } from './errors';
import { fail, ok, type Result } from '../core/result';

export interface KubeConfigOptions {
  /** Setting / `--kubeconfig` override; may list several files like KUBECONFIG. */
  kubeconfigPath?: string;
  /** Context to use instead of the files' current-context; selected in memory only. */
  context?: string;
  env: NodeJS.ProcessEnv;
  /**
   * When false (untrusted workspace) a context whose user needs a credential plugin is refused,
   * because using it would spawn that plugin.
   */
  allowExec?: boolean;
}

export interface LoadedKubeConfig {
  kc: KubeConfig;
  context: string;
  contexts: string[];
  /** The files actually read, in merge order. */
  files: string[];
  /** Cluster server URL of the selected context. */
  server: string;
  /** Default namespace of the selected context ("default" when unset). */
  namespace: string;
}

function expandHome(file: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? env.USERPROFILE;
  if (home && (file === '~' || file.startsWith('~/'))) return path.join(home, file.slice(1));
  return file;
}

/** The kubeconfig files kubectl would read, in order: the override, else KUBECONFIG, else ~/.kube/config. */
export function kubeconfigFiles(opts: Pick<KubeConfigOptions, 'kubeconfigPath' | 'env'>): { files: string[]; origin: string } {
  const split = (list: string) =>
    list
      .split(path.delimiter)
      .map((f) => f.trim())
      .filter((f) => f)
      .map((f) => path.resolve(expandHome(f, opts.env)));
  if (opts.kubeconfigPath?.trim()) return { files: split(opts.kubeconfigPath), origin: 'configured kubeconfig path' };
  if (opts.env.KUBECONFIG?.trim()) return { files: split(opts.env.KUBECONFIG), origin: 'KUBECONFIG' };
  const home = opts.env.HOME ?? opts.env.USERPROFILE;
  return { files: home ? [path.join(home, '.kube', 'config')] : [], origin: '~/.kube/config' };
}

/**
 * Reads and merges the kubeconfig files the way kubectl does: missing files in a list are skipped,
 * the first file to define a cluster/user/context name wins, the first current-context wins.
 * (client-node's own merge throws on duplicate names, which kubectl accepts.)
 */
export function readKubeConfig(opts: Pick<KubeConfigOptions, 'kubeconfigPath' | 'env'>): Result<{ kc: KubeConfig; files: string[] }, ClusterError> {
  const { files, origin } = kubeconfigFiles(opts);
  const merged = new (kubeLibrary().KubeConfig)();
  merged.clusters = [];
  merged.users = [];
  merged.contexts = [];
  merged.currentContext = '';
  const read: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      return fail(clusterError('bad-kubeconfig', `Cannot read kubeconfig ${file}: ${code ?? (e as Error).message}`));
    }
    const one = new (kubeLibrary().KubeConfig)();
    try {
      one.loadFromString(text);
      one.makePathsAbsolute(path.dirname(file));
    } catch (e) {
      const msg = ((e as Error).message ?? String(e)).split('\n')[0];
      return fail(clusterError('bad-kubeconfig', `Invalid kubeconfig ${file}: ${msg}`));
    }
    read.push(file);
    for (const c of one.clusters) if (!merged.clusters.some((x) => x.name === c.name)) merged.clusters.push(c);
    for (const u of one.users) if (!merged.users.some((x) => x.name === u.name)) merged.users.push(u);
    for (const c of one.contexts) if (!merged.contexts.some((x) => x.name === c.name)) merged.contexts.push(c);
    if (!merged.currentContext && one.currentContext) merged.currentContext = one.currentContext;
  }
  if (read.length === 0) {
    const where = files.length ? files.join(path.delimiter) : '(no home directory)';
    return fail(clusterError('no-kubeconfig', `No kubeconfig found (${origin}: ${where})`));
  }
  return ok({ kc: merged, files: read });
}

/** Why using this user would spawn a process, or undefined. */
export function spawningAuth(user: User | null | undefined): string | undefined {
  if (!user) return undefined;
  if (user.exec) return `exec credential plugin "${(user.exec as { command?: string }).command ?? '?'}"`;
  const provider = user.authProvider as { name?: string; config?: Record<string, unknown> } | undefined | null;
  if (provider?.config?.exec) return `auth-provider "${provider.name ?? '?'}" with exec`;
  if (provider?.name === 'exec') return 'auth-provider "exec"';
  if (provider?.config?.['cmd-path']) return `auth-provider "${provider.name ?? '?'}" command ${String(provider.config['cmd-path'])}`;
  return undefined;
}

/** Merged kubeconfig with a context selected on the in-memory object only (the files are never written). */
export function loadKubeConfig(opts: KubeConfigOptions): Result<LoadedKubeConfig, ClusterError> {
  const read = readKubeConfig(opts);
  if (!read.ok) return read;
  const { kc, files } = read.value;
  const contexts = kc.contexts.map((c) => c.name);
  const wanted = opts.context || kc.currentContext;
  if (!wanted) {
    return fail(
      clusterError('bad-kubeconfig', `No current-context in ${files.join(', ')}; select one of: ${contexts.join(', ') || '(none defined)'}`, {
        details: { contexts },
      }),
    );
  }
  const ctx = kc.getContextObject(wanted);
  if (!ctx) {
    return fail(
      clusterError('bad-kubeconfig', `Context "${wanted}" is not in ${files.join(', ')} (available: ${contexts.join(', ') || 'none'})`, {
        details: { contexts },
      }),
    );
  }
  kc.setCurrentContext(wanted);
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster) return fail(clusterError('bad-kubeconfig', `Context "${wanted}" refers to cluster "${ctx.cluster}", which is not defined`, { details: { contexts } }));
  if (!cluster.server) return fail(clusterError('bad-kubeconfig', `Cluster "${cluster.name}" has no server URL`, { details: { contexts } }));
  if (ctx.user && !kc.getUser(ctx.user)) {
    return fail(clusterError('bad-kubeconfig', `Context "${wanted}" refers to user "${ctx.user}", which is not defined`, { details: { contexts } }));
  }
  if (opts.allowExec === false) {
    const spawning = spawningAuth(kc.getCurrentUser());
    if (spawning) {
      return fail(
        clusterError(
          'bad-kubeconfig',
          `Context "${wanted}" authenticates with an ${spawning}; running it is disabled in an untrusted workspace (trust the workspace to connect)`,
          { details: { contexts } },
        ),
      );
    }
  }
  return ok({ kc, context: wanted, contexts, files, server: cluster.server, namespace: ctx.namespace || 'default' });
}
