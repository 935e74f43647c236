import { test } from 'node:test';
import assert from 'node:assert/strict';
import { marked } from 'marked';
import { parseAllDocuments } from 'yaml';
import { runCliCaptured } from '../helpers';
import { withFixture } from './adversarial';
import { adversarialOutput, FORGED, SECRET } from './adversarialOutput';
import { Repo } from '../../../src/core/repo';
import { memoryHost } from '../../../src/core/workspace/host';
import { describeSubstitution } from '../../../src/core/substitution/describe';
import { childrenOf, present, rootNodes, type TreeNode } from '../../../src/core/tree/viewModel';
import type { RepoModel } from '../../../src/core/model/graph';
import { reportText, type DriftReport } from '../../../src/core/drift';

/**
 * One regression test per way a repository could forge or leak through what the tool prints:
 * terminal escapes and `::` workflow commands in text output, raw controls in GitHub annotations,
 * YAML injected through `build`'s comments, Markdown rendering in hovers and tooltips, quoting
 * broken in graph pictures, and Secret values printed in clear. The timeout is a hang guard.
 */
const GUARD = { timeout: 120_000 };

/** The CLI in-process with an empty environment (no HOME: no build cache of an earlier run). */
const cli = (args: string[], dir: string) => runCliCaptured(args, dir);

/** What a terminal or GitHub Actions acts on: control characters (bidi included) and lines starting with `::`. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

function assertPlainLines(output: string, where: string): void {
  const match = CONTROL.exec(output);
  assert.equal(match, null, `${where} holds a control character U+${match?.[0].codePointAt(0)?.toString(16)}: ${JSON.stringify(output)}`);
  for (const line of output.split('\n')) assert.ok(!line.trimStart().startsWith('::'), `${where} has a line GitHub reads as a workflow command: ${JSON.stringify(line)}`);
}

test('check text: names and file names cannot add lines, commands or escapes; the summary is the real one', GUARD, () =>
  withFixture(adversarialOutput.forgedLines(), async (dir) => {
    const run = await cli(['check', dir], dir);
    assert.equal(run.code, 1, run.stderr);
    assertPlainLines(run.stdout, 'stdout');
    assertPlainLines(run.stderr, 'stderr');
    const summaries = run.stdout.split('\n').filter((l) => /^\d+ error\(s\), /.test(l));
    assert.equal(summaries.length, 1, run.stdout);
    assert.match(run.stdout, /^"apps\/::error title=forged::0 error\(s\)\.yaml":\d+:\d+: error \[yaml-syntax\]/m);
    // A message's further lines and related locations come behind a marker: a line break in a name
    // continues the finding, and no line but a finding's own or the summary starts bare.
    assert.match(run.stdout, /x\n {2}\| ::stop-commands::pwned\n {2}\| 0 error\(s\), 0 warning\(s\), 0 info\\x1b\[2J\\x00\\u202e\\x9b31m/);
    for (const line of run.stdout.split('\n').filter(Boolean)) {
      assert.match(line, /^(\S[^\n]*:\d+:\d+: (error|warning|info) \[[a-z-]+\] | {2}[|>] |\d+ error\(s\), \d+ warning\(s\), \d+ info$)/, line);
    }
    assert.match(summaries[0], /^[1-9]\d* error\(s\)/);
  }));

test('check --format github: one workflow command per finding, no control character in any', GUARD, () =>
  withFixture(adversarialOutput.forgedLines(), async (dir) => {
    const json = await cli(['check', dir, '--format', 'json'], dir);
    const count = (JSON.parse(json.stdout) as { diagnostics: unknown[] }).diagnostics.length;
    const run = await cli(['check', dir, '--format', 'github'], dir);
    assert.equal(run.code, 1, run.stderr);
    const lines = run.stdout.split('\n').filter(Boolean);
    assert.equal(lines.length, count);
    for (const line of lines) {
      assert.match(line, /^::(error|warning|notice) file=[^,:]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[a-z-]+::/);
      assert.equal(CONTROL.exec(line), null, `a control character in ${JSON.stringify(line)}`);
    }
    assert.match(run.stdout, /file=apps\/%3A%3Aerror title=forged%3A%3A0 error\(s\)\.yaml,/);
  }));

test('tree and graph text: names and file names cannot add lines, commands or escapes', GUARD, () =>
  withFixture(adversarialOutput.forgedLines(), async (dir) => {
    for (const args of [['tree', dir], ['graph', dir, '--format', 'dot'], ['graph', dir, '--format', 'mermaid']]) {
      const run = await cli(args, dir);
      assert.equal(run.code, 0, run.stderr);
      assertPlainLines(run.stdout, `${args.join(' ')} stdout`);
      assertPlainLines(run.stderr, `${args.join(' ')} stderr`);
    }
    const tree = await cli(['tree', dir], dir);
    assert.match(tree.stdout, /^ {2}"Kustomization\/flux-system\/z\\n::stop-commands::pwned\\n0 error\(s\), 0 warning\(s\), 0 info\\x1b\[2J\\x00\\u202e\\x9b31m" {2}\("unapplied\/\\x1b\[32mks\.yaml":1\)$/m);
  }));

/** Quoted strings as Graphviz before 8 reads them (`\"` is a quote inside, `\\` is no pair): each statement line must end outside a string. */
function assertDotStringsClose(dot: string): void {
  for (const line of dot.split('\n')) {
    let inside = false;
    for (let i = 0; i < line.length; i++) {
      if (!inside) inside = line[i] === '"';
      else if (line[i] === '\\' && line[i + 1] === '"') i++;
      else if (line[i] === '"') inside = false;
    }
    assert.equal(inside, false, `a DOT string does not close on ${JSON.stringify(line)}`);
  }
}

