/**
 * Reconcile: the CodeLens on a Kustomization asks for confirmation in a modal dialog; Cancel
 * writes nothing, confirming sets reconcile.fluxcd.io/requestedAt on the object in the cluster.
 * The test plays kustomize-controller by acknowledging the request in the object's status.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Workbench } from '../lib/workbench';
import { acknowledgeReconcile, getObject, kustomizationPath } from '../lib/cluster';

const FILE = 'clusters/demo/apps.yaml';
const REQUESTED_AT = 'reconcile.fluxcd.io/requestedAt';

let wb: Workbench;
before(async () => {
  wb = await Workbench.open();
});
after(async () => {
  await wb?.close();
});

test('Reconcile asks for confirmation, then annotates the Kustomization', async () => {
  const objPath = kustomizationPath('flux-system', 'apps');
  const before = await getObject(wb.env.kubeconfig, objPath);
  assert.ok(before, 'Kustomization flux-system/apps is not in the test cluster (seed.ts)');
  assert.equal(before.metadata.annotations?.[REQUESTED_AT], undefined, 'apps already has a reconcile request');

  await wb.openFile(FILE);
  const lens = wb.editor().locator('.codelens-decoration a', { hasText: /^Reconcile$/ }).first();
  await lens.waitFor({ timeout: 60_000 });
  const dialog = wb.page.locator('.monaco-dialog-box');

  // Cancel: nothing is written.
  await lens.click();
  await dialog.waitFor({ timeout: 15_000 });
  const question = (await dialog.textContent()) ?? '';
  assert.match(question, /Reconcile/);
  assert.match(question, /apps/);
  await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
  const afterCancel = await getObject(wb.env.kubeconfig, objPath);
  assert.equal(afterCancel?.metadata.annotations?.[REQUESTED_AT], undefined, 'Cancel wrote a reconcile request');

  // Confirm: the annotation lands on the object.
  await lens.click();
  await dialog.waitFor({ timeout: 15_000 });
  await wb.screenshot('04-reconcile-confirm');
  await dialog.locator('.monaco-button', { hasText: /^Reconcile$/ }).click();
  const annotated = await wb.until('the reconcile annotation on Kustomization flux-system/apps', async () => {
    const o = await getObject(wb.env.kubeconfig, objPath);
    return o?.metadata.annotations?.[REQUESTED_AT] ? o : undefined;
  });
  const requestedAt = annotated.metadata.annotations[REQUESTED_AT] as string;
  assert.ok(requestedAt.length > 0);

  // Play the controller so the extension's wait ends, and see it report success.
  await acknowledgeReconcile(wb.env.kubeconfig, objPath, requestedAt, annotated.metadata.generation ?? 1);
  const messages = await wb.until('a notification about the finished reconcile', async () => {
    const m = await wb.notifications();
    return m.some((t) => /apps/.test(t) && !/^Reconciling/.test(t)) ? m : undefined;
  }, 60_000);
  await wb.screenshot('04-reconcile-done');
  assert.ok(messages.some((t) => /apps/.test(t)), messages.join('\n'));
});
