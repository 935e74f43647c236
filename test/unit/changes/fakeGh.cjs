#!/usr/bin/env node
/**
 * A stand-in for the GitHub CLI (`gh`), put on PATH as `gh` by test/unit/changes/workflow.test.ts to
 * run the README's pull-request workflow without GitHub. Only `gh api` against an issue's comments,
 * as far as that workflow uses it; anything else exits non-zero so a workflow change that needs more
 * breaks the test instead of passing by accident.
 *
 * What it emulates (gh 2.x `gh api`, GitHub's REST API):
 * - Authentication: without GH_TOKEN (or GITHUB_TOKEN) gh refuses to run in Actions (exit 4).
 * - `gh api ENDPOINT`: ENDPOINT is a path under https://api.github.com (a leading `/` is optional),
 *   with an optional query (`per_page`, `page`).
 * - Method: GET, or POST when fields are given; `-X`/`--method` sets it.
 * - `-F`/`--field key=value` ("typed"): `@FILE` is FILE's bytes as they are (no trimming), `@-`
 *   stdin; `true`, `false`, `null` and integers become JSON values; anything else a string.
 *   `-f`/`--raw-field key=value`: always the string as written (so `-f body=@body.md` sends the
 *   text "@body.md"). A GET sends fields as the query instead (not needed here: refused).
 * - `--paginate`: a GET follows the pages (GitHub's default of 30 items a page) to the last one;
 *   without it only the first page is read.
 * - `--jq FILTER`/`-q`: applied to each page's JSON; each result is printed on its own line, strings
 *   without quotes, as gh does. Only the filter the workflow uses is understood:
 *   `.[] | select(.body | startswith("TEXT")) | .id` (every comment whose body starts with TEXT,
 *   its id); any other filter exits 3.
 * - REST: GET and POST `repos/OWNER/REPO/issues/N/comments` (list, create: 201 with the comment),
 *   PATCH `repos/OWNER/REPO/issues/comments/ID` (update the body: 200); a missing or non-string
 *   body is 422; an unknown repository, issue, comment or route is 404. Errors print gh's
 *   `gh: MESSAGE (HTTP STATUS)` on stderr and exit 1. A response without --jq is printed as JSON.
 *
 * State, GitHub's side: GH_FAKE_STATE, a JSON file `{"repo": "OWNER/REPO", "issues": [N, …],
 * "nextId": ID, "comments": [{"id", "issue", "body", "user"}]}`. Every invocation appends one JSON
 * line to GH_FAKE_LOG: `{"argv", "token", "method", "endpoint", "fields", "status"}` (the token it
 * would authenticate with; fields as sent, so a body read from a file is its content).
 */
'use strict';
const fs = require('node:fs');

const PER_PAGE = 30;
const stateFile = process.env.GH_FAKE_STATE;
const logFile = process.env.GH_FAKE_LOG;
if (!stateFile || !logFile) {
  process.stderr.write('fake gh: GH_FAKE_STATE and GH_FAKE_LOG must be set\n');
  process.exit(3);
}

const argv = process.argv.slice(2);
const entry = { argv, token: process.env.GH_TOKEN ?? process.env.GITHUB_TOKEN, method: undefined, endpoint: undefined, fields: undefined, status: undefined };
function log() {
  fs.appendFileSync(logFile, JSON.stringify(entry) + '\n');
}
function fail(message, code) {
  entry.status = entry.status ?? `exit ${code}`;
  log();
  process.stderr.write(message + '\n');
  process.exit(code);
}

if (!process.env.GH_TOKEN && !process.env.GITHUB_TOKEN) {
  fail('gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable. Example:\n  env:\n    GH_TOKEN: ${{ github.token }}', 4);
}
if (argv[0] !== 'api') fail(`fake gh: only \`gh api\` is emulated, not \`gh ${argv.join(' ')}\``, 3);

