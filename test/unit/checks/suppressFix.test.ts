import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { suppressionFixes, REASON_PLACEHOLDER } from '../../../src/core/fixes/suppress';
import type { QuickFix } from '../../../src/core/fixes/index';
import type { Diagnostic, RuleId } from '../../../src/core/checks/index';
import { directivesOf } from '../../../src/core/checks/suppress';
import { check, memoryRepo } from './helpers';

const ks = (name: string, p: string, extra = '') =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${p}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;

function applied(text: string, fix: QuickFix): string {
  assert.equal(fix.edits.length, 1);
  const [e] = fix.edits;
  assert.deepEqual(e.range.start, e.range.end, 'an insertion');
  const lines = text.split('\n');
  const at = lines.slice(0, e.range.start.line).reduce((n, l) => n + l.length + 1, 0) + e.range.start.character;
  return text.slice(0, at) + e.newText + text.slice(at);
}

/** The YAML means the same after the edit: every document parses, without error, to the same value. */
function assertSameYaml(before: string, after: string): void {
  const parse = (t: string) => parseAllDocuments(t).map((d) => {
    assert.deepEqual(d.errors, [], `${t}`);
    return d.toJS();
  });
  assert.deepEqual(parse(after), parse(before));
}

/** A real finding of `rule` in `file`, each fix applied in turn: the YAML is unchanged and the finding is then suppressed. */
function fixesFor(files: Record<string, string>, file: string, rule: RuleId): { titles: string[]; texts: string[] } {
  const repo = memoryRepo(files);
  const [d] = check(repo).diagnostics.filter((x) => x.rule === rule && x.file === `/repo/${file}`);
  assert.ok(d, `no ${rule} in ${file}`);
  const fixes = suppressionFixes(d, repo.workspace.files.get(d.file)!);
  const texts: string[] = [];
  for (const fix of fixes) {
    const text = applied(files[file], fix);
    assertSameYaml(files[file], text);
    const after = check(memoryRepo({ ...files, [file]: text }));
    assert.ok(!after.diagnostics.some((x) => x.rule === rule && x.file === d.file), `${fix.title}: still reported\n${text}`);
    assert.ok(after.suppressed.some((x) => x.rule === rule && x.file === d.file && x.suppression.justification === REASON_PLACEHOLDER), fix.title);
    texts.push(text);
  }
  return { titles: fixes.map((f) => f.title), texts };
}

test('ignore quick fix: above an indented sequence entry, with its indentation', () => {
  const files = { 'clusters/c/root.yaml': ks('root', './clusters/c/apps'), 'clusters/c/apps/app.yaml': ks('app', './app', '  dependsOn:\n    - name: missing\n'), 'app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' };
  const { titles, texts } = fixesFor(files, 'clusters/c/apps/app.yaml', 'depends-on-not-found');
  assert.deepEqual(titles, ['Ignore depends-on-not-found on this line', 'Ignore depends-on-not-found in this file']);
  assert.match(texts[0], /\n {2}dependsOn:\n {4}# gitops-preview: ignore depends-on-not-found -- TODO: why this does not apply\n {4}- name: missing\n/);
  assert.match(texts[1], /^# gitops-preview: ignore-file depends-on-not-found -- TODO: why this does not apply\napiVersion:/);
});

test('ignore quick fix: a finding inside a block scalar is ignored for its document, never inside the scalar', () => {
  const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\ndata:\n  script: |\n    echo start\n    echo ${UNDEFINED}\n';
  const files = { 'clusters/c/root.yaml': ks('root', './clusters/c/apps'), 'clusters/c/apps/app.yaml': ks('app', './app', '  postBuild:\n    substitute:\n      OTHER: x\n'), 'app/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n---\n${cm}` };
  const { titles, texts } = fixesFor(files, 'app/cm.yaml', 'substitution-undefined');
  assert.deepEqual(titles, ['Ignore substitution-undefined in this document', 'Ignore substitution-undefined in this file']);
  // Right after the separator, heading the second document.
  assert.match(texts[0], /\n---\n# gitops-preview: ignore-document substitution-undefined -- TODO: why this does not apply\napiVersion: v1\n/);
});

/** Shapes no rule reports on here: a finding placed on the line by hand. */
function fixesAt(text: string, line: number): { titles: string[]; texts: string[] } {
  const repo = memoryRepo({ 'x.yaml': text });
  const file = repo.workspace.files.get('/repo/x.yaml')!;
  const d: Diagnostic = { rule: 'duplicate-object', severity: 'error', file: file.path, range: { start: { line, character: 0 }, end: { line, character: 1 } }, message: 'm', related: [] };
  const fixes = suppressionFixes(d, file);
  const texts = fixes.map((f) => applied(text, f));
  for (const t of texts) {
    assertSameYaml(text, t);
    // The directive covers the finding's line, which the inserted comment moved one down.
    const covers = directivesOf(memoryRepo({ 'x.yaml': t }).workspace.files.get('/repo/x.yaml')!).some((x) => !x.problem && x.from <= line + 1 && line + 1 <= x.to);
    assert.ok(covers, t);
  }
  return { titles: fixes.map((f) => f.title), texts };
}

test('ignore quick fix: the continuation line of a quoted, a plain multi-line scalar or a flow sequence gets the document form', () => {
  for (const text of [
    'kind: ConfigMap\ndata:\n  a: "one\n    two"\n  b: x\n',
    'kind: ConfigMap\ndata:\n  a: one\n    two\n  b: x\n',
    'kind: Pod\nspec:\n  args: [a,\n    b]\n',
  ]) {
    assert.deepEqual(fixesAt(text, 3).titles, ['Ignore duplicate-object in this document', 'Ignore duplicate-object in this file'], text);
  }
  // The first line of each is outside the node it starts: the line form, at its indentation.
  const { titles, texts } = fixesAt('kind: Pod\nspec:\n  args: [a,\n    b]\n', 2);
  assert.equal(titles[0], 'Ignore duplicate-object on this line');
  assert.match(texts[0], /\nspec:\n {2}# gitops-preview: ignore duplicate-object -- .*\n {2}args: \[a,\n/);
});

test('ignore quick fix: a CRLF file gets CRLF lines; config-invalid is never offered', () => {
  const { texts } = fixesAt('kind: ConfigMap\r\nmetadata:\r\n  name: a\r\n', 2);
  assert.match(texts[0], /\r\n {2}# gitops-preview: ignore duplicate-object -- [^\r\n]*\r\n {2}name: a\r\n/);
  const repo = memoryRepo({ 'x.yaml': 'kind: ConfigMap\n' });
  const file = repo.workspace.files.get('/repo/x.yaml')!;
  const d: Diagnostic = { rule: 'config-invalid', severity: 'warning', file: file.path, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, message: 'm', related: [] };
  assert.deepEqual(suppressionFixes(d, file), []);
});
