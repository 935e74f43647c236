/**
 * The Flux tree: opening the demo repository in VS Code shows its cluster and the Kustomizations
 * it applies, from the YAML alone.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Workbench } from '../lib/workbench';

let wb: Workbench;
before(async () => {
  wb = await Workbench.open();
});
after(async () => {
  await wb?.close();
});

test('the Flux tree shows the demo cluster and its Kustomizations', async () => {
  await wb.command('GitOps Preview: Focus on Flux View');
  const pane = wb.viewPane('Flux');
  await pane.locator('.monaco-list-row').first().waitFor({ timeout: 30_000 });

  // The cluster row, then its root Kustomization (flux-system), expanded down to the Kustomizations.
  const rows = await wb.until('the demo cluster and its Kustomizations in the tree', async () => {
    const r = await wb.treeRows('Flux');
    const text = r.join('\n');
    if (['demo', 'apps', 'infra-crds', 'infra-configs'].every((n) => text.includes(n))) return r;
    // Expand collapsed rows one level at a time, as a person would click the twisties.
    const collapsed = pane.locator('.monaco-list-row[aria-expanded="false"]');
    if ((await collapsed.count()) > 0) await collapsed.first().locator('.monaco-tl-twistie').click();
    return undefined;
  });
  // For the screenshot: a wider side bar and the apps Kustomization opened.
  await wb.widenSideBar(560);
  const apps = pane.locator('.monaco-list-row[aria-expanded="false"]', { hasText: 'apps' }).first();
  if ((await apps.count()) > 0) await apps.locator('.monaco-tl-twistie').click();
  await pane.locator('.monaco-list-row', { hasText: 'web-config' }).first().waitFor({ timeout: 10_000 }).catch(() => undefined);
  await wb.screenshot('01-tree');

  assert.ok(rows.some((r) => /\bdemo\b/.test(r)), `no row for cluster demo in:\n${rows.join('\n')}`);
  for (const name of ['flux-system', 'infra-crds', 'infra-configs', 'apps']) {
    assert.ok(rows.some((r) => r.includes(name)), `no row for Kustomization ${name} in:\n${rows.join('\n')}`);
  }
});
