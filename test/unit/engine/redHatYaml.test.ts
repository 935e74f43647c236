/**
 * Beside the Red Hat YAML extension (EngineSettings.redHatYaml): a document under a
 * `yaml-language-server` `$schema` comment is that extension's to judge, complete and hover, so the
 * engine's schema findings there give way to one note on the comment, and its schema completion and
 * hover stay out (workspace names excepted). Without the extension, or in `check`, nothing changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryHost } from '../../../src/core/workspace/host';
import { Engine } from '../../../src/engine/engine';
import type { EngineEvent, FileDiagnostics } from '../../../src/engine/protocol';

const ROOT = '/repo';
const GOTK = `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: https://example.com/fleet.git\n  ref:\n    branch: main\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./clusters/prod\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
const MODELINE = '# yaml-language-server: $schema=https://kubernetes-schemas.pages.dev/kustomize.toolkit.fluxcd.io/kustomization_v1.json';
const ks = (name: string, extra: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./${name}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${extra}`;
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  a: "1"\n';
// Two documents: the first under a modeline, with a misspelt field and a reference being typed; the second without one, with the same misspelt field.
const APPS = `---\n${MODELINE}\n${ks('apps', '  intervall: 5m\n  dependsOn:\n    - name: \n')}---\n${ks('infra', '  intervall: 5m\n')}`;

function engineWith(redHatYaml: boolean, redHatYamlSchemas?: Record<string, string[] | string>): { engine: Engine; diagnostics: () => FileDiagnostics[] } {
  const engine = new Engine({ host: memoryHost(ROOT, { 'clusters/prod/flux-system/gotk-sync.yaml': GOTK, 'clusters/prod/apps.yaml': APPS, 'apps/cm.yaml': CM, 'infra/cm.yaml': CM }), debounceMs: 0 });
  const events: EngineEvent[] = [];
  engine.onEvent((e) => events.push(e));
  engine.open([ROOT], { redHatYaml, ...(redHatYamlSchemas ? { redHatYamlSchemas } : {}) });
  return { engine, diagnostics: () => events.flatMap((e) => (e.type === 'diagnostics' ? e.files : [])) };
}

const lineOf = (marker: string, nth = 0) => {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = APPS.indexOf(marker, at + 1);
  return APPS.slice(0, at).split('\n').length - 1;
};

test('beside Red Hat YAML, schema findings under a $schema comment become one note on it; the other document keeps its own', async () => {
  const { diagnostics } = engineWith(true);
  const apps = diagnostics().filter((f) => f.file.endsWith('apps.yaml')).pop()!;
  const got = apps.diagnostics.map((d) => `${d.rule} ${d.severity} ${d.range.start.line}`).sort();
  assert.deepEqual(got, [`schema-comment info ${lineOf(MODELINE)}`, `schema-unknown-field warning ${lineOf('intervall', 1)}`].sort());
  const note = apps.diagnostics.find((d) => d.rule === 'schema-comment')!;
  assert.match(note.message, /Red Hat YAML judges this Kustomization by https:\/\/kubernetes-schemas\.pages\.dev\/\S+, so 2 finding\(s\) from Flux 2\.9, the schema the cluster serves, are not shown twice: remove this comment to see them here\./);
});

test('without Red Hat YAML, and in check, every schema finding is reported', async () => {
  const { engine, diagnostics } = engineWith(false);
  const apps = diagnostics().filter((f) => f.file.endsWith('apps.yaml')).pop()!;
  assert.deepEqual(apps.diagnostics.map((d) => `${d.rule} ${d.range.start.line}`).sort(), [`schema-invalid ${lineOf('- name: ')}`, `schema-unknown-field ${lineOf('intervall')}`, `schema-unknown-field ${lineOf('intervall', 1)}`].sort());
  const checked = await engineWith(true).engine.request('check', { root: ROOT });
  assert.equal(checked.diagnostics.filter((d) => d.rule === 'schema-unknown-field').length, 2, 'check reports both');
  engine.dispose();
});

test('beside Red Hat YAML, completion and hover under a $schema comment offer only the workspace names', async () => {
  const { engine } = engineWith(true);
  const file = `${ROOT}/clusters/prod/apps.yaml`;
  const at = (marker: string, delta: number, nth = 0) => {
    const line = lineOf(marker, nth);
    return { line, character: APPS.split('\n')[line].indexOf(marker.trim()) + delta };
  };
  assert.equal(await engine.request('hover', { file, position: at('interval: 10m', 2) }), undefined);
  assert.ok(await engine.request('hover', { file, position: at('interval: 10m', 2, 1) }), 'the document without a comment keeps its hover');
  const names = await engine.request('completion', { file, position: at('- name: ', '- name: '.length) });
  assert.deepEqual(names.map((n) => n.label), ['flux-system', 'infra']);
  const fields = await engine.request('completion', { file, position: { line: lineOf('  prune: true'), character: 2 } });
  assert.deepEqual(fields, []);
  engine.dispose();
});

test("beside Red Hat YAML, a file its yaml.schemas setting gives a schema is its to judge: one note per document, no schema completion or hover", async () => {
  // As its README shows the setting: the bundled Kubernetes schema for the files matched.
  const { engine, diagnostics } = engineWith(true, { kubernetes: ['/clusters/**/apps.yaml'], 'https://example.com/other.json': '!*.yaml' });
  const apps = diagnostics().filter((f) => f.file.endsWith('apps.yaml')).pop()!;
  const got = apps.diagnostics.map((d) => `${d.rule} ${d.range.start.line}`).sort();
  // The first document keeps its comment's note; the second gets one on its first line.
  assert.deepEqual(got, [`schema-comment ${lineOf(MODELINE)}`, `schema-comment ${lineOf('apiVersion', 1)}`].sort());
  const note = apps.diagnostics.find((d) => d.range.start.line === lineOf('apiVersion', 1))!;
  assert.match(note.message, /^Red Hat YAML judges this Kustomization by kubernetes \(its yaml\.schemas setting\), so 1 finding\(s\) from Flux 2\.9, .* take this file out of that setting to see them here\.$/);
  const file = `${ROOT}/clusters/prod/apps.yaml`;
  const line = lineOf('interval: 10m', 1);
  assert.equal(await engine.request('hover', { file, position: { line, character: 4 } }), undefined);
  // A file the setting does not match keeps everything; so does everything once the setting is gone.
  const other = engineWith(true, { kubernetes: 'infra/*.yaml' });
  const kept = other.diagnostics().filter((f) => f.file.endsWith('apps.yaml')).pop()!;
  assert.ok(kept.diagnostics.some((d) => d.rule === 'schema-unknown-field'));
  assert.ok(await other.engine.request('hover', { file, position: { line, character: 4 } }));
  engine.dispose();
  other.engine.dispose();
});
