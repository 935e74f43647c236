import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lensSummary, reportText, summaryLine, type DriftReport } from '../../../src/core/drift';

const report: DriftReport = {
  target: { kind: 'Kustomization', name: 'apps', namespace: 'flux-system' },
  mode: 'kustomization',
  cancelled: false,
  notes: [],
  requests: 4,
  entries: [
    {
      id: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'apps' },
      subject: 'Deployment/apps/web',
      verdict: 'drifted',
      changes: [{ path: ['spec', 'replicas'], op: 'replace', live: 1, desired: 3 }],
      live: { kind: 'Deployment', spec: { replicas: 1 } },
      desired: { kind: 'Deployment', spec: { replicas: 3 } },
    },
    { id: { apiVersion: 'v1', kind: 'Namespace', name: 'apps' }, subject: 'Namespace/apps', verdict: 'unchanged', changes: [] },
    { id: { apiVersion: 'v1', kind: 'ConfigMap', name: 'old', namespace: 'apps' }, subject: 'ConfigMap/apps/old', verdict: 'deleted', changes: [] },
    { id: { apiVersion: 'x/v1', kind: 'W', name: 'w', namespace: 'apps' }, subject: 'W/apps/w', verdict: 'error', reason: 'W/apps/w dry-run failed: boom', changes: [] },
  ],
};

describe('report text', () => {
  test('flux diff lines, a unified diff under drifted objects, unchanged objects omitted', () => {
    const t = reportText(report);
    assert.match(t, /^► Deployment\/apps\/web drifted$/m);
    assert.match(t, /^\s+-\s+replicas: 1$/m);
    assert.match(t, /^\s+\+\s+replicas: 3$/m);
    assert.match(t, /^► ConfigMap\/apps\/old deleted$/m);
    assert.match(t, /^✗ W\/apps\/w dry-run failed: boom$/m);
    assert.doesNotMatch(t, /Namespace\/apps/);
    assert.equal(summaryLine(report), 'drift of Kustomization flux-system/apps: 1 drifted, 1 deleted, 1 error, 1 unchanged');
    assert.equal(lensSummary(report), 'drift: 1 drifted, 1 deleted, 1 error');
  });
});
