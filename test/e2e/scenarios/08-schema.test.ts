/**
 * Schema validation, hover and completion for Flux kinds, in the editor, with no `$schema`
 * comment: `prune: maybe` in the apps Kustomization is an error from the Kustomization CRD's schema
 * while typing; a hover on `interval` shows the CRD's description; after `- name: ` in dependsOn,
 * completion offers the cluster's other Kustomizations. The file is left as it was.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench } from '../lib/workbench';

const FILE = 'clusters/demo/apps.yaml';

let wb: Workbench;
let original: string;
before(async () => {
  wb = await Workbench.open();
  original = fs.readFileSync(path.join(wb.env.workspace, FILE), 'utf8');
});
after(async () => {
  await wb?.close();
});

test('a wrong type is a schema error while typing; hover and completion come from the same schema and the workspace', async () => {
  const lines = original.split('\n');
  const lineOf = (text: string) => lines.findIndex((l) => l.trim() === text) + 1;
  await wb.openFile(FILE);
  const errors = wb.editor().locator('.squiggly-error');
  await wb.until('the editor to show no error for the valid file', async () => ((await errors.count()) === 0 ? true : undefined));

  // prune: true → prune: maybe
  await wb.goToLineEnd(lineOf('prune: true'));
  for (let i = 0; i < 'true'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('maybe');
  await errors.first().waitFor({ timeout: 30_000 });
  let seen: string[] = [];
  const problems = await wb
    .until('a Problems entry for spec.prune', async () => {
      seen = await wb.problems();
      return seen.some((r) => r.includes('spec.prune')) ? seen : undefined;
    }, 30_000)
    .catch(async (err: Error) => {
      await wb.screenshot('08-schema-invalid-failed');
      throw new Error(`${err.message}; the Problems panel shows: ${JSON.stringify(seen)}`);
    });
  // The bundled Flux schema, and the connected test cluster's copy of the CRD when its watch has listed it.
  assert.match(problems.find((r) => r.includes('spec.prune'))!, /"maybe" where the schema wants true or false; the API server rejects the object \(schema: Flux 2\.9(, CRD kustomizations\.kustomize\.toolkit\.fluxcd\.io \(cluster [^)]+\))? Kustomization v1\)/);
  await wb.screenshot('08-schema-invalid');
  // The Problems panel has the focus now: back to the line.
  await wb.goToLineEnd(lineOf('prune: true'));
  for (let i = 0; i < 'maybe'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('true');
  await wb.until('the error to go', async () => ((await errors.count()) === 0 ? true : undefined), 30_000).catch(async (err: Error) => {
    await wb.screenshot('08-schema-fixed-failed');
    throw new Error(`${err.message}; the editor shows:\n${await wb.editorText()}\nProblems: ${JSON.stringify(await wb.problems())}`);
  });

  // Hover on `interval`, from the keyboard (Ctrl+K Ctrl+I).
  await wb.goToLineEnd(lineOf('interval: 10m'));
  await wb.page.keyboard.press('Home');
  await wb.page.keyboard.press('ArrowRight');
  await wb.page.keyboard.press('Control+K');
  await wb.page.keyboard.press('Control+I');
  const hover = wb.page.locator('.monaco-hover:visible');
  const text = await wb.until('the hover on interval', async () => {
    const t = (await hover.allTextContents()).join(' ');
    return /interval/.test(t) && /required/.test(t) ? t : undefined;
  }, 20_000);
  assert.match(text, /The interval at which to reconcile the Kustomization/);
  await wb.page.waitForTimeout(600); // the hover's fade-in, for the screenshot
  await wb.screenshot('08-schema-hover');
  await wb.page.keyboard.press('Escape');

  // dependsOn: `- name: ` then Ctrl+Space offers the cluster's Kustomizations.
  const dep = lineOf('- name: infra-configs');
  await wb.goToLineEnd(dep);
  for (let i = 0; i < 'infra-configs'.length; i++) await wb.page.keyboard.press('Backspace');
  const suggest = wb.page.locator('.suggest-widget .monaco-list-row');
  let rows: string[] = [];
  let labels: string[] | undefined;
  // Asked again when the list opened before the edit reached the engine (or not at all).
  for (let attempt = 0; attempt < 3 && !labels; attempt++) {
    await wb.page.keyboard.press('Control+Space');
    labels = await wb
      .until('Kustomization names in the completion list', async () => {
        rows = await suggest.allTextContents();
        return rows.some((r) => r.startsWith('infra-crds')) ? rows : undefined;
      }, 8_000)
      .catch(async () => {
        await wb.page.keyboard.press('Escape');
        return undefined;
      });
  }
  if (!labels) {
    await wb.screenshot('08-schema-completion-failed');
    assert.fail(`no Kustomization names in the completion list: ${JSON.stringify(rows)}; the editor shows:\n${await wb.editorText()}`);
  }
  assert.ok(labels.some((r) => r.startsWith('infra-configs')), labels.join(' | '));
  assert.ok(!labels.some((r) => r.startsWith('apps')), `a Kustomization does not depend on itself: ${labels.join(' | ')}`);
  await wb.screenshot('08-schema-completion');
  await wb.page.keyboard.press('Escape');
  await wb.page.keyboard.type('infra-configs');

  // Back as it was: nothing to save.
  await wb.until('the file as it was', async () => ((await wb.editorText()).includes('- name: infra-configs') ? true : undefined));
  await wb.editor().locator('.view-lines').click();
  await wb.page.keyboard.press('Control+S');
  await wb.page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal(fs.readFileSync(path.join(wb.env.workspace, FILE), 'utf8'), original);
});
