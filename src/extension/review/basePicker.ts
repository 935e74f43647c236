import * as vscode from 'vscode';
import type { ChangeBases } from '../../engine/protocol';

/** What the working tree is compared with: a ref or commit, or undefined for the engine's default. */
export interface PickedBase {
  base: string | undefined;
}

type Item = vscode.QuickPickItem & { base?: string; isDefault?: boolean };

const short = (sha: string) => sha.slice(0, 7);

function itemsOf(b: ChangeBases): Item[] {
  const items: Item[] = [];
  if ('sha' in b.default) {
    items.push({
      label: `$(git-merge) ${b.upstream ? `Upstream ${b.upstream}` : b.default.name}`,
      description: `${b.upstream ? `${b.default.name} · ` : ''}${short(b.default.sha)}`,
      detail: 'Where this branch left its upstream: what a pull request shows',
      isDefault: true,
    });
  }
  if (b.head) items.push({ label: '$(git-commit) HEAD', description: `${b.branch ?? 'detached'} · ${short(b.head)}`, detail: 'The last commit: uncommitted changes only', base: 'HEAD' });
  if (b.branches.length) items.push({ label: 'Local branches', kind: vscode.QuickPickItemKind.Separator });
  for (const branch of b.branches) {
    items.push({ label: `$(git-branch) ${branch.name}`, description: `${branch.name === b.branch ? 'checked out · ' : ''}${short(branch.sha)}`, base: branch.name });
  }
  return items;
}

/**
 * Picks the base: the upstream (from the merge-base), HEAD, a local branch, or any branch, tag or
 * commit typed in (offered as the last item while typing).
 */
export function pickBase(bases: ChangeBases): Promise<PickedBase | undefined> {
  const fixed = itemsOf(bases);
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = 'GitOps: Review Changes against…';
  pick.placeholder = 'A base to compare the working tree with, or type a branch, tag or commit';
  pick.matchOnDescription = true;
  pick.items = fixed;
  if ('error' in bases.default) pick.title += ` (no default base: ${bases.default.error})`;
  pick.onDidChangeValue((value) => {
    const typed = value.trim();
    // Always shown whatever the filter: the typed text itself as the base.
    pick.items = typed ? [...fixed, { label: `$(edit) ${typed}`, description: 'branch, tag or commit', base: typed, alwaysShow: true }] : fixed;
  });
  return new Promise((resolve) => {
    let done = false;
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      if (!item) return;
      done = true;
      resolve({ base: item.isDefault ? undefined : item.base });
      pick.hide();
    });
    pick.onDidHide(() => {
      if (!done) resolve(undefined);
      pick.dispose();
    });
    pick.show();
  });
}
