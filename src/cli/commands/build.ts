import { stringify as stringifyYaml } from 'yaml';
import type { ClusterModel, HelmReleaseNode, KustomizationNode, RepoModel } from '../../core/model/graph';
import { relativePath } from '../../core/tree/treeData';
import { maskSecrets, renderHelmRelease, renderKustomization, toManifest, type RenderedObject, type RenderOptions } from '../../render/index';
import { EXIT_FINDINGS, EXIT_OK, parseArgs, UsageError, type CliIO } from '../io';
import { openRepo, reportParseErrors } from './tree';

export const BUILD_USAGE = 'build ks|hr NAME [-n NS] [--cluster NAME] [DIR]   render a Kustomization or HelmRelease as Flux would (Secrets masked)';

type Kind = 'ks' | 'hr';

function findNodes(model: RepoModel, kind: Kind, name: string, namespace: string): (KustomizationNode | HelmReleaseNode)[] {
  const out: (KustomizationNode | HelmReleaseNode)[] = [];
  for (const c of model.clusters) {
    const list: (KustomizationNode | HelmReleaseNode)[] = kind === 'ks' ? c.kustomizations : c.helmReleases;
    for (const n of list) if (n.applied.name === name && (n.applied.namespace ?? 'default') === namespace) out.push(n);
  }
  return out;
}

function pick(model: RepoModel, kind: Kind, name: string, namespace: string, cluster: string | undefined): KustomizationNode | HelmReleaseNode {
  const what = `${kind === 'ks' ? 'Kustomization' : 'HelmRelease'} ${namespace}/${name}`;
  let nodes = findNodes(model, kind, name, namespace);
  if (cluster !== undefined) {
    if (!model.clusters.some((c: ClusterModel) => c.name === cluster)) {
      throw new UsageError(`no cluster '${cluster}' (clusters: ${model.clusters.map((c) => c.name).join(', ') || 'none'})`);
    }
    nodes = nodes.filter((n) => n.applied.cluster.name === cluster);
  }
  if (nodes.length === 0) {
    const others = model.clusters
      .flatMap((c): (KustomizationNode | HelmReleaseNode)[] => (kind === 'ks' ? c.kustomizations : c.helmReleases))
      .filter((n) => n.applied.name === name)
      .map((n) => `${n.applied.namespace}/${n.applied.name}`);
    const hint = others.length ? ` (found in other namespaces: ${[...new Set(others)].join(', ')}; use -n)` : '';
    throw new UsageError(`${what} is not applied by any cluster in this repository${cluster ? ` '${cluster}'` : ''}${hint}`);
  }
  const clusters = [...new Set(nodes.map((n) => n.applied.cluster.name))];
  if (clusters.length > 1) throw new UsageError(`${what} exists in several clusters (${clusters.join(', ')}); choose one with --cluster NAME`);
  return nodes[0];
}

/** YAML stream of the objects, each preceded by where it came from; Secret values masked. */
export function formatObjects(objects: readonly RenderedObject[], root: string): string {
  return objects
    .map((o) => {
      const source = o.origin ? `# Source: ${relativePath(root, o.origin.file)}\n` : '';
      return `---\n${source}${stringifyYaml(maskSecrets(toManifest(o)), { lineWidth: 0 })}`;
    })
    .join('');
}

export async function runBuild(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, {
    values: ['namespace', 'cluster', 'helm', 'timeout'],
    booleans: ['no-strict'],
    aliases: { n: 'namespace' },
  });
  const [kindArg, name, dir, ...extra] = positionals;
  if (kindArg !== 'ks' && kindArg !== 'hr' && kindArg !== 'kustomization' && kindArg !== 'helmrelease') {
    throw new UsageError(`expects 'ks' or 'hr' first, not '${kindArg ?? ''}'\nusage: gitops-preview ${BUILD_USAGE}`);
  }
  const kind: Kind = kindArg === 'ks' || kindArg === 'kustomization' ? 'ks' : 'hr';
  if (!name) throw new UsageError(`expects a NAME\nusage: gitops-preview ${BUILD_USAGE}`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const timeout = flags.timeout === undefined ? undefined : Number(flags.timeout);
  if (timeout !== undefined && !(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds`);

  const repo = openRepo(dir, io);
  reportParseErrors(repo, io);
  const model = repo.model();
  const namespace = (flags.namespace as string | undefined) ?? 'flux-system';
  const node = pick(model, kind, name, namespace, flags.cluster as string | undefined);
  const opts: RenderOptions = {
    allowProcesses: true,
    helmBin: (flags.helm as string | undefined) ?? (io.env.HELM_BIN || undefined),
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    strictSubstitution: !flags['no-strict'],
    env: io.env,
  };
  const result = node.kind === 'Kustomization' ? await renderKustomization(model, node, opts) : await renderHelmRelease(model, node, opts);
  if (!result.ok) {
    io.stderr(`gitops-preview build: ${result.error.message}\n`);
    return EXIT_FINDINGS;
  }
  for (const w of result.value.warnings) io.stderr(`warning: ${w}\n`);
  io.stdout(formatObjects(result.value.objects, model.workspace.root));
  return EXIT_OK;
}
