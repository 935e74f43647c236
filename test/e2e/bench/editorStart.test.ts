/**
 * The issue-27 measurement in real VS Code: how long after the workbench is up the Flux tree shows
 * a corpus's clusters, and its problems appear, on the first open of the folder (no build or
 * parse of it kept) and when it is opened again. Run by `npm run bench -- editor`
 * (bench/editorStart.bench.ts) through test/e2e/run.sh with E2E_SCENARIO_DIR=test/e2e/bench; the
 * times go to editor-start.json in the artefacts folder. It asserts that the tree and the problems
 * come, not how fast: speed targets live in the benchmarks.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Workbench } from '../lib/workbench';
import { e2eEnv } from '../lib/env';

const CORPUS = process.env.E2E_START_CORPUS ?? 'joryirving-home-ops';
const RUNS = Number(process.env.E2E_START_RUNS ?? 3);

interface Open {
  readonly kind: 'first' | 'again';
  /** From the workbench being up (the extension's view container shown) to a cluster row in the Flux tree. */
  readonly treeMs: number;
  /** From the workbench being up to the status bar's first non-zero problem count. */
  readonly problemsMs: number;
  /** From the workbench being up to the last change of that count (still for 5 s after). */
  readonly problemsSettledMs: number;
  readonly problems: string;
  readonly clusters: string[];
  /** From the extension's activation to the tree's first top-level items, as its log says (undefined: not logged). */
  readonly treeAfterActivationMs: number | undefined;
}

/** The newest extension host's "[tree] first … shown, N ms after activation" line (each open starts a new host). */
function treeAfterActivation(userData: string): number | undefined {
  const files = (dir: string): string[] =>
    fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)])) : [];
  const logs = files(path.join(userData, 'logs')).filter((f) => f.endsWith('GitOps Preview.log'));
  const newest = logs.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs).at(-1);
  const line = newest && /\[tree\] first \d+ top-level item\(s\) shown, (\d+) ms after activation/.exec(fs.readFileSync(newest, 'utf8'));
  return line ? Number(line[1]) : undefined;
}

/** The corpus as a user's clone: its own Git repository with `origin` set. */
function clone(into: string): string {
  const src = path.resolve(__dirname, '../../../../shared/corpora', CORPUS);
  const dir = path.join(into, CORPUS);
  fs.cpSync(src, dir, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=e2e@example.invalid', '-c', 'user.name=e2e', 'add', '-A');
  git('-c', 'user.email=e2e@example.invalid', '-c', 'user.name=e2e', 'commit', '-q', '-m', 'corpus');
  const source = /^source: (\S+)/m.exec(fs.readFileSync(path.join(src, 'CORPUS.txt'), 'utf8'))?.[1] ?? CORPUS;
  git('remote', 'add', 'origin', `https://github.com/${source}.git`);
  return dir;
}

async function measure(wb: Workbench, kind: Open['kind']): Promise<Open> {
  const ready = Date.now();
  const problemsText = async () => ((await wb.page.locator('[id="status.problems"]').first().getAttribute('aria-label').catch(() => null)) ?? '').trim();
  const count = (text: string) => (text.match(/\d+/g) ?? []).reduce((n, d) => n + Number(d), 0);
  let problemsAt: number | undefined;
  let lastText = await problemsText();
  let lastChange = ready;
  const poll = async () => {
    const text = await problemsText();
    if (text !== lastText) {
      lastText = text;
      lastChange = Date.now();
    }
    if (problemsAt === undefined && count(text) > 0) problemsAt = Date.now();
  };
  await wb.command('GitOps Preview: Focus on Flux View');
  const pane = wb.viewPane('Flux');
  let treeAt: number | undefined;
  let clusters: string[] = [];
  await wb.until('a cluster row in the Flux tree and a problem count', async () => {
    await poll();
    if (treeAt === undefined) {
      const rows = await pane.locator('.monaco-list-row[aria-level="1"][aria-expanded]').evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? '').trim()));
      if (rows.length) {
        treeAt = Date.now();
        clusters = rows;
      }
    }
    return treeAt !== undefined && problemsAt !== undefined ? true : undefined;
  }, 180_000);
  await wb.until('the problem count to stay still for 5 s', async () => {
    await poll();
    return Date.now() - lastChange >= 5_000 ? true : undefined;
  }, 180_000);
  return {
    kind,
    treeMs: treeAt! - ready,
    problemsMs: problemsAt! - ready,
    problemsSettledMs: Math.max(problemsAt!, lastChange) - ready,
    problems: lastText,
    clusters,
    treeAfterActivationMs: treeAfterActivation(e2eEnv().userData),
  };
}

test(`${CORPUS}: the Flux tree and the problems, on the first open and when opened again`, async () => {
  const env = e2eEnv();
  const opens: Open[] = [];
  for (let run = 0; run < RUNS; run++) {
    // A new folder each run: its first open has nothing of it kept (builds, parses).
    const dir = clone(fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-start-')));
    for (const kind of ['first', 'again'] as const) {
      const wb = await Workbench.open({ folder: dir });
      try {
        opens.push(await measure(wb, kind));
        if (run === 0 && kind === 'first') await wb.screenshot('bench-editor-start');
      } finally {
        await wb.close();
      }
    }
  }
  fs.writeFileSync(path.join(env.artifacts, 'editor-start.json'), JSON.stringify({ corpus: CORPUS, opens }, null, 2));
  for (const o of opens) {
    assert.ok(o.clusters.length > 0, 'the tree shows clusters');
    assert.ok(o.problems !== '', 'the status bar shows problems');
  }
});
