import { exitCodeOf, runAction } from '../../workflows/reconcile';
import { fluxType, kindFromAlias } from '../../core/kinds';
import type { WriteAction } from '../../core/status/requests';
import { terminalText } from '../../core/escape/terminal';
import { clusterClient, interruptible } from '../cluster';
import { parseArgs, UsageError, type CliIO } from '../io';

/** Go-style duration ("5m", "90s", "1m30s", "500ms", "2h") in milliseconds. */
export function parseDuration(text: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let consumed = 0;
  for (let m; (m = re.exec(text)); ) {
    if (m.index !== consumed) break;
    consumed += m[0].length;
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  }
  if (!text || consumed !== text.length || total <= 0) throw new UsageError(`--timeout: '${text}' is not a duration like 30s, 5m or 1h`);
  return total;
}

export const RECONCILE_USAGE: Record<'reconcile' | 'suspend' | 'resume', string> = {
  reconcile: 'reconcile ks|hr|gitrepo|ocirepo|helmrepo|hc|bucket NAME [-n NS] [--with-source] [--force] [--reset] [--timeout 5m] [--context CTX] [--kubeconfig FILE]',
  suspend: 'suspend ks|hr|gitrepo|ocirepo|helmrepo|hc|bucket NAME [-n NS] [--context CTX] [--kubeconfig FILE]',
  resume: 'resume ks|hr|gitrepo|ocirepo|helmrepo|hc|bucket NAME [-n NS] [--timeout 5m] [--context CTX] [--kubeconfig FILE]',
};

export const RECONCILE_SUMMARY = `${RECONCILE_USAGE.reconcile.split(' [')[0]} [...]  request a reconcile and wait for Ready (0 ready, 1 failed, 2 error)`;
export const SUSPEND_SUMMARY = `${RECONCILE_USAGE.suspend.split(' [')[0]} [...]    set spec.suspend: true`;
export const RESUME_SUMMARY = `${RECONCILE_USAGE.resume.split(' [')[0]} [...]     set spec.suspend: false, reconcile and wait for Ready`;

async function run(verb: 'reconcile' | 'suspend' | 'resume', args: string[], io: CliIO): Promise<number> {
  const booleans = verb === 'reconcile' ? ['with-source', 'force', 'reset'] : [];
  const { flags, positionals } = parseArgs(args, {
    booleans,
    values: ['namespace', 'timeout', 'context', 'kubeconfig', 'poll-interval'],
    aliases: { n: 'namespace' },
  });
  if (positionals.length !== 2) throw new UsageError(`usage: gitops-preview ${RECONCILE_USAGE[verb]}`);
  const [alias, name] = positionals;
  const kind = kindFromAlias(alias) ?? fluxType(alias)?.kind;
  if (!kind) throw new UsageError(`unknown kind '${alias}' (use ks, hr, gitrepo, ocirepo, helmrepo, hc or bucket)`);
  if (flags.force && flags.reset) throw new UsageError('--force and --reset cannot be combined');
  if ((flags.force || flags.reset) && kind !== 'HelmRelease') throw new UsageError(`--${flags.force ? 'force' : 'reset'} only applies to HelmReleases`);
  const action: WriteAction = verb === 'reconcile' ? (flags.force ? 'force' : flags.reset ? 'reset' : 'reconcile') : verb;
  const timeoutMs = parseDuration((flags.timeout as string | undefined) ?? '5m');
  const pollMs = flags['poll-interval'] ? parseDuration(flags['poll-interval'] as string) : 1000;

  const client = clusterClient(flags, io);
  if (!client.ok) {
    io.stderr(`gitops-preview ${verb}: ${terminalText(client.error.message)}\n`);
    return 2;
  }
  const namespace = (flags.namespace as string | undefined) ?? 'flux-system';
  // Ctrl-C stops waiting (the request already written stays); the result says so.
  const result = await interruptible((signal) =>
    runAction(client.value, { kind, namespace, name }, action, {
      withSource: !!flags['with-source'],
      timeoutMs,
      pollMs,
      signal,
      onProgress: (m) => io.stderr(`► ${terminalText(m)}\n`),
    }),
  );
  if (!result.ok) {
    io.stderr(`gitops-preview ${verb}: ${terminalText(result.error.message)}\n`);
    return 2;
  }
  const r = result.value;
  const line = `${terminalText(`${r.object}: ${r.message}${r.revision && r.outcome === 'ready' ? ` (revision ${r.revision})` : ''}`)}\n`;
  if (exitCodeOf(action, result) === 0) io.stdout(`✔ ${line}`);
  else io.stderr(`✗ ${r.outcome === 'failed' ? 'reconciliation failed: ' : ''}${line}`);
  return exitCodeOf(action, result);
}

export const runReconcile = (args: string[], io: CliIO) => run('reconcile', args, io);
export const runSuspend = (args: string[], io: CliIO) => run('suspend', args, io);
export const runResume = (args: string[], io: CliIO) => run('resume', args, io);
