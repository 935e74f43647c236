/**
 * The README's pull-request workflow for `gitops-preview changes` (section "Reviewing a change"), run
 * as GitHub Actions would run it, against temporary repositories: its YAML is read from README.md,
 * each `run:` step goes to bash as Actions' default shell runs it (`bash --noprofile --norc -eo
 * pipefail FILE`) with its `${{ }}` expressions filled in and its `env:` set, in a workspace checked
 * out as actions/checkout (fetch-depth 0) leaves one for a pull request: the merge commit GitHub
 * makes, detached, with origin's branches as remote-tracking refs. `gitops-preview` on PATH is this
 * checkout's CLI (its sources, through tsx); `gh` is fakeGh.cjs, which keeps the pull request's
 * comments in a JSON file and logs every call.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import YAML from 'yaml';
import { CORPORA, SHARED } from '../helpers';
import { serveChartRepo } from '../../integration/chartRepo';
import { commitAll, git, tempDir, writeFiles } from '../git/gitRepo';
import { worker } from './corpusEdits';

const ROOT = path.resolve(__dirname, '../../..');
const CORPUS = path.join(CORPORA, 'flux2-kustomize-helm-example');
const MARKER = '<!-- gitops-preview-changes -->';
const REPOSITORY = 'acme/fleet';
const PR = 42;
const TOKEN = 'ghs_fake-token-for-the-test';
/** Comments already on the pull request: more than GitHub's page of 30, so the workflow's own lands on page 2. */
const OTHER_COMMENTS = 30;

interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, unknown>;
  run?: string;
  env?: Record<string, string | number>;
}
interface StepResult {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  code?: number;
  stdout: string;
  stderr: string;
}
interface GhCall {
  argv: string[];
  method: string;
  endpoint: string;
  fields?: { body?: unknown };
  token?: string;
  status: number | string;
}
interface Comment {
  id: number;
  issue: number;
  body: string;
}

/** The one ```yaml block of the README that is the `changes` pull-request workflow, parsed. */
function readmeWorkflow(): { doc: Record<string, unknown>; steps: Step[] } {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]).filter((b) => /gitops-preview changes/.test(b) && /^on:/m.test(b));
  assert.equal(blocks.length, 1, 'README.md has one workflow block running `gitops-preview changes`');
  const doc = YAML.parse(blocks[0]) as Record<string, unknown>;
  const jobs = Object.values(doc.jobs as Record<string, { steps: Step[] } & Record<string, unknown>>);
  assert.equal(jobs.length, 1, 'one job');
  // What this runner does not emulate would change how the steps run: refuse it rather than ignore it.
  assert.deepEqual(Object.keys(jobs[0]).filter((k) => !['runs-on', 'steps'].includes(k)), [], 'job keys the test emulates');
  for (const step of jobs[0].steps) assert.deepEqual(Object.keys(step).filter((k) => !['name', 'uses', 'with', 'run', 'env'].includes(k)), [], `step keys the test emulates (${step.name ?? step.uses})`);
  return { doc, steps: jobs[0].steps };
}

/** `${{ expr }}` as Actions fills it in before the step runs; an expression the test does not know fails it. */
function expand(text: string, context: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in context)) throw new Error(`the workflow uses \${{ ${expr} }}, which the test does not provide`);
    return context[expr];
  });
}

let dir: string;
let origin: string;
let author: string;
let bin: string;
let stateFile: string;
let logFile: string;

function ghCalls(): GhCall[] {
  return fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as GhCall) : [];
}
function comments(): Comment[] {
  return (JSON.parse(fs.readFileSync(stateFile, 'utf8')) as { comments: Comment[] }).comments.filter((c) => c.issue === PR);
}

/** The pull request as GitHub shows it to a workflow: refs/pull/N/head and the merge commit refs/pull/N/merge. */
function pushPullRequest(): string {
  git(author, 'push', '-q', '--force', origin, 'main', 'feature');
  git(author, 'checkout', '-q', '--detach', 'main');
  git(author, 'merge', '-q', '--no-ff', '-m', `Merge ${git(author, 'rev-parse', 'feature')} into ${git(author, 'rev-parse', 'main')}`, 'feature');
  const merge = git(author, 'rev-parse', 'HEAD');
  git(author, 'push', '-q', '--force', origin, `feature:refs/pull/${PR}/head`, `${merge}:refs/pull/${PR}/merge`);
  git(author, 'checkout', '-q', 'feature');
  return merge;
}