test('JSON and SARIF output: no control character raw, the same values once parsed', GUARD, () =>
  withFixture(adversarialOutput.forgedLines(), async (dir) => {
    for (const args of [['check', dir, '--format', 'json'], ['check', dir, '--format', 'sarif'], ['tree', dir, '--format', 'json'], ['graph', dir]]) {
      const run = await cli(args, dir);
      assertPlainLines(run.stdout, `${args.join(' ')} stdout`);
      assert.match(JSON.stringify(JSON.parse(run.stdout)), /::stop-commands::pwned/);
    }
  }));

test('graph --format dot: a name ending in a backslash cannot swallow the closing quote', GUARD, () =>
  withFixture(adversarialOutput.forgedLines(), async (dir) => {
    const run = await cli(['graph', dir, '--format', 'dot'], dir);
    assert.equal(run.code, 0, run.stderr);
    assertDotStringsClose(run.stdout);
    assert.match(run.stdout, /ends-in-backslash\\\\ "/);
  }));

test('build: a file name cannot end the # Source: comment and add objects', GUARD, () =>
  withFixture(adversarialOutput.sourceCommentInjection(), async (dir) => {
    const run = await cli(['build', 'ks', 'apps', dir], dir);
    assert.equal(run.code, 0, run.stderr);
    const docs = parseAllDocuments(run.stdout);
    const kinds = (Array.isArray(docs) ? docs : []).map((d) => (d.toJS() as { kind?: string } | null)?.kind);
    assert.deepEqual(kinds.sort(), ['ConfigMap', 'ConfigMap']);
    assert.doesNotMatch(run.stdout, /^kind: Pod/m);
    for (const line of run.stdout.split('\n').filter((l) => l.startsWith('#'))) assert.match(line, /^# Source: apps\//);
  }));

test('build: values cannot put control characters or workflow commands on the terminal, and parse the same', GUARD, () =>
  withFixture(adversarialOutput.forgedValues(), async (dir) => {
    const run = await cli(['build', 'ks', 'apps', dir], dir);
    assert.equal(run.code, 0, run.stderr);
    assertPlainLines(run.stdout, 'build stdout');
    const docs = parseAllDocuments(run.stdout);
    const app = (Array.isArray(docs) ? docs : []).map((d) => d.toJS()).find((o) => o?.kind === 'ConfigMap');
    assert.deepEqual(app.data, { script: 'echo ok\n::stop-commands::pwned\n', shown: 'a\u202eb\u2066c' });
  }));

test('diff text: subjects, reasons and the YAML in diffs cannot add lines, commands or escapes', () => {
  const subject = `ConfigMap/default/app${FORGED}`;
  const report: DriftReport = {
    target: { kind: 'Kustomization', name: `apps${FORGED}`, namespace: 'flux-system' },
    mode: 'kustomization',
    cancelled: false,
    notes: [`note${FORGED}`],
    requests: 2,
    entries: [
      {
        id: { apiVersion: 'v1', kind: 'ConfigMap', name: 'app', namespace: 'default' },
        subject,
        verdict: 'drifted',
        changes: [{ path: ['data', 'script'], op: 'replace', live: 'a', desired: 'b' }],
        live: { kind: 'ConfigMap', data: { script: 'echo a\n::stop-commands::pwned\n', shown: 'a\u202eb' } },
        desired: { kind: 'ConfigMap', data: { script: 'echo b\n::stop-commands::pwned\n', shown: 'a\u202eb' } },
      },
      { id: { apiVersion: 'v1', kind: 'Secret', name: 's', namespace: 'default' }, subject: 'Secret/default/s', verdict: 'error', reason: `dry-run failed${FORGED}`, changes: [] },
    ],
  };
  const text = reportText(report);
  assertPlainLines(text, 'diff text');
  assert.match(text, /^► ConfigMap\/default\/app\\n::stop-commands::pwned/m);
});

/** Every tooltip of the tree view, as VS Code renders the Markdown (marked, as the workbench does). */
function tooltips(model: RepoModel): string[] {
  const out: string[] = [];
  const walk = (nodes: TreeNode[]) => {
    for (const n of nodes) {
      const tip = present(n, model).tooltip;
      if (tip) out.push(tip);
      walk(childrenOf(n));
    }
  };
  walk(rootNodes(model));
  return out;
}

function rendered(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

test('hover and tree tooltips: repository text renders as text, never as an image, link or HTML', GUARD, () => {
  const repo = new Repo('/repo', memoryHost('/repo', adversarialOutput.markdownInjection().files));
  const model = repo.model();
  const file = model.workspace.files.get('/repo/apps/app.yaml')!;
  const hover = describeSubstitution(model, file.path, file.text.indexOf('${tag}') + 2);
  assert.ok(hover, 'the ${tag} hover is described');
  const tips = tooltips(model);
  assert.ok(tips.some((t) => t.includes('attacker.example/q.png')), 'the evil Kustomization has a tooltip');
  for (const markdown of [hover.markdown, ...tips]) {
    const html = rendered(markdown);
    assert.doesNotMatch(html, /<img|<a |<h\d/, `rendered: ${html}`);
    assert.equal(CONTROL.exec(markdown), null);
  }
  assert.match(rendered(hover.markdown), /<code>x` !\[p\]\(https:\/\/attacker\.example\/p\.png\) `y<\/code>/);
});

test('build: a Secret\'s last-applied-configuration annotation is masked', GUARD, () =>
  withFixture(adversarialOutput.lastApplied(), async (dir) => {
    const run = await cli(['build', 'ks', 'apps', dir], dir);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, new RegExp(SECRET));
    assert.match(run.stdout, /kubectl\.kubernetes\.io\/last-applied-configuration: "\*\*\*"/);
  }));

test('build: a Secret value that kustomize replacements copy into a ConfigMap is masked there', GUARD, () =>
  withFixture(adversarialOutput.replacementCopy(), async (dir) => {
    const run = await cli(['build', 'ks', 'apps', dir], dir);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, new RegExp(SECRET));
    const docs = parseAllDocuments(run.stdout);
    const app = (Array.isArray(docs) ? docs : []).map((d) => d.toJS()).find((o) => o?.kind === 'ConfigMap');
    assert.deepEqual(app.data, { a: '***', url: '***@db.example.com', role: 'administrator' });
  }));

test('build and check: a failed build\'s message does not quote a secretGenerator literal', GUARD, () =>
  withFixture(adversarialOutput.malformedLiteral(), async (dir) => {
    const build = await cli(['build', 'ks', 'apps', dir], dir);
    assert.equal(build.code, 1);
    const check = await cli(['check', dir, '--format', 'json'], dir);
    for (const out of [build.stdout, build.stderr, check.stdout, check.stderr]) assert.doesNotMatch(out, new RegExp(SECRET));
    assert.match(build.stderr, /invalid literal source \*\*\*/);
    assert.match(check.stdout, /build-failed/);
  }));
