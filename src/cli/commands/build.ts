import { relativePath } from '../../core/tree/treeData';
import { terminalText } from '../../core/escape/terminal';
import { yamlComment, yamlDocument } from '../../core/escape/yaml';
import { maskRenderedSecrets, toManifest } from '../../core/flux/mask';
import type { Engine } from '../../engine/engine';
import type { RenderedObject, TargetRef } from '../../engine/protocol';
import { targetKind, type TargetKind } from '../../engine/targets';
import { EXIT_OK, parseArgs, renderExitCode, UsageError, type CliIO } from '../io';
import { openWorkspace, reportParseErrors } from '../workspace';

export const BUILD_USAGE = 'build ks|hr NAME [-n NS] [--cluster NAME] [--offline] [DIR]   render a Kustomization or HelmRelease as Flux would (Secrets masked)';

/** The one Kustomization/HelmRelease NAME in NS (in `cluster` when given), or a usage error saying why not. */
export async function pickTarget(engine: Engine, root: string, kind: TargetKind, name: string, namespace: string, cluster: string | undefined, opts: { includeInferred: boolean }): Promise<TargetRef> {
  const what = `${kind} ${namespace}/${name}`;
  const known = (await engine.request('status', {})).folders.find((f) => f.root === root)?.clusters ?? [];
  if (cluster !== undefined && !known.includes(cluster)) throw new UsageError(`no cluster '${cluster}' (clusters: ${known.join(', ') || 'none'})`);
  const refs = await engine.request('targets', { root, kind, name, namespace, cluster, includeInferred: opts.includeInferred });
  if (refs.length === 0) {
    const others = (await engine.request('targets', { root, kind, name, includeInferred: opts.includeInferred })).map((r) => `${r.namespace}/${r.name}`);
    const hint = others.length ? ` (found in other namespaces: ${[...new Set(others)].join(', ')}; use -n)` : '';
    throw new UsageError(`${what} is not applied by any cluster in this repository${cluster ? ` '${cluster}'` : ''} (clusters: ${known.join(', ') || 'none'})${hint}`);
  }
  const clusters = [...new Set(refs.map((r) => r.cluster))];
  if (clusters.length > 1) throw new UsageError(`${what} exists in several clusters (${clusters.join(', ')}); choose one with --cluster NAME`);
  return refs[0];
}

/** YAML stream of the objects, each preceded by where it came from; Secret values masked, copies of them too. */
export function formatObjects(objects: readonly RenderedObject[], root: string): string {
  const shown = maskRenderedSecrets(objects.map(toManifest));
  return objects
    .map((o, i) => {
      const source = o.origin ? yamlComment(`Source: ${relativePath(root, o.origin.file)}`) : '';
      return `---\n${source}${yamlDocument(shown[i])}`;
    })
    .join('');
}

export async function runBuild(args: string[], io: CliIO): Promise<number> {
  const { flags, positionals } = parseArgs(args, {
    values: ['namespace', 'cluster', 'timeout'],
    booleans: ['no-strict', 'offline'],
    aliases: { n: 'namespace' },
  });
  const [kindArg, name, dir, ...extra] = positionals;
  const kind = targetKind(kindArg ?? '');
  if (!kind) throw new UsageError(`expects 'ks' or 'hr' first, not '${kindArg ?? ''}'\nusage: gitops-preview ${BUILD_USAGE}`);
  if (!name) throw new UsageError(`expects a NAME\nusage: gitops-preview ${BUILD_USAGE}`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const timeout = flags.timeout === undefined ? undefined : Number(flags.timeout);
  if (timeout !== undefined && !(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds`);

  // `build hr` renders its release itself: no command here waits for the model's HelmRelease renders.
  // `build ks` needs the Kustomizations of its name alone: the others' leaves are not built.
  const { engine, root } = await openWorkspace(dir, io, { helm: false, ...(kind === 'Kustomization' ? { focus: { kustomization: name } } : {}) });
  await reportParseErrors(engine, root, io);
  // As the flux CLI: -n defaults to flux-system.
  const namespace = (flags.namespace as string | undefined) ?? 'flux-system';
  const target = await pickTarget(engine, root, kind, name, namespace, flags.cluster as string | undefined, { includeInferred: true });
  const result = await engine.request('render', {
    target,
    allowNetwork: true,
    offline: flags.offline === true,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    // As the repository's kustomize-controller substitutes (strict from v1.9 unless turned off); --no-strict: never strict.
    strictSubstitution: flags['no-strict'] ? false : undefined,
    env: io.env,
  });
  if (!result.ok) {
    io.stderr(`gitops-preview build: ${terminalText(result.error.message)}\n`);
    return renderExitCode(result.error.kind);
  }
  for (const w of result.value.warnings) io.stderr(`warning: ${terminalText(w)}\n`);
  io.stdout(formatObjects(result.value.objects, root));
  return EXIT_OK;
}
