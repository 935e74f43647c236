/**
 * Failed builds in the `changes` report: those the change makes or mends in full, those failing on
 * both sides (a source outside the workspace, say) one line each, apart, so that a pull request's
 * comment leads with what the change did.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reportMarkdown, reportText } from '../../../src/core/changes/format';
import type { ChangesReport, ProducerFailure } from '../../../src/core/changes/types';

const failure = (name: string, failed: ProducerFailure['failed'], message: string): ProducerFailure => ({ cluster: 'prod', kind: 'Kustomization', name, namespace: 'flux-system', failed, message });

const report: ChangesReport = {
  base: 'a'.repeat(40),
  changes: [],
  findings: { introduced: [], fixed: [] },
  failures: [
    failure('apps', 'head', "kustomize build failed:\n  'missing.yaml' does not exist"),
    failure('infra', 'both', 'its source GitRepository/flux-system/infra (https://example.com/infra.git) is not in this workspace\nsecond line'),
    failure('tenants', 'both', 'its source GitRepository/flux-system/tenants is not in this workspace'),
  ],
  images: [],
};

test('text: the change\'s failures in full, the unchanged ones one line each after them', () => {
  const text = reportText(report, 'main');
  assert.match(text, /^failed builds \(their objects are not compared\)\n  ✗ Kustomization flux-system\/apps in prod fails in the working tree: kustomize build failed:\n        'missing\.yaml' does not exist\n/m);
  assert.match(text, /^failing on both sides, as before this change \(2\)\n  · Kustomization flux-system\/infra in prod: its source .* is not in this workspace\n  · Kustomization flux-system\/tenants in prod: /m);
  assert.doesNotMatch(text, /second line/);
});

test('markdown: the unchanged failures folded away under one summary', () => {
  const md = reportMarkdown(report, 'main');
  assert.match(md, /#### Failed builds \(their objects are not compared\)\n\n- Kustomization `flux-system\/apps` in `prod` fails with this change:/);
  assert.match(md, /<details><summary>2 build\(s\) fail on both sides, as before this change<\/summary>\n\n- Kustomization `flux-system\/infra` in `prod`: its source/);
  assert.ok(md.indexOf('<details><summary>2 build') > md.indexOf('fails with this change'));
});
