/**
 * The repository's say over its findings: `.gitops-preview.yaml` rules and ignore, and inline
 * `# gitops-preview:` comments for a line, a document or a file. Silenced findings are kept with
 * their justification; mistakes in the directives are config-invalid warnings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkModel } from '../../../src/core/checks/index';
import { memoryRepo, runCliCaptured } from '../helpers';

const ks = (name: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./${name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const base = {
  'clusters/c/root.yaml': `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: root\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./clusters/c/ks\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`,
  'a/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
  'b/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n',
};
const missingDep = (comment = '') => ks('a', `  dependsOn:\n    - name: nowhere${comment}\n    - name: elsewhere\n`);
const found = (files: Record<string, string>) => {
  const r = checkModel(memoryRepo({ ...base, ...files }).model());
  return {
    kept: r.diagnostics.map((d) => `${d.rule}|${d.severity}|${d.file.slice(6)}|${d.range.start.line + 1}`),
    suppressed: r.suppressed.map((d) => `${d.rule}|${d.file.slice(6)}|${d.range.start.line + 1}|${d.suppression.kind}|${d.suppression.justification}`),
  };
};

test('inline: a trailing comment ignores its line, a comment alone the next line, with the reason kept', () => {
  assert.deepEqual(found({ 'clusters/c/ks/a.yaml': missingDep() }).kept, ['depends-on-not-found|error|clusters/c/ks/a.yaml|14', 'depends-on-not-found|error|clusters/c/ks/a.yaml|15']);
  const trailing = found({ 'clusters/c/ks/a.yaml': missingDep(' # gitops-preview: ignore depends-on-not-found -- lives in the other repo') });
  assert.deepEqual(trailing.kept, ['depends-on-not-found|error|clusters/c/ks/a.yaml|15']);
  assert.deepEqual(trailing.suppressed, ['depends-on-not-found|clusters/c/ks/a.yaml|14|inSource|lives in the other repo']);
  const above = ks('a', '  dependsOn:\n    # gitops-preview: ignore depends-on-not-found -- bootstrap\n\n    - name: nowhere\n');
  assert.deepEqual(found({ 'clusters/c/ks/a.yaml': above }).kept, []);
  // Another rule named: nothing is ignored.
  assert.equal(found({ 'clusters/c/ks/a.yaml': missingDep(' # gitops-preview: ignore crd-order -- no') }).kept.length, 2);
});

test('inline: ignore-document and ignore-file cover their document or file; a malformed directive is config-invalid', () => {
  const doc = `# gitops-preview: ignore-document * -- migrating\n${missingDep()}---\n${ks('b', '  dependsOn:\n    - name: gone\n')}`;
  assert.deepEqual(found({ 'clusters/c/ks/a.yaml': doc }).kept, ['depends-on-not-found|error|clusters/c/ks/a.yaml|31']);
  assert.deepEqual(found({ 'clusters/c/ks/a.yaml': `${missingDep()}# gitops-preview: ignore-file depends-on-not-found\n` }).kept, []);
  const bad = found({ 'clusters/c/ks/a.yaml': `${missingDep()}# gitops-preview: ignore depends-on-nowhere -- typo\n` });
  assert.deepEqual(bad.kept, ['depends-on-not-found|error|clusters/c/ks/a.yaml|14', 'depends-on-not-found|error|clusters/c/ks/a.yaml|15', 'config-invalid|warning|clusters/c/ks/a.yaml|16']);
});

test('.gitops-preview.yaml: rules set a severity or turn a rule off, ignore drops files; unknown entries are config-invalid', () => {
  const settings = "rules:\n  depends-on-not-found: warning\n  no-such-rule: off\nignore:\n  - archive/**\nextra: true\n";
  const r = found({ '.gitops-preview.yaml': settings, 'clusters/c/ks/a.yaml': missingDep(), 'archive/old.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n' });
  assert.deepEqual(r.kept, [
    'config-invalid|warning|.gitops-preview.yaml|3',
    'config-invalid|warning|.gitops-preview.yaml|6',
    'depends-on-not-found|warning|clusters/c/ks/a.yaml|14',
    'depends-on-not-found|warning|clusters/c/ks/a.yaml|15',
  ]);
  const off = found({ '.gitops-preview.yaml': 'rules:\n  depends-on-not-found: off\n', 'clusters/c/ks/a.yaml': missingDep() });
  assert.deepEqual(off.kept, []);
  assert.equal(off.suppressed.length, 2);
  assert.match(off.suppressed[0], /external\|rules: depends-on-not-found: off in \.gitops-preview\.yaml/);
});

test('check: suppressed findings stay out of the exit code and text, and SARIF lists them with their justification', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gp-suppress-'));
  try {
    for (const [rel, text] of Object.entries({ ...base, 'clusters/c/ks/a.yaml': missingDep(' # gitops-preview: ignore depends-on-not-found -- in repo B') })) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    const text = await runCliCaptured(['check', dir], dir);
    assert.equal(text.code, 1);
    assert.match(text.stdout, /1 error\(s\)/);
    const sarif = await runCliCaptured(['check', dir, '--format', 'sarif'], dir);
    const results = JSON.parse(sarif.stdout).runs[0].results as { suppressions?: { kind: string; justification: string }[] }[];
    assert.equal(results.length, 2);
    assert.deepEqual(results.filter((r) => r.suppressions).map((r) => r.suppressions), [[{ kind: 'inSource', justification: 'in repo B' }]]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
