import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The core stays portable and fast to test: no editor API, no processes, no network. */
const FORBIDDEN = /(?:from\s+|require\(\s*|import\(\s*)['"](?:node:)?(vscode|child_process|http|https|http2|net|tls|dgram|dns|worker_threads|cluster)['"]/;

test('src/core imports neither vscode nor child processes nor the network', () => {
  const root = path.resolve(__dirname, '../../../src/core');
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts') && FORBIDDEN.test(fs.readFileSync(p, 'utf8'))) offenders.push(path.relative(root, p));
    }
  };
  walk(root);
  assert.ok(fs.existsSync(path.join(root, 'model/graph.ts')), 'walks the real core folder');
  assert.deepEqual(offenders, []);
});

test('the purity rule itself catches a forbidden import', () => {
  assert.ok(FORBIDDEN.test("import * as vscode from 'vscode';"));
  assert.ok(FORBIDDEN.test("import { execFile } from 'node:child_process';"));
  assert.ok(!FORBIDDEN.test("import { parse } from 'yaml';"));
});
