import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { check, diskRepo, keys, memoryRepo } from './helpers';

// File-local findings (yaml-syntax, file-unreadable, api-version-unserved of a patch) by whether
// kustomize or Flux could ever parse the file.
const ks = (name: string, path: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  path: ${path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n`;
// A bootstrap root, so that a Kustomization nothing applies stays unapplied (not a cluster of its own).
const sync = 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.com/repo\n---\n';
const root = { 'clusters/c/flux-system/gotk-sync.yaml': sync + ks('flux-system', './clusters/c'), 'clusters/c/apps.yaml': ks('apps', './apps') };
const findings = (files: Record<string, string>) =>
  check(memoryRepo({ ...root, ...files })).diagnostics.map((d) => `${d.rule}|${d.severity}|${d.file.slice(6)}|${d.range.start.line + 1}`);
const duplicateKey = 'trash:\n  a: 1\n  a: 2\n';
const ini = '[section]\nkey = value\n  indented: x\n bad\n';

test('yaml-syntax: a configMapGenerator/secretGenerator input is data, never parsed, unless something also reads it as a manifest', () => {
  const generated = (extra = '') =>
    `resources:\n  - ./release.yaml${extra}\nconfigMapGenerator:\n  - name: app-config\n    files:\n      - app.yml=./config/app.yaml\nsecretGenerator:\n  - name: app-env\n    envs:\n      - ./config/env.yaml\n`;
  const files = {
    'apps/kustomization.yaml': generated(),
    'apps/release.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n',
    'apps/config/app.yaml': duplicateKey,
    'apps/config/env.yaml': ini,
  };
  assert.deepEqual(findings(files).filter((f) => f.startsWith('yaml-syntax')), []);
  // Listed as a resource too: kustomize parses it and fails.
  const listed = findings({ ...files, 'apps/kustomization.yaml': generated('\n  - ./config/app.yaml') }).filter((f) => f.startsWith('yaml-syntax'));
  assert.deepEqual(listed, ['yaml-syntax|error|apps/config/app.yaml|3']);
  // The same input of an archive nothing applies: still data.
  const archived = { 'archive/app/kustomization.yaml': generated(), 'archive/app/release.yaml': files['apps/release.yaml'], 'archive/app/config/app.yaml': duplicateKey };
  assert.deepEqual(findings(archived).filter((f) => f.startsWith('yaml-syntax')), []);
});

test('yaml-syntax: a file nothing includes is a note that claims no build failure; one an unapplied kustomization lists stays a warning', () => {
  const list = check(
    memoryRepo({
      ...root,
      'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n',
      // INI files named .yaml next to an archived app; an Ansible playbook outside every Kustomization's path.
      'archive/app/kustomization.yaml': 'resources:\n  - ./listed.yaml\n',
      'archive/app/listed.yaml': duplicateKey,
      'archive/app/config/ollama.yaml': duplicateKey,
      'provision/ansible/playbook.yaml': duplicateKey,
    }),
  ).diagnostics.filter((d) => d.rule === 'yaml-syntax');
  const by = (rel: string) => list.find((d) => d.file.endsWith(rel))!;
  assert.equal(by('archive/app/listed.yaml').severity, 'warning');
  assert.match(by('archive/app/listed.yaml').message, /kustomize fails to build any Kustomization that includes this file/);
  for (const rel of ['archive/app/config/ollama.yaml', 'provision/ansible/playbook.yaml']) {
    assert.equal(by(rel).severity, 'info', rel);
    assert.doesNotMatch(by(rel).message, /fails to build/, rel);
    assert.match(by(rel).message, /No kustomization lists this file and no Kustomization's path holds it/, rel);
  }
  // A folder without kustomization file under an unapplied Kustomization's path: Flux's generator would read it.
  const generated = findings({ 'archive/old.yaml': ks('old', './archive/raw'), 'archive/raw/bad.yaml': duplicateKey }).filter((f) => f.startsWith('yaml-syntax'));
  assert.deepEqual(generated, ['yaml-syntax|warning|archive/raw/bad.yaml|3']);
});

test('api-version-unserved: a patch used only by kustomizations no cluster applies is not reported (its archived document is a warning); a patch a cluster uses is', () => {
  const hr = 'apiVersion: helm.toolkit.fluxcd.io/v2beta2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: default\nspec:\n  interval: 1h\n';
  const app = (dir: string) => ({
    [`${dir}/kustomization.yaml`]: 'resources:\n  - hr.yaml\npatchesStrategicMerge:\n  - patches/p.yaml\n',
    [`${dir}/hr.yaml`]: hr,
    [`${dir}/patches/p.yaml`]: hr,
  });
  const unserved = (files: Record<string, string>) => findings(files).filter((f) => f.startsWith('api-version-unserved'));
  assert.deepEqual(unserved(app('_archive/app')), ['api-version-unserved|warning|_archive/app/hr.yaml|1']);
  assert.deepEqual(unserved(app('apps')), ['api-version-unserved|error|apps/hr.yaml|1', 'api-version-unserved|error|apps/patches/p.yaml|1']);
});

test('file-unreadable: a link where no Kustomization looks is a note; one in a folder a cluster reads stays a warning', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reach-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  for (const [rel, text] of Object.entries(root)) write(rel, text);
  write('apps/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n');
  write('provision/ansible/playbooks/site.yaml', '- hosts: all\n');
  // Folder links to a folder read another way (the second one met is reported), as samip5/k8s-cluster has under provision/ansible.
  fs.symlinkSync('../provision', path.join(dir, 'apps/provision'));
  fs.symlinkSync('playbooks', path.join(dir, 'provision/ansible/media'));
  const repo = diskRepo(dir.split(path.sep).join('/'));
  const unreadable = keys(repo, check(repo)).filter((k) => k.startsWith('file-unreadable'));
  assert.deepEqual(unreadable, ['file-unreadable|apps/provision|1', 'file-unreadable|provision/ansible/playbooks|1']);
  const severity = (rel: string) => check(repo).diagnostics.find((d) => d.file.endsWith(rel))?.severity;
  assert.equal(severity('apps/provision'), 'warning');
  assert.equal(severity('provision/ansible/playbooks'), 'info');
});