/** A fresh workspace as actions/checkout@v4 with fetch-depth 0 leaves it on a pull_request event. */
function checkout(name: string): string {
  const ws = path.join(dir, name);
  fs.mkdirSync(ws);
  git(ws, 'init', '-q');
  git(ws, 'remote', 'add', 'origin', origin);
  git(ws, 'fetch', '-q', '--prune', '--no-recurse-submodules', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
  git(ws, 'fetch', '-q', '--no-recurse-submodules', 'origin', `+refs/pull/${PR}/merge:refs/remotes/pull/${PR}/merge`);
  git(ws, 'checkout', '-q', '--force', `refs/remotes/pull/${PR}/merge`);
  return ws;
}

/** The job's steps in order; after a failure the rest are skipped (Actions' default `if: success()`). */
async function runJob(ws: string, context: Record<string, string>): Promise<StepResult[]> {
  const { steps } = readmeWorkflow();
  const results: StepResult[] = [];
  const runnerTemp = fs.mkdtempSync(path.join(dir, 'runner-temp-'));
  for (const [i, step] of steps.entries()) {
    const name = step.name ?? step.uses ?? `step ${i}`;
    if (results.some((r) => r.outcome === 'failure') || step.run === undefined) {
      // A `uses:` step: the checkout is done by checkout() above.
      results.push({ name, outcome: 'skipped', stdout: '', stderr: '' });
      continue;
    }
    const script = path.join(runnerTemp, `step-${i}.sh`);
    fs.writeFileSync(script, expand(step.run, context));
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(String(v), context)]));
    const env = {
      PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
      HOME: runnerTemp,
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_REPOSITORY: REPOSITORY,
      GITHUB_WORKSPACE: ws,
      GITHUB_BASE_REF: context['github.base_ref'],
      RUNNER_TEMP: runnerTemp,
      GH_FAKE_STATE: stateFile,
      GH_FAKE_LOG: logFile,
      ...stepEnv,
    };
    // Not spawnSync: the chart repository this process serves must answer meanwhile.
    const r = await runScript(script, ws, env);
    results.push({ name, outcome: r.status === 0 ? 'success' : 'failure', code: r.status ?? undefined, stdout: r.stdout, stderr: r.stderr });
  }
  return results;
}

