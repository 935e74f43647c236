/**
 * Review Changes: a Git copy of the demo repository (the base committed on main, a branch
 * `feature` tracking it) with the web Deployment's image tag and replica count edited in the
 * working tree. "GitOps: Review Changes…" against the upstream lists that Deployment under its
 * cluster and Kustomization, the status bar sums it up, a click opens the diff editor with the
 * base on one side and the working tree on the other; an unsaved edit of another file joins the
 * review without a save; an unsaved values edit of a HelmRelease shows what its chart renders
 * differently.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench } from '../lib/workbench';
import { e2eEnv } from '../lib/env';

const DEMO = path.resolve(__dirname, '../../../examples/demo-repo');
const WEB = 'apps/demo/web.yaml';
const CONFIG = 'apps/demo/web-config.yaml';
const HELLO = 'apps/demo/hello-release.yaml';

let wb: Workbench;
let repo: string;

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=e2e@example.com', '-c', 'user.name=e2e', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, encoding: 'utf8' }).trim();
}

before(async () => {
  repo = path.join(path.dirname(e2eEnv().workspace), 'review-repo');
  fs.rmSync(repo, { recursive: true, force: true });
  fs.cpSync(DEMO, repo, { recursive: true });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'feature');
  git('config', 'branch.feature.remote', '.');
  git('config', 'branch.feature.merge', 'refs/heads/main');
  const web = path.join(repo, WEB);
  const text = fs.readFileSync(web, 'utf8');
  assert.ok(text.includes('podinfo:6.7.1') && text.includes('replicas: 2'), 'the demo Deployment is not as this scenario expects');
  fs.writeFileSync(web, text.replace('podinfo:6.7.1', 'podinfo:6.8.0').replace('replicas: 2', 'replicas: 3'));
  wb = await Workbench.open({ folder: repo });
});
after(async () => {
  await wb?.close();
});

function statusItem(text: string) {
  return wb.page.locator('.part.statusbar .statusbar-item', { hasText: text }).first();
}

test('Review Changes… against the upstream lists the edited Deployment and opens its diff', async () => {
  // The command answers "still indexing" until the first index is done: the tree shows it is.
  await wb.command('GitOps Preview: Focus on Flux View');
  await wb.viewPane('Flux').locator('.monaco-list-row', { hasText: 'demo' }).first().waitFor({ timeout: 60_000 });

  const upstream = wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'Upstream main' }).first();
  for (let attempt = 0; ; attempt++) {
    await wb.command('GitOps: Review Changes…');
    const shown = await upstream.waitFor({ timeout: 20_000 }).then(
      () => true,
      () => false,
    );
    if (shown) break;
    const notes = await wb.notifications();
    await wb.page.keyboard.press('Escape');
    if (attempt === 2) {
      await wb.screenshot('09-review-picker-failed');
      assert.fail(`the base picker did not offer the upstream; notifications: ${JSON.stringify(notes)}`);
    }
  }
  // The upstream is the first item, focused: Enter takes it.
  await wb.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'Upstream main' }).waitFor({ timeout: 5_000 });
  await wb.page.keyboard.press('Enter');

  const pane = wb.viewPane('Review');
  const object = pane.locator('.monaco-list-row', { hasText: 'Deployment demo/web' }).first();
  await object.waitFor({ timeout: 120_000 }).catch(async (err: Error) => {
    await wb.screenshot('09-review-view-failed');
    throw new Error(`${err.message}\n${await wb.diagnose('Review')}`);
  });
  const rows = await wb.settledTreeRows('Review');
  const text = rows.join('\n');
  for (const want of ['demo', 'Kustomization flux-system/apps', 'Deployment demo/web', 'Images (1)']) assert.ok(text.includes(want), `no "${want}" in the Review view:\n${text}`);
  assert.match(rows.find((r) => r.includes('Deployment demo/web'))!, /changed/);
  await statusItem('Review: 1 cluster, 1 object changed').waitFor({ timeout: 30_000 });

  await object.click();
  const diff = wb.page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ timeout: 30_000 });
  const side = (which: 'original' | 'modified') =>
    diff.locator(`.editor.${which} .view-lines`).first().innerText().then((t) => t.replace(/\u00a0/g, ' '));
  const [base, working] = await wb.until('both sides of the diff', async () => {
    const o = await side('original');
    const m = await side('modified');
    return o.includes('podinfo:') && m.includes('podinfo:') ? [o, m] : undefined;
  }, 30_000);
  assert.ok(base.includes('podinfo:6.7.1') && base.includes('replicas: 2'), `the base side:\n${base}`);
  assert.ok(working.includes('podinfo:6.8.0') && working.includes('replicas: 3'), `the working-tree side:\n${working}`);
  await wb.page.locator('.tabs-container .tab.active', { hasText: 'Deployment demo/web' }).waitFor({ timeout: 10_000 });
  await wb.page.locator('.monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert').first().waitFor({ timeout: 10_000 });

  // Side by side: the editor keeps the width VS Code needs not to fall back to the inline view.
  await wb.widenSideBar(340);
  const boxes = await wb.until('the base and the working tree side by side', async () => {
    const o = await diff.locator('.editor.original').first().boundingBox();
    const m = await diff.locator('.editor.modified').first().boundingBox();
    return o && m && o.width > 200 && m.width > 200 && o.x + o.width <= m.x + 1 ? [o, m] : undefined;
  }, 10_000);
  assert.ok(boxes);
  await wb.dismissNotifications();
  const shot = await wb.screenshot('review-diff');
  if (process.env.E2E_UPDATE_SCREENSHOTS === '1') fs.copyFileSync(shot, path.resolve(__dirname, '../../../media/screenshots/review-diff.png'));
});

test('an unsaved edit of another file joins the review, and leaves it when undone', async () => {
  const original = fs.readFileSync(path.join(repo, CONFIG), 'utf8');
  const line = original.split('\n').findIndex((l) => l.trim() === 'LOG_LEVEL: info') + 1;
  await wb.openFile(CONFIG);
  await wb.goToLineEnd(line);
  for (let i = 0; i < 'info'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('debug');

  const config = wb.viewPane('Review').locator('.monaco-list-row', { hasText: 'ConfigMap demo/web-config' }).first();
  await config.waitFor({ timeout: 60_000 }).catch(async (err: Error) => {
    await wb.screenshot('09-review-edit-failed');
    throw new Error(`${err.message}; the editor shows:\n${await wb.editorText()}\n${await wb.diagnose('Review')}`);
  });
  await statusItem('Review: 1 cluster, 2 objects changed').waitFor({ timeout: 30_000 });
  assert.equal(fs.readFileSync(path.join(repo, CONFIG), 'utf8'), original, 'the edit was saved');

  await wb.goToLineEnd(line);
  for (let i = 0; i < 'debug'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('info');
  await config.waitFor({ state: 'detached', timeout: 60_000 });
  await statusItem('Review: 1 cluster, 1 object changed').waitFor({ timeout: 30_000 });
  // Back as it was: nothing to save.
  await wb.editor().locator('.view-lines').click();
  await wb.page.keyboard.press('Control+S');
  await wb.page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal(fs.readFileSync(path.join(repo, CONFIG), 'utf8'), original);
});

test('a values edit of a HelmRelease: what its chart renders differently, under the HelmRelease', async () => {
  const original = fs.readFileSync(path.join(repo, HELLO), 'utf8');
  const line = original.split('\n').findIndex((l) => l.trim() === 'message: Hello from Helm') + 1;
  assert.ok(line > 0, 'the demo HelmRelease is not as this scenario expects');
  await wb.openFile(HELLO);
  await wb.goToLineEnd(line);
  for (let i = 0; i < 'Helm'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('review');

  const pane = wb.viewPane('Review');
  const rendered = pane.locator('.monaco-list-row', { hasText: 'ConfigMap demo/hello-message' }).first();
  await rendered.waitFor({ timeout: 120_000 }).catch(async (err: Error) => {
    await wb.screenshot('09-review-helm-failed');
    throw new Error(`${err.message}; the editor shows:\n${await wb.editorText()}\n${await wb.diagnose('Review')}`);
  });
  const rows = (await wb.settledTreeRows('Review')).join('\n');
  for (const want of ['HelmRelease demo/hello', 'ConfigMap demo/hello-message', 'Deployment demo/hello']) assert.ok(rows.includes(want), `no "${want}" in the Review view:\n${rows}`);
  await rendered.click();
  const diff = wb.page.locator('.monaco-diff-editor').first();
  const working = await wb.until('the rendered ConfigMap, edited', async () => {
    const m = (await diff.locator('.editor.modified .view-lines').first().innerText().catch(() => '')).replace(/\u00a0/g, ' ');
    return m.includes('Hello from review') ? m : undefined;
  }, 30_000);
  assert.match(working, /message: Hello from review/);
  await wb.dismissNotifications();
  const shot = await wb.screenshot('review-helm');
  if (process.env.E2E_UPDATE_SCREENSHOTS === '1') fs.copyFileSync(shot, path.resolve(__dirname, '../../../media/screenshots/review-helm.png'));

  await wb.openFile(HELLO);
  await wb.goToLineEnd(line);
  for (let i = 0; i < 'review'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('Helm');
  await rendered.waitFor({ state: 'detached', timeout: 60_000 });
  assert.equal(fs.readFileSync(path.join(repo, HELLO), 'utf8'), original, 'the edit was saved');
});
