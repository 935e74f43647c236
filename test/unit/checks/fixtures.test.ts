import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { RULES } from '../../../src/core/checks/index';
import { check, diskRepo, expectedMarkers, FIXTURES, keys } from './helpers';

/**
 * Each rule has a `fail` repo, whose flagged lines carry `# expect: <rule>` markers, and a `pass`
 * repo with none. The diagnostics must be exactly the markers: rule, file and line.
 */
// Unreadable files (FIFOs, links out of the workspace) and analysis limits (a hundred nested levels)
// need hostile fixtures built at test time: test/unit/hardening covers them.
// build-failed needs the Kustomization builds the engine runs (test/unit/engine/refine.test.ts), and
// helm-values-invalid / helm-render-failed / helm-values-unread the HelmRelease renders (test/unit/checks/helmReleases.test.ts).
// schema-comment is the editor's, beside the Red Hat YAML extension (test/unit/engine/redHatYaml.test.ts).
const rules = Object.keys(RULES).filter(
  (r) => !['substitution-invalid', 'file-unreadable', 'analysis-limit', 'build-failed', 'helm-values-invalid', 'helm-render-failed', 'helm-values-unread', 'schema-comment'].includes(r),
);

for (const rule of rules) {
  for (const variant of ['fail', 'pass'] as const) {
    test(`${rule} (${variant})`, () => {
      const dir = `${FIXTURES}/${rule}/${variant}`;
      assert.ok(fs.existsSync(dir), `missing fixture ${dir}`);
      const repo = diskRepo(dir);
      const result = check(repo, { schema: true });
      assert.deepEqual(result.failures, []);
      const expected = expectedMarkers(dir);
      if (variant === 'fail') assert.ok(expected.some((e) => e.startsWith(`${rule}|`)), 'a fail fixture must expect its rule');
      else assert.deepEqual(expected, []);
      assert.deepEqual(keys(repo, result), expected);
    });
  }
}