let method;
let paginate = false;
let jq;
let endpoint;
const fields = {};
const takesValue = new Set(['-X', '--method', '-F', '--field', '-f', '--raw-field', '-q', '--jq', '-H', '--header']);
for (let i = 1; i < argv.length; i++) {
  let arg = argv[i];
  let value;
  const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
  if (eq > 0) {
    value = arg.slice(eq + 1);
    arg = arg.slice(0, eq);
  }
  if (takesValue.has(arg)) {
    if (value === undefined) {
      if (i + 1 >= argv.length) fail(`flag needs an argument: ${arg}`, 1);
      value = argv[++i];
    }
  } else if (arg === '--paginate') {
    paginate = true;
    continue;
  } else if (arg.startsWith('-')) {
    fail(`fake gh: flag ${arg} is not emulated`, 3);
  } else {
    if (endpoint !== undefined) fail(`accepts 1 arg(s), received ${argv.length - 1}`, 1);
    endpoint = arg;
    continue;
  }
  if (arg === '-X' || arg === '--method') method = value.toUpperCase();
  else if (arg === '-q' || arg === '--jq') jq = value;
  else if (arg === '-H' || arg === '--header') continue;
  else {
    const at = value.indexOf('=');
    if (at < 0) fail(`field "${value}" requires a value separated by an '=' sign`, 1);
    const key = value.slice(0, at);
    const raw = value.slice(at + 1);
    fields[key] = arg === '-f' || arg === '--raw-field' ? raw : typed(raw);
  }
}
if (endpoint === undefined) fail('accepts 1 arg(s), received 0', 1);
method = method ?? (Object.keys(fields).length ? 'POST' : 'GET');
entry.method = method;
entry.endpoint = endpoint;
entry.fields = Object.keys(fields).length ? fields : undefined;
if (paginate && method !== 'GET') fail('the `--paginate` option is not supported for non-GET requests', 1);
if (method === 'GET' && Object.keys(fields).length) fail('fake gh: fields of a GET (sent as the query) are not emulated', 3);

function typed(raw) {
  if (raw.startsWith('@')) {
    const file = raw.slice(1);
    try {
      return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      fail(`error parsing "${raw}" value: ${err.message}`, 1);
    }
  }
  if (/^[+-]?\d+$/.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw === 'null') return null;
  return raw;
}

/** The one jq filter the workflow uses, as a function of a page's JSON; undefined for any other. */
function compileJq(filter) {
  const m = /^\s*\.\[\]\s*\|\s*select\(\s*\.body\s*\|\s*startswith\(\s*("(?:[^"\\]|\\.)*")\s*\)\s*\)\s*\|\s*\.id\s*$/.exec(filter);
  if (!m) return undefined;
  const prefix = JSON.parse(m[1]);
  return (page) => {
    if (!Array.isArray(page)) throw new Error('jq: error: Cannot iterate over object');
    return page.filter((c) => {
      if (typeof c.body !== 'string') throw new Error(`jq: error: startswith() requires string inputs`);
      return c.body.startsWith(prefix);
    }).map((c) => c.id);
  };
}
const filter = jq === undefined ? undefined : compileJq(jq);
if (jq !== undefined && !filter) fail(`fake gh: the --jq filter ${JSON.stringify(jq)} is not emulated`, 3);

const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
const [route, query = ''] = endpoint.replace(/^\//, '').split('?');
const params = new URLSearchParams(query);

function respond(status, body) {
  entry.status = status;
  if (status >= 400) {
    log();
    process.stdout.write(JSON.stringify(body) + '\n');
    process.stderr.write(`gh: ${body.message} (HTTP ${status})\n`);
    process.exit(1);
  }
  fs.writeFileSync(stateFile, JSON.stringify(state, null, 2));
  log();
  process.exit(0);
}
const notFound = () => respond(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });

let m;
if ((m = /^repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(route))) {
  const [, repo, issue] = m;
  if (repo !== state.repo || !state.issues.includes(Number(issue))) notFound();
  const all = state.comments.filter((c) => c.issue === Number(issue));
  if (method === 'GET') {
    const perPage = Number(params.get('per_page') ?? PER_PAGE);
    let page = Number(params.get('page') ?? 1);
    const out = [];
    for (;;) {
      const items = all.slice((page - 1) * perPage, page * perPage).map(({ issue: _, ...c }) => c);
      if (filter) {
        try {
          for (const v of filter(items)) out.push(typeof v === 'string' ? v : JSON.stringify(v));
        } catch (err) {
          fail(err.message, 5);
        }
      } else out.push(JSON.stringify(items));
      if (!paginate || page * perPage >= all.length) break;
      page++;
    }
    if (out.length) process.stdout.write(out.join('\n') + '\n');
    respond(200);
  } else if (method === 'POST') {
    if (typeof fields.body !== 'string') respond(422, { message: 'Invalid request.\n\nFor \'properties/body\', nil is not a string.' });
    const comment = { id: state.nextId++, issue: Number(issue), body: fields.body, user: { login: 'github-actions[bot]' } };
    state.comments.push(comment);
    if (!filter) process.stdout.write(JSON.stringify(comment) + '\n');
    respond(201);
  } else notFound();
} else if ((m = /^repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(route))) {
  const [, repo, id] = m;
  const comment = state.comments.find((c) => c.id === Number(id));
  if (repo !== state.repo || !comment) notFound();
  if (method === 'PATCH') {
    if (typeof fields.body !== 'string') respond(422, { message: 'Invalid request.\n\nFor \'properties/body\', nil is not a string.' });
    comment.body = fields.body;
    if (!filter) process.stdout.write(JSON.stringify(comment) + '\n');
    respond(200);
  } else notFound();
} else notFound();
