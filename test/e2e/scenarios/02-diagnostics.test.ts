/**
 * Diagnostics while typing: a dependsOn entry naming no Kustomization gets a Problems entry as
 * soon as it is typed (before saving), and the quick fix offered for it removes it. The time from
 * the keystroke to the squiggle is measured and written to the artefacts (not asserted: speed
 * belongs to benchmarks).
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench } from '../lib/workbench';

const FILE = 'clusters/demo/apps.yaml';
const GOOD = 'infra-configs';
const BAD = 'infra-configz';

let wb: Workbench;
before(async () => {
  wb = await Workbench.open();
});
after(async () => {
  await wb?.close();
});

test('a bad dependsOn name gets a Problems entry while typing, and its quick fix removes it', async () => {
  const original = fs.readFileSync(path.join(wb.env.workspace, FILE), 'utf8');
  const lines = original.split('\n');
  const line = lines.findIndex((l) => l.trim() === `- name: ${GOOD}`) + 1;
  assert.ok(line > 0, `no "- name: ${GOOD}" line in ${FILE}`);

  await wb.openFile(FILE);
  const errors = wb.editor().locator('.squiggly-error');
  await wb.until('the editor to show no error for the valid file', async () => ((await errors.count()) === 0 ? true : undefined));

  await wb.goToLineEnd(line);
  await wb.page.keyboard.press('Backspace');
  const typedAt = Date.now();
  await wb.page.keyboard.type('z');
  await errors.first().waitFor({ timeout: 15_000 });
  const latencyMs = Date.now() - typedAt;
  fs.mkdirSync(wb.env.artifacts, { recursive: true });
  fs.writeFileSync(path.join(wb.env.artifacts, '02-diagnostics-latency.json'), JSON.stringify({ keystrokeToSquiggleMs: latencyMs }, null, 2) + '\n');
  console.log(`# keystroke to squiggle: ${latencyMs} ms`);
  assert.match(await wb.editorText(), new RegExp(`- name: ${BAD}`));

  const problems = await wb.until('a Problems entry for the bad name', async () => {
    const rows = await wb.problems();
    return rows.some((r) => r.includes(BAD)) ? rows : undefined;
  });
  await wb.screenshot('02-diagnostics-problem');
  const row = problems.find((r) => r.includes(BAD))!;
  assert.match(row, /not found/, `unexpected Problems entry: ${row}`);

  // Quick fix at the error, as a person would: cursor into the name, Ctrl+. , pick the fix.
  await wb.goToLineEnd(line);
  await wb.page.keyboard.press('ArrowLeft');
  await wb.page.keyboard.press('Control+.');
  const fix = wb.page.locator('.action-widget .monaco-list-row', { hasText: `Change to '${GOOD}'` }).first();
  await fix.waitFor({ timeout: 15_000 });
  await wb.screenshot('02-diagnostics-quickfix');
  await wb.chooseFocusedRow('.action-widget', `Change to '${GOOD}'`);

  await wb.until('the editor to show the fixed name', async () => ((await wb.editorText()).includes(`- name: ${GOOD}`) ? true : undefined));
  await wb.until('the squiggle to go', async () => ((await errors.count()) === 0 ? true : undefined));
  const after = await wb.until('the Problems entry to go', async () => {
    const rows = await wb.problems();
    return rows.some((r) => r.includes(BAD)) ? undefined : rows;
  });
  assert.ok(!after.some((r) => r.includes(BAD)));
  // Save, so the next scenario finds the file as it was (and not a dirty buffer).
  await wb.editor().locator('.view-lines').click();
  await wb.page.keyboard.press('Control+S');
  await wb.page.locator('.tabs-container .tab.active.dirty').waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal(fs.readFileSync(path.join(wb.env.workspace, FILE), 'utf8'), original);
});
