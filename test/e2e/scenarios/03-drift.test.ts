/**
 * Drift: "Show Drift" on the apps Kustomization dry-runs its objects against the test cluster and
 * opens, from the Drift view, a diff editor with the hand-made change seed.ts made to the live
 * ConfigMap (GREETING) next to the value in Git.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Workbench } from '../lib/workbench';
import { DRIFT } from '../seed';
import { getObject } from '../lib/cluster';

const FILE = 'clusters/demo/apps.yaml';
const changed = DRIFT.find((d) => d.kind === 'ConfigMap')!;
const LIVE_VALUE = changed.change.data.GREETING as string;
const GIT_VALUE = 'Hello from Git';

let wb: Workbench;
before(async () => {
  wb = await Workbench.open();
});
after(async () => {
  await wb?.close();
});

test('Show Drift opens a diff editor with the hand-made change', async () => {
  const live = await getObject(wb.env.kubeconfig, `/api/v1/namespaces/${changed.namespace}/configmaps/${changed.name}`);
  assert.equal(live?.data?.GREETING, LIVE_VALUE, 'the seeded drift is not in the cluster');

  await wb.openFile(FILE);
  const lens = wb.editor().locator('.codelens-decoration a', { hasText: 'Show Drift' }).first();
  await lens.waitFor({ timeout: 60_000 });
  await lens.click();

  const pane = wb.viewPane('Drift');
  const entry = pane.locator('.monaco-list-row', { hasText: changed.name }).first();
  await entry.waitFor({ timeout: 90_000 });
  const rows = await wb.treeRows('Drift');
  assert.ok(rows.some((r) => /drifted/.test(r)), `no drifted group in the Drift view:\n${rows.join('\n')}`);
  await entry.click();

  const diff = wb.page.locator('.monaco-diff-editor').first();
  await diff.waitFor({ timeout: 30_000 });
  const side = (which: 'original' | 'modified') =>
    diff.locator(`.editor.${which} .view-lines`).first().innerText().then((t) => t.replace(/\u00a0/g, ' '));
  const [original, modified] = await wb.until('both sides of the diff', async () => {
    const o = await side('original');
    const m = await side('modified');
    return o.includes('GREETING') && m.includes('GREETING') ? [o, m] : undefined;
  });
  await wb.dismissNotifications();
  await wb.screenshot('03-drift-diff');
  // live ↔ desired: the live side has the hand-made value, the desired side the value in Git.
  assert.ok(original.includes(LIVE_VALUE), `live side lacks "${LIVE_VALUE}":\n${original}`);
  assert.ok(modified.includes(GIT_VALUE), `desired side lacks "${GIT_VALUE}":\n${modified}`);
  assert.ok(!modified.includes(LIVE_VALUE));
  await wb.page.locator('.monaco-diff-editor .line-delete, .monaco-diff-editor .char-delete').first().waitFor({ timeout: 10_000 });
});
