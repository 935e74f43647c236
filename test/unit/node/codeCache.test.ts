/** Bundles loaded with V8's code cache (src/node/codeCache.ts), in child processes as the CLI loads its worker bundle. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];
after(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-code-cache-test-'));
  made.push(dir);
  return dir;
}

const ROOT = path.resolve(__dirname, '../../..');

/** Runs `requireWithCodeCache(bundle)` in a fresh process; the bundle prints what it sees. */
function load(bundle: string, cache: string): string {
  const script = `require(${JSON.stringify(path.join(ROOT, 'src/node/codeCache.ts'))}).requireWithCodeCache(${JSON.stringify(bundle)});`;
  return execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, env: { ...process.env, GITOPS_PREVIEW_CACHE: cache }, encoding: 'utf8' });
}

const cached = (cache: string) => (fs.existsSync(path.join(cache, 'v8')) ? fs.readdirSync(path.join(cache, 'v8')).sort() : []);

test('a bundle runs as require would run it, and its code cache is made once and then used', () => {
  const dir = tmp();
  const cache = tmp();
  const bundle = path.join(dir, 'bundle.js');
  fs.writeFileSync(path.join(dir, 'helper.js'), 'module.exports = "helper beside it";\n');
  // A `#!` line as esbuild keeps it from the entry; require relative to the bundle; its own names.
  const body = (n: number) =>
    `#!/usr/bin/env node\nconst helper = require('./helper');\nfunction work(){ let s = 0; for (let i = 0; i < 1000; i++) s += i; return s; }\nconsole.log(JSON.stringify({ n: ${n}, helper, file: __filename, dir: __dirname, main: require.main === module, work: work(), exportsIsThis: this === module.exports }));\nmodule.exports = { n: ${n} };\n`;
  fs.writeFileSync(bundle, body(1));
  const first = JSON.parse(load(bundle, cache));
  assert.deepEqual(first, { n: 1, helper: 'helper beside it', file: bundle, dir, main: false, work: 499500, exportsIsThis: true });
  const made1 = cached(cache);
  assert.equal(made1.length, 1, 'the code cache was not written');
  assert.match(made1[0], /^bundle\.js-[0-9a-f]{24}\.bin$/);
  const bytes = fs.statSync(path.join(cache, 'v8', made1[0])).mtimeMs;
  assert.deepEqual(JSON.parse(load(bundle, cache)), first);
  assert.equal(fs.statSync(path.join(cache, 'v8', made1[0])).mtimeMs, bytes, 'accepted data is not written again');

  // A new build of the bundle: new data, the old data removed.
  fs.writeFileSync(bundle, body(2) + '// longer\n');
  assert.equal(JSON.parse(load(bundle, cache)).n, 2);
  const made2 = cached(cache);
  assert.equal(made2.length, 1);
  assert.notEqual(made2[0], made1[0]);

  // Data V8 rejects (garbage): the bundle still runs, and the data is made again.
  fs.writeFileSync(path.join(cache, 'v8', made2[0]), 'not code cache data');
  assert.equal(JSON.parse(load(bundle, cache)).n, 2);
  assert.ok(fs.statSync(path.join(cache, 'v8', made2[0])).size > 100);

  // A cache directory that cannot be written: the bundle runs without one.
  const blocked = path.join(tmp(), 'file');
  fs.writeFileSync(blocked, '');
  assert.equal(JSON.parse(load(bundle, blocked)).n, 2);
});
