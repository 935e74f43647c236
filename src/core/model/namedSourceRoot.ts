
/**
 * A cluster's sync source whose URL is a placeholder or another repository (`REPO_PREFIX/gitops-system`)
 * while its contents are kept in a folder of this one (`repos/gitops-system`): the folder named after
 * the URL's last segment where more of the source's spec.paths resolve than anywhere else, the
 * repository root included. Templates among the paths (`./clusters/cluster-name`) resolve nowhere,
 * so not every path has to. `rootsOf` gives the folders (relative, '' the root) holding one path.
 */
export function namedSourceRoot(url: string | undefined, paths: readonly string[], rootsOf: (path: string) => readonly string[] | undefined): string | undefined {
  const name = url?.replace(/\/+$/, '').replace(/\.git$/, '').split(/[/:]/).pop()?.toLowerCase();
  if (!name) return undefined;
  const hits = new Map<string, number>();
  for (const p of new Set(paths)) for (const root of rootsOf(p) ?? []) hits.set(root, (hits.get(root) ?? 0) + 1);
  let best: string | undefined;
  let most = hits.get('') ?? 0;
  let tie = false;
  for (const [root, n] of hits) {
    if (root === '' || root.split('/').pop()!.toLowerCase() !== name) continue;
    if (n > most) [best, most, tie] = [root, n, false];
    else if (n === most && best !== undefined) tie = true;
  }
  return tie ? undefined : best;
}
