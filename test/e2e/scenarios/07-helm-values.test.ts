/**
 * HelmRelease values checked and completed from the chart, in the editor: a HelmRelease of the
 * real app-template chart (../shared/charts, put in the session's chart cache as a fetch would,
 * GITOPS_PREVIEW_CACHE set by run.sh) with `replicas: two` shows an error at that line, whose
 * Problems entry carries the chart schema's words; completion inside `spec.values` offers the
 * chart's keys; typing the right value removes the error.
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { Workbench } from '../lib/workbench';
import { defaultChartCache, storeChart, writeRef } from '../../../src/render/charts/cache';
import { chartCacheKey } from '../../../src/render/charts/fetch';
import { readTarGz } from '../../../src/render/charts/tar';

const REPO_URL = 'http://charts.e2e.invalid/';
const DIR = 'apps/demo';
const FILE = `${DIR}/media.yaml`;
const SHARED_CHART = path.resolve(__dirname, '../../../../shared/charts/repo/app-template-4.1.1.tgz');

const RELEASE = `apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: bjw-s
spec:
  interval: 1h
  url: ${REPO_URL}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: media
spec:
  interval: 1h
  chart:
    spec:
      chart: app-template
      version: 4.1.1
      sourceRef:
        kind: HelmRepository
        name: bjw-s
  values:
    controllers:
      main:
        replicas: two
        containers:
          app:
            image:
              repository: ghcr.io/home-operations/jellyfin
              tag: 10.10.7
`;

let wb: Workbench;
let kustomization: string;
before(async () => {
  // The chart in the cache, as `gitops-preview build hr` or Show Drift would have fetched it.
  const cache = defaultChartCache(process.env);
  assert.ok(process.env.GITOPS_PREVIEW_CACHE && cache.startsWith(process.env.GITOPS_PREVIEW_CACHE), `the session's own chart cache, not ${cache}`);
  const tgz = fs.readFileSync(SHARED_CHART);
  const digest = createHash('sha256').update(tgz).digest('hex');
  const files = readTarGz(tgz);
  assert.ok(files.ok, 'app-template unpacks');
  assert.ok(storeChart(cache, digest, files.files));
  writeRef(cache, chartCacheKey({ kind: 'http', repoUrl: REPO_URL, chart: 'app-template', version: '4.1.1' }), { digest, version: '4.1.1', at: Date.now() });

  wb = await Workbench.open();
  const ksFile = path.join(wb.env.workspace, DIR, 'kustomization.yaml');
  kustomization = fs.readFileSync(ksFile, 'utf8');
  fs.writeFileSync(path.join(wb.env.workspace, FILE), RELEASE);
  fs.writeFileSync(ksFile, `${kustomization.trimEnd()}\n  - media.yaml\n`);
});
after(async () => {
  if (wb) {
    fs.rmSync(path.join(wb.env.workspace, FILE), { force: true });
    fs.writeFileSync(path.join(wb.env.workspace, DIR, 'kustomization.yaml'), kustomization);
  }
  await wb?.close();
});

test("a value app-template's schema refuses is an error at its line; completion offers the chart's keys", async () => {
  const line = RELEASE.split('\n').findIndex((l) => l.includes('replicas: two')) + 1;
  await wb.openFile(FILE);
  const errors = wb.editor().locator('.squiggly-error');
  // The chart renders in the engine once the Kustomization builds are done (seconds for app-template).
  await errors.first().waitFor({ timeout: 120_000 });
  const problems = await wb.until('a Problems entry for replicas', async () => {
    const rows = await wb.problems();
    return rows.some((r) => r.includes('values.controllers.main.replicas')) ? rows : undefined;
  }, 60_000);
  const row = problems.find((r) => r.includes('values.controllers.main.replicas'))!;
  assert.match(row, /got string, want null or integer/);
  assert.match(row, new RegExp(`\\b${line}\\b`), `the entry is at line ${line}: ${row}`);
  await wb.screenshot('07-helm-values-error');

  // Completion on a new line beside `replicas`: the controller's keys from the chart's schema.
  await wb.goToLineEnd(line);
  await wb.page.keyboard.press('Enter');
  const suggest = wb.page.locator('.suggest-widget .monaco-list-row');
  let rows: string[] = [];
  let labels: string[] | undefined;
  // Asked again when the list opened before the edit reached the engine (as 08-schema does).
  for (let attempt = 0; attempt < 3 && !labels; attempt++) {
    await wb.page.keyboard.press('Control+Space');
    labels = await wb
      .until('chart keys in the completion list', async () => {
        rows = await suggest.allTextContents();
        return rows.some((r) => r.startsWith('initContainers')) ? rows : undefined;
      }, 10_000)
      .catch(async () => {
        await wb.page.keyboard.press('Escape');
        return undefined;
      });
  }
  if (!labels) assert.fail(`no chart keys in the completion list: ${JSON.stringify(rows)}`);
  assert.ok(labels.some((r) => r.startsWith('pod')), labels.join(' | '));
  assert.ok(!labels.some((r) => r.startsWith('replicas')), `replicas is written already: ${labels.join(' | ')}`);
  // Narrowed to one key, with its description from the schema beside the list.
  await wb.page.keyboard.type('forceRe');
  await wb.page.locator('.suggest-widget .monaco-list-row.focused', { hasText: 'forceRename' }).waitFor({ timeout: 15_000 });
  const details = wb.page.locator('.suggest-details');
  if (!(await details.isVisible())) await wb.page.keyboard.press('Control+Space');
  await wb.until("the key's description", async () => ((await details.textContent())?.includes('Override the default resource name') ? true : undefined), 15_000);
  await wb.screenshot('07-helm-values-completion');
  await wb.page.keyboard.press('Escape');
  for (let i = 0; i < 'forceRe'.length + 1; i++) await wb.page.keyboard.press('Backspace');

  // The right type: the error goes.
  await wb.goToLineEnd(line);
  for (let i = 0; i < 'two'.length; i++) await wb.page.keyboard.press('Backspace');
  await wb.page.keyboard.type('2');
  await wb.until('the error to go', async () => ((await errors.count()) === 0 ? true : undefined), 120_000);
  await wb.editor().locator('.view-lines').click();
  await wb.page.keyboard.press('Control+S');
});
