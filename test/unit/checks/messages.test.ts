import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Diagnostic } from '../../../src/core/checks/index';
import { MemoryBuildCache } from '../../../src/engine/memoryBuildCache';
import { corpusFolder, corpusInfo, corpusNames } from '../corpora/snapshot';
import { check, diskRepo, FIXTURES, REPO_ROOT, SHARED } from './helpers';

/**
 * Every finding's message, of every rule: a first line under 160 characters that says what fails
 * and the fix (editors and CI annotations show it alone), the explanation on the lines after it,
 * and paths relative to the repository root (never where the checkout happens to be).
 */
const MAX_FIRST_LINE = 160;

function problems(root: string, diagnostics: readonly Diagnostic[]): string[] {
  const out: string[] = [];
  for (const d of diagnostics) {
    const where = `${d.rule} ${d.file.slice(root.length + 1)}:${d.range.start.line + 1}`;
    const first = d.message.split('\n')[0];
    if (first.length >= MAX_FIRST_LINE) out.push(`${where}: first line has ${first.length} characters: ${first}`);
    for (const text of [d.message, ...d.related.map((r) => r.message)]) {
      for (const absolute of [root, REPO_ROOT, SHARED]) if (text.includes(absolute)) out.push(`${where}: absolute path ${absolute} in: ${text}`);
    }
  }
  return out;
}

test('messages: every fixture finding has a short first line and no absolute path', () => {
  const found: string[] = [];
  for (const rule of fs.readdirSync(FIXTURES)) {
    for (const variant of ['fail', 'pass']) {
      const dir = `${FIXTURES}/${rule}/${variant}`;
      if (!fs.existsSync(dir)) continue;
      found.push(...problems(dir, check(diskRepo(dir)).diagnostics));
    }
  }
  assert.deepEqual(found, []);
});

for (const name of corpusNames()) {
  test(`messages: every finding on ${name} has a short first line and no absolute path`, { timeout: 600_000 }, async () => {
    const { folder, dir } = await corpusFolder(name, corpusInfo(name).branch, new MemoryBuildCache());
    const result = folder.check(() => {});
    assert.deepEqual(problems(dir, [...result.byFile.values()].flat()), []);
  });
}
