import { ClusterClient } from '../../cluster/client';
import { driftHelmRelease, driftKustomization, helmDesiredVsDeployed, type DriftOutcome, type DriftRunContext } from '../../cluster/driftRun';
import { loadKubeConfig } from '../../cluster/kubeconfig';
import { counts, hasDrift, reportJson, reportText, type DriftReport } from '../../core/drift';
import type { HelmReleaseNode, KustomizationNode, RepoModel } from '../../core/model/graph';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, parseArgs, UsageError, type CliIO } from '../io';
import { openRepo, reportParseErrors } from './tree';

const USAGE =
  'diff ks|hr NAME [-n NS] [DIR] [--context CTX] [--kubeconfig FILE] [--format text|json] [--cluster NAME] [--concurrency N] [--mode live|desired|both]';
export const DIFF_SUMMARY = 'diff ks|hr NAME [-n NS] [DIR] [...]   drift preview by server-side dry-run (0 none, 1 drift, 2 error)';

/** Finds the Kustomization/HelmRelease NAME in NS; several clusters may apply it (then --cluster picks). */
function findNode<T extends KustomizationNode | HelmReleaseNode>(model: RepoModel, kind: T['kind'], name: string, namespace: string, cluster?: string): T {
  const matches: Array<{ cluster: string; node: T }> = [];
  for (const c of model.clusters) {
    if (cluster && c.name !== cluster) continue;
    const list = (kind === 'Kustomization' ? c.kustomizations : c.helmReleases) as T[];
    for (const n of list) if (n.applied.name === name && (n.applied.namespace ?? 'flux-system') === namespace && !n.applied.object.synthetic) matches.push({ cluster: c.name, node: n });
  }
  if (matches.length === 0) {
    const where = cluster ? ` in cluster '${cluster}'` : '';
    throw new UsageError(`no ${kind} ${namespace}/${name} applied by any cluster root in the workspace${where} (clusters: ${model.clusters.map((c) => c.name).join(', ') || 'none'})`);
  }
  const clusters = [...new Set(matches.map((m) => m.cluster))];
  if (clusters.length > 1) throw new UsageError(`${kind} ${namespace}/${name} is applied in clusters ${clusters.join(', ')}: choose one with --cluster`);
  return matches[0].node;
}

export async function runDiff(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, {
    booleans: ['help'],
    values: ['namespace', 'context', 'kubeconfig', 'format', 'cluster', 'concurrency', 'mode'],
    aliases: { n: 'namespace', h: 'help' },
  });
  if (flags.help) {
    io.stdout(`usage: gitops-preview ${USAGE}\n`);
    return EXIT_OK;
  }
  if (positionals.length < 2 || positionals.length > 3) throw new UsageError(`usage: gitops-preview ${USAGE}`);
  const [alias, name, dir] = positionals;
  const kind = /^(ks|kustomization|kustomizations)$/i.test(alias) ? 'Kustomization' : /^(hr|helmrelease|helmreleases)$/i.test(alias) ? 'HelmRelease' : undefined;
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

  const repo = openRepo(dir, io);
  reportParseErrors(repo, io);
  const model = repo.model();
  const node = kind === 'Kustomization'
    ? findNode<KustomizationNode>(model, 'Kustomization', name, namespace, flags.cluster as string | undefined)
    : findNode<HelmReleaseNode>(model, 'HelmRelease', name, namespace, flags.cluster as string | undefined);

  const loaded = loadKubeConfig({ kubeconfigPath: flags.kubeconfig as string | undefined, context: flags.context as string | undefined, env: io.env, allowExec: true });
  if (!loaded.ok) {
    io.stderr(`gitops-preview diff: ${loaded.error.message}\n`);
    return EXIT_USAGE;
  }
  const client = new ClusterClient(loaded.value, { userAgent: 'gitops-preview-cli' });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  const ctx: DriftRunContext = {
    model,
    client,
    render: { allowProcesses: true, helmBin: io.env.HELM_BIN, env: io.env },
    signal: abort.signal,
    concurrency,
    onPhase: format === 'text' ? (m) => io.stderr(`◎ ${m}\n`) : undefined,
  };

  const outcomes: Array<{ title?: string; outcome: DriftOutcome }> = [];
  try {
    if (node.kind === 'Kustomization') outcomes.push({ outcome: await driftKustomization(ctx, node) });
    else {
      if (mode !== 'desired') outcomes.push({ title: 'live drift (helm-controller drift detection)', outcome: await driftHelmRelease(ctx, node) });
      if (mode !== 'live') outcomes.push({ title: 'desired vs deployed (local render against the release in Helm storage)', outcome: await helmDesiredVsDeployed(ctx, node) });
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }

  let exit = EXIT_OK;
  const reports: DriftReport[] = [];
  for (const { title, outcome } of outcomes) {
    if (!outcome.ok) {
      io.stderr(`✗ ${outcome.error.message}\n`);
      exit = EXIT_USAGE;
      continue;
    }
    reports.push(outcome.value);
    if (format === 'text') io.stdout(`${title && outcomes.length > 1 ? `# ${title}\n` : ''}${reportText(outcome.value)}`);
    const c = counts(outcome.value.entries);
    if (c.error > 0 || outcome.value.cancelled) exit = EXIT_USAGE;
    else if (exit === EXIT_OK && hasDrift(outcome.value)) exit = EXIT_FINDINGS;
  }
  if (format === 'json') io.stdout(JSON.stringify(reports.length === 1 && outcomes.length === 1 ? reportJson(reports[0]) : reports.map(reportJson), null, 2) + '\n');
  return exit;
}
