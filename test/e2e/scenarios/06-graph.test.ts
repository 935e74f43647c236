/**
 * The dependency graph view: GitOps: Show Dependency Graph opens a webview with the demo cluster's
 * Kustomizations and HelmRelease as nodes, live status from the seeded cluster, the demo's
 * CRD-before-CR mistake as a red edge with its message on hover, and a click opens the YAML.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { Workbench } from '../lib/workbench';

let wb: Workbench;
before(async () => {
  wb = await Workbench.open();
});
after(async () => {
  await wb?.close();
});

/** The page inside the webview: VS Code nests it in two iframes. */
function graphFrame(): FrameLocator {
  return wb.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

test('Show Dependency Graph draws the demo cluster with live status and the ordering problem', async () => {
  // From the Flux view's title bar, as a person would find it.
  await wb.command('GitOps Preview: Focus on Flux View');
  const pane = wb.viewPane('Flux');
  await pane.locator('.monaco-list-row').first().waitFor({ timeout: 30_000 });
  // The title bar's actions show on hover; rows still loading can move what is under the pointer.
  await wb.settledTreeRows('Flux');
  await pane.hover();
  await pane.locator('.pane-header .action-label.codicon-type-hierarchy').first().click({ timeout: 10_000 });
  const frame = graphFrame();
  const nodes = frame.locator('#graph .node');
  await wb.page
    .locator('.tabs-container .tab', { hasText: 'Flux Dependency Graph' })
    .waitFor({ timeout: 30_000 })
    .then(() => nodes.first().waitFor({ timeout: 30_000 }))
    .catch(async (err: Error) => {
      await wb.screenshot('06-graph-failed');
      const tabs = await wb.page.locator('.tabs-container .tab').allTextContents();
      throw new Error(`${err.message}; tabs open: ${JSON.stringify(tabs)}`);
    });
  const labels = await wb.until('the demo Kustomizations and HelmRelease as nodes', async () => {
    const l = await nodes.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    const want = ['Kustomization flux-system/flux-system', 'Kustomization flux-system/infra-crds', 'Kustomization flux-system/infra-configs', 'Kustomization flux-system/apps', 'HelmRelease demo/hello'];
    return want.every((w) => l.includes(w)) ? l : undefined;
  });
  assert.equal(labels.length, 5, labels.join('\n'));

  // Live status from the seeded cluster (the same states as the tree).
  await wb.until('live status on the nodes', async () => ((await frame.locator('#graph .node.state-Ready').count()) >= 4 ? true : undefined), 60_000);

  // infra-configs applies a ClusterIssuer whose CRD infra-crds installs, without dependsOn: one red edge.
  const problem = frame.locator('#graph .edge-problem');
  assert.equal(await problem.count(), 1);
  await problem.locator('path.hit').hover({ force: true });
  const tip = frame.locator('#tooltip');
  await tip.waitFor({ state: 'visible', timeout: 5_000 });
  assert.match((await tip.textContent()) ?? '', /crd-order: ClusterIssuer/);
  // dependsOn (solid) and applies (dashed) are drawn differently.
  assert.ok((await frame.locator('#graph .edge-dependsOn').count()) >= 1);
  assert.ok((await frame.locator('#graph .edge-applies').count()) >= 3);

  await wb.dismissNotifications();
  const shot = await wb.screenshot('06-graph');
  if (process.env.E2E_UPDATE_SCREENSHOTS === '1') {
    fs.copyFileSync(shot, path.resolve(__dirname, '../../../media/screenshots/graph.png'));
  }

  // Search dims what does not match.
  await frame.locator('#search').fill('infra');
  assert.equal(await frame.locator('#graph .node.match').count(), 2);
  await frame.locator('#search').fill('');

  // Clicking a node opens its YAML.
  await frame.locator('#graph .node[aria-label="Kustomization flux-system/apps"]').click();
  await wb.page.locator('.tabs-container .tab.active', { hasText: 'apps.yaml' }).waitFor({ timeout: 20_000 });
  // The cursor in that document highlights its node.
  await frame.locator('#graph .node.highlight[aria-label="Kustomization flux-system/apps"]').waitFor({ timeout: 10_000 });
});

test('the graph follows an unsaved edit without a reload', async () => {
  // The editor from the previous test has clusters/demo/apps.yaml open at the Kustomization.
  await wb.goToLineEnd(8);
  await wb.page.keyboard.type('z');
  const frame = graphFrame();
  await wb
    .until('a missing dependency node for infra-configsz', async () =>
      (await frame.locator('#graph .node.missing[aria-label="Kustomization flux-system/infra-configsz"]').count()) === 1 ? true : undefined,
    )
    .catch(async (err) => {
      await wb.screenshot('06-graph-edit-failed');
      throw new Error(`${err.message}; editor:\n${await wb.editorText()}`);
    });
  assert.ok((await frame.locator('#graph .edge-problem').count()) >= 2);
  await wb.page.keyboard.press('Backspace');
  await wb.until('the missing node gone again', async () => ((await frame.locator('#graph .node.missing').count()) === 0 ? true : undefined));
});