/** `bash -eo pipefail SCRIPT` as Actions runs a step, killed after 5 minutes. */
function runScript(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const context = (baseRef = 'main') => ({ 'github.base_ref': baseRef, 'github.token': TOKEN, 'github.event.pull_request.number': String(PR) });
const show = (results: StepResult[]) => results.map((r) => `--- ${r.name}: ${r.outcome} ${r.code ?? ''}\n${r.stdout}${r.stderr}`).join('\n');


let run1: StepResult[];
let run2: StepResult[];
/** gh calls of the first run, then of the second. */
let calls1: GhCall[];
let calls2: GhCall[];
let ws1: string;
let base1: string;
let base2: string;

let charts: { base: string; close: () => Promise<void> };

/**
 * The corpus's chart sources made local, so that the run is hermetic: `changes` fetches charts not at
 * hand. Its HelmRepository is the shared charts' repository on loopback (podinfo is fetched from it
 * and rendered); its OCIRepositories point at a loopback port nothing listens on (refused at once).
 */
function localChartSources(root: string): void {
  const rewrite = (rel: string, from: RegExp, to: string) => {
    const file = path.join(root, rel);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, from, rel);
    fs.writeFileSync(file, text.replace(from, to));
  };
  rewrite('apps/base/podinfo/repository.yaml', /url: https:\/\/stefanprodan\.github\.io\/podinfo/, `url: http://${charts.base}/`);
  rewrite('infrastructure/controllers/cert-manager.yaml', /url: oci:\/\/quay\.io\//, 'url: oci://127.0.0.1:9/');
  rewrite('infrastructure/controllers/envoy-gateway.yaml', /url: oci:\/\/docker\.io\//, 'url: oci://127.0.0.1:9/');
}

before(async () => {
  charts = await serveChartRepo(path.join(SHARED, 'charts', 'repo'));
  dir = tempDir('gitops-preview-workflow-');
  origin = path.join(dir, 'origin.git');
  git(dir, 'init', '-q', '--bare', origin);
  author = path.join(dir, 'author');
  fs.cpSync(CORPUS, author, { recursive: true });
  localChartSources(author);
  git(author, 'init', '-q');
  writeFiles(author, { 'apps/base/podinfo/worker.yaml': worker('6.5.0', false) });
  fs.appendFileSync(path.join(author, 'apps/base/podinfo/kustomization.yaml'), '  - worker.yaml\n');
  commitAll(author, 'base');
  git(author, 'checkout', '-q', '-b', 'feature');
  writeFiles(author, { 'apps/base/podinfo/worker.yaml': worker('6.6.0', false) });
  commitAll(author, 'Bump the worker to 6.6.0');

  bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  // This checkout's CLI from its sources, as an install would put dist/cli.js on PATH. NODE_PATH lets
  // the workers it starts from sources find tsx from any working directory.
  const tsx = pathToFileURL(require.resolve('tsx', { paths: [ROOT] })).href;
  fs.writeFileSync(
    path.join(bin, 'gitops-preview'),
    `#!/usr/bin/env bash\nexport NODE_PATH=${JSON.stringify(path.join(ROOT, 'node_modules'))}\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))} "$@"\n`,
    { mode: 0o755 },
  );
  fs.writeFileSync(path.join(bin, 'gh'), `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(__dirname, 'fakeGh.cjs'))} "$@"\n`, { mode: 0o755 });
  stateFile = path.join(dir, 'github.json');
  logFile = path.join(dir, 'gh.log');
  // Comments by others, one quoting the marker further down: only a body that starts with it is the workflow's.
  const others = Array.from({ length: OTHER_COMMENTS }, (_, i) => ({ id: 1000 + i, issue: PR, body: i === 7 ? `Why this?\n\n> ${MARKER}\n> ### GitOps changes` : `Comment ${i}`, user: { login: 'reviewer' } }));
  fs.writeFileSync(stateFile, JSON.stringify({ repo: REPOSITORY, issues: [PR], nextId: 5000, comments: others }));

  // Run 1: the pull request bumps an image.
  pushPullRequest();
  base1 = git(author, 'rev-parse', 'main');
  ws1 = checkout('run1');
  run1 = await runJob(ws1, context());
  calls1 = ghCalls();
  // Run 2: main moves on meanwhile (a change of its own), the pull request gets a second commit that breaks a build.
  git(author, 'checkout', '-q', 'main');
  const ns = path.join(author, 'apps/base/podinfo/namespace.yaml');
  writeFiles(author, { 'apps/base/podinfo/namespace.yaml': fs.readFileSync(ns, 'utf8').replace(/^  labels:\n/m, '  labels:\n    owner: main-only-change\n') });
  commitAll(author, 'main: label the namespace');
  base2 = git(author, 'rev-parse', 'main');
  git(author, 'checkout', '-q', 'feature');
  const controllers = path.join(author, 'infrastructure/controllers/kustomization.yaml');
  fs.appendFileSync(controllers, '  - missing.yaml\n');
  commitAll(author, 'A resource that does not exist');
  pushPullRequest();
  run2 = await runJob(checkout('run2'), context());
  calls2 = ghCalls().slice(calls1.length);
});

after(async () => {
  await charts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the README's pull-request workflow, run as Actions would", () => {
  test('its shape: pull_request, permission to comment, a full-history checkout, then the run steps', () => {
    const { doc, steps } = readmeWorkflow();
    assert.equal(doc.on, 'pull_request');
    assert.equal((doc.permissions as Record<string, string>)['pull-requests'], 'write');
    assert.match(steps[0].uses ?? '', /^actions\/checkout@/);
    // checkout() emulates fetch-depth 0: origin's branches as remote-tracking refs, the base among them.
    assert.equal(steps[0].with?.['fetch-depth'], 0);
    assert.deepEqual(run1.map((r) => r.name), steps.map((s) => s.name ?? s.uses));
    assert.ok(steps.filter((s) => s.run !== undefined).length >= 2);
  });

  test('first push: every step succeeds; the comparison prints the notice and no annotation', () => {
    assert.deepEqual(run1.map((r) => r.outcome), ['skipped', ...run1.slice(1).map(() => 'success')], show(run1));
    const compare = run1[1].stdout;
    assert.match(compare, /^::notice title=gitops-preview changes::2 object\(s\) differ in 2 producer\(s\) of 2 cluster\(s\): 0 added, 0 removed, 2 changed; findings 0 introduced, 0 fixed; 1 image\(s\) changed$/m, show(run1));
    assert.doesNotMatch(compare, /^::(error|warning)/m);
    assert.match(fs.readFileSync(path.join(ws1, 'changes.md'), 'utf8'), /^### GitOps changes/);
    // podinfo's chart was fetched from the loopback chart repository and rendered on both sides, unchanged.
    assert.match(run1[1].stderr, /^base [0-9a-f]{12}: \d+ of \d+ Kustomization build\(s\) rendered, 0 of 2 HelmRelease render\(s\)/m, show(run1));
  });

  test('first push: no comment of its own yet, so one is POSTed: the marker, then the markdown report', () => {
    const run1Calls = calls1;
    assert.deepEqual(run1Calls.map((c) => `${c.method} ${c.endpoint} ${c.status}`), [`GET repos/${REPOSITORY}/issues/${PR}/comments 200`, `POST repos/${REPOSITORY}/issues/${PR}/comments 201`]);
    assert.ok(run1Calls[0].argv.includes('--paginate'));
    const body = run1Calls[1].fields?.body;
    assert.equal(typeof body, 'string', 'the body is the file read by -F body=@FILE, not the text "@FILE"');
    const text = body as string;
    assert.ok(text.startsWith(`${MARKER}\n### GitOps changes against \`${base1.slice(0, 12)}\` (origin/main)\n`), text.slice(0, 200));
    assert.equal(text, `${MARKER}\n${fs.readFileSync(path.join(ws1, 'changes.md'), 'utf8').replace(/\n+$/, '')}\n`);
    assert.match(text, /^\*\*2 object\\\(s\\\) differ in 2 producer\\\(s\\\) of 2 cluster\\\(s\\\)[^\n]*1 image\\\(s\\\) changed\*\*$/m);
    // 6.14.1: the podinfo chart's own Deployment, rendered on both sides.
    assert.match(text, /^\| `ghcr\.io\/stefanprodan\/podinfo` \| `6\.5\.0` \| `6\.6\.0` \| `6\.14\.1` \|$/m);
    assert.match(text, /\+ spec\.template\.spec\.containers\[name=worker\]\.image: ghcr\.io\/stefanprodan\/podinfo:6\.6\.0/);
    for (const c of run1Calls) assert.equal(c.token, TOKEN, 'github.token reaches gh as GH_TOKEN');
    assert.equal(run1Calls[1].argv.filter((a) => a.includes(TOKEN)).length, 0, 'the token goes in GH_TOKEN, not the command line');
  });

  test('second push: the same comment is PATCHed (found on page 2), no second one is posted', () => {
    assert.deepEqual(calls2.map((c) => `${c.method} ${c.status}`), ['GET 200', 'PATCH 200'], JSON.stringify(calls2));
    const all = comments();
    const posted = all.filter((c) => c.body.startsWith(MARKER));
    assert.equal(posted.length, 1, 'one comment of the workflow');
    assert.equal(all.length, OTHER_COMMENTS + 1);
    // Past the first page of 30: only --paginate finds it.
    assert.equal(all.indexOf(posted[0]), OTHER_COMMENTS);
    assert.equal(calls2[1].endpoint, `repos/${REPOSITORY}/issues/comments/${posted[0].id}`);
    assert.equal(posted[0].body, calls2[1].fields?.body);
    assert.notEqual(posted[0].body, calls1[1].fields?.body, 'the comment now holds the second report');
  });

  test('second push: the comment is the new report, against the moved base, without main\'s own change', () => {
    assert.deepEqual(run2.map((r) => r.outcome), ['skipped', ...run2.slice(1).map(() => 'success')], show(run2));
    const body = comments().find((c) => c.body.startsWith(MARKER))!.body;
    assert.ok(body.startsWith(`${MARKER}\n### GitOps changes against \`${base2.slice(0, 12)}\` (origin/main)\n`), body.slice(0, 200));
    assert.match(body, /#### Failed builds[\s\S]*missing\.yaml/);
    assert.match(body, /\| `6\.5\.0` \| `6\.6\.0` \|/);
    assert.doesNotMatch(body, /main-only-change/);
  });

  test('second push: the github format annotates the introduced finding', () => {
    assert.match(run2[1].stdout, /^::error file=infrastructure\/controllers\/kustomization\.yaml,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=path-not-found::Resource 'missing\.yaml' does not exist/m, show(run2));
    assert.match(run2[1].stdout, /^::notice title=gitops-preview changes::/m);
  });

  test('an error (a base branch not in the clone): the comparison step fails with exit 2 and says why; nothing is posted', async () => {
    const before = ghCalls().length;
    const run = await runJob(checkout('run3'), context('release-1.x'));
    assert.deepEqual(run.map((r) => `${r.outcome} ${r.code ?? ''}`), ['skipped ', 'failure 2', 'skipped '], show(run));
    assert.match(run[1].stdout + run[1].stderr, /^gitops-preview changes: .*origin\/release-1\.x/m, show(run));
    assert.equal(ghCalls().length, before);
  });
});
