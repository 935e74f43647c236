/**
 * Multi-root workspaces: a `.code-workspace` with the demo repository and a second Flux repository
 * (a copy of the demo with its cluster renamed) shows one top-level node per folder in the Flux
 * tree, each with its own cluster.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench } from '../lib/workbench';
import { e2eEnv } from '../lib/env';

let wb: Workbench;
let second: string;
let workspaceFile: string;

before(async () => {
  const env = e2eEnv();
  const work = path.dirname(env.workspace);
  second = path.join(work, 'fleet-staging');
  fs.rmSync(second, { recursive: true, force: true });
  fs.cpSync(path.resolve(__dirname, '../../../examples/demo-repo'), second, { recursive: true });
  fs.renameSync(path.join(second, 'clusters/demo'), path.join(second, 'clusters/staging'));
  const sync = path.join(second, 'clusters/staging/flux-system/gotk-sync.yaml');
  fs.writeFileSync(sync, fs.readFileSync(sync, 'utf8').replace('path: ./clusters/demo', 'path: ./clusters/staging'));
  workspaceFile = path.join(work, 'two-folders.code-workspace');
  fs.writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: env.workspace }, { path: second }] }, null, 2));
  wb = await Workbench.open({ workspaceFile });
});
after(async () => {
  await wb?.close();
});

/** Whole names only: `demo` must not match the row of the folder `demo-repo` (nor end the wait early). */
const wholeName = (name: string) => new RegExp(`(^|\\s)${name}(?![\\w-])`);

test('a two-folder workspace shows both folders as top-level nodes, each with its own cluster tree', async () => {
  await wb.command('GitOps Preview: Focus on Flux View');
  const pane = wb.viewPane('Flux');
  const folderA = path.basename(e2eEnv().workspace);
  const folderB = path.basename(second);
  let seen: string[] = [];
  const rows = await wb.until('both folders and their clusters in the tree', async () => {
    const r = await wb.treeRows('Flux');
    seen = r;
    if ([folderA, folderB, 'demo', 'staging'].every((n) => r.some((row) => wholeName(n).test(row)))) return r;
    // The list is virtualised: only rows in view exist. Open folder rows only, and fold the first
    // cluster once the second folder is listed, so that its cluster row scrolls into view whatever
    // order the two folders finished indexing in.
    const collapsedFolder = pane.locator('.monaco-list-row[aria-level="1"][aria-expanded="false"]');
    if ((await collapsedFolder.count()) > 0) {
      await collapsedFolder.first().locator('.monaco-tl-twistie').click();
      return undefined;
    }
    const firstCluster = pane.locator('.monaco-list-row[aria-level="2"][aria-expanded="true"]', { hasText: wholeName('demo') });
    if (r.some((row) => wholeName(folderB).test(row)) && (await firstCluster.count()) > 0) {
      await firstCluster.first().locator('.monaco-tl-twistie').click();
    }
    return undefined;
  }, 120_000).catch(async (err: Error) => {
    await wb.screenshot('05-multiroot-failed');
    throw new Error(`${err.message}; rows in view:\n${seen.join('\n')}\n${await wb.diagnose('Flux')}`);
  });
  await wb.widenSideBar(560);
  await wb.screenshot('05-multiroot');
  const indexOf = (name: string) => rows.findIndex((r) => wholeName(name).test(r));
  for (const name of [folderA, folderB, 'demo', 'staging']) assert.ok(indexOf(name) >= 0, `no row for ${name} in:\n${rows.join('\n')}`);
  // Each cluster sits under its own folder.
  assert.ok(indexOf(folderA) < indexOf('demo') && indexOf('demo') < indexOf(folderB) && indexOf(folderB) < indexOf('staging'), rows.join('\n'));
});

test("a cluster's graph action opens that folder's dependency graph", async () => {
  const pane = wb.viewPane('Flux');
  // The second folder's cluster row (level 2; the folder row `fleet-staging` is level 1).
  const row = pane.locator('.monaco-list-row[aria-level="2"]', { hasText: 'staging' });
  await row.waitFor({ timeout: 10_000 });
  await wb.settledTreeRows('Flux');
  await row.hover();
  await row.locator('.action-label.codicon-type-hierarchy').click({ timeout: 10_000 });
  const folderB = path.basename(second);
  await wb.page
    .locator('.tabs-container .tab', { hasText: `Flux Dependency Graph: ${folderB}` })
    .waitFor({ timeout: 30_000 })
    .catch(async (err: Error) => {
      await wb.screenshot('05-multiroot-graph-failed');
      const tabs = await wb.page.locator('.tabs-container .tab').allTextContents();
      throw new Error(`${err.message}; tabs open: ${JSON.stringify(tabs)}`);
    });
  const frame = wb.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  await frame.locator('#graph .node[aria-label="Kustomization flux-system/apps"]').waitFor({ timeout: 30_000 });
  assert.equal(await frame.locator('#cluster').inputValue(), 'staging');
  await wb.screenshot('05-multiroot-graph');
});
