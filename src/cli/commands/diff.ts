import { engineDriftContext, previewDrift, type HelmDriftMode } from '../../workflows/drift';
import { counts, hasDrift, reportJson, reportText, type DriftReport } from '../../core/drift';
import { targetKind } from '../../engine/targets';
import { terminalText } from '../../core/escape/terminal';
import { jsonOutput } from '../../core/escape/json';
import { clusterClient, interruptible } from '../cluster';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, parseArgs, renderExitCode, UsageError, type CliIO } from '../io';
import { openWorkspace, reportParseErrors } from '../workspace';
import { pickTarget } from './build';

export const DIFF_USAGE =
  'diff ks|hr NAME [-n NS] [DIR] [--context CTX] [--kubeconfig FILE] [--format text|json] [--cluster NAME] [--concurrency N] [--mode live|desired|both] [--offline]';
export const DIFF_SUMMARY = 'diff ks|hr NAME [-n NS] [DIR] [...]   drift preview by server-side dry-run (0 none, 1 drift, 2 error)';

export async function runDiff(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, {
    booleans: ['offline'],
    values: ['namespace', 'context', 'kubeconfig', 'format', 'cluster', 'concurrency', 'mode'],
    aliases: { n: 'namespace' },
  });
  if (positionals.length < 2 || positionals.length > 3) throw new UsageError(`usage: gitops-preview ${DIFF_USAGE}`);
  const [alias, name, dir] = positionals;
  const kind = targetKind(alias);
  if (!kind) throw new UsageError(`unknown kind '${alias}' (use ks or hr)`);
  const format = (flags.format as string | undefined) ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError(`--format must be text or json, not '${format}'`);
  const mode = (flags.mode as string | undefined) ?? (kind === 'HelmRelease' ? 'both' : 'live');
  if (!['live', 'desired', 'both'].includes(mode)) throw new UsageError(`--mode must be live, desired or both, not '${mode}'`);
  if (kind === 'Kustomization' && mode !== 'live') throw new UsageError('--mode applies to HelmReleases only');
  const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64)) {
    throw new UsageError(`--concurrency must be an integer from 1 to 64, not '${flags.concurrency}'`);
  }
  const namespace = (flags.namespace as string | undefined) ?? 'flux-system';

  // A HelmRelease's drift renders it itself: no wait for the model's HelmRelease renders.
  const { engine, root } = await openWorkspace(dir, io, { helm: false });
  await reportParseErrors(engine, root, io);
  const target = await pickTarget(engine, root, kind, name, namespace, flags.cluster as string | undefined, { includeInferred: false });
  const subject = await engine.request('driftSubject', { target });
  if (!subject) throw new UsageError(`${kind} ${namespace}/${name} is not in the workspace`);

  const client = clusterClient(flags, io);
  if (!client.ok) {
    io.stderr(`gitops-preview diff: ${terminalText(client.error.message)}\n`);
    return EXIT_USAGE;
  }
  const outcomes = await interruptible((signal) =>
    previewDrift(
      engineDriftContext(
        engine,
        target,
        { allowNetwork: true, offline: flags.offline === true, env: io.env },
        { subject, client: client.value, signal, concurrency, onPhase: format === 'text' ? (m) => io.stderr(`◎ ${terminalText(m)}\n`) : undefined },
      ),
      mode as HelmDriftMode,
    ),
  );

  let exit = EXIT_OK;
  const reports: DriftReport[] = [];
  for (const { title, outcome } of outcomes) {
    if (!outcome.ok) {
      io.stderr(`✗ ${terminalText(outcome.error.message)}\n`);
      // The tool's failure outweighs the repository's: a run that could not answer exits 2.
      const code = outcome.error.kind === 'render' && outcome.error.renderKind ? renderExitCode(outcome.error.renderKind) : EXIT_USAGE;
      exit = Math.max(exit, code);
      continue;
    }
    reports.push(outcome.value);
    if (format === 'text') io.stdout(`${outcomes.length > 1 ? `# ${terminalText(title)}\n` : ''}${reportText(outcome.value)}`);
    const c = counts(outcome.value.entries);
    if (c.error > 0 || outcome.value.cancelled) exit = EXIT_USAGE;
    else if (hasDrift(outcome.value)) exit = Math.max(exit, EXIT_FINDINGS);
  }
  if (format === 'json') io.stdout(jsonOutput(reports.length === 1 && outcomes.length === 1 ? reportJson(reports[0]) : reports.map(reportJson)));
  return exit;
}
