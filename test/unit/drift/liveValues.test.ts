import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { liveValueMarks, type DriftReport } from '../../../src/core/drift';
import { parseSourceFile } from '../../../src/core/yaml/document';

const text = `apiVersion: v1
kind: ConfigMap
metadata: {name: other}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: web:2
`;

describe('liveValueMarks', () => {
  test('drifted fields map to their line in the origin document; unknown paths are skipped', () => {
    const file = parseSourceFile('/repo/apps/web.yaml', text);
    const report: DriftReport = {
      target: { kind: 'Kustomization', name: 'apps', namespace: 'flux-system' },
      mode: 'kustomization',
      cancelled: false,
      notes: [],
      requests: 0,
      entries: [
        {
          id: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'apps' },
          subject: 'Deployment/apps/web',
          verdict: 'drifted',
          origin: { file: '/repo/apps/web.yaml', docIndex: 1 },
          changes: [
            { path: ['spec', 'replicas'], op: 'replace', live: 1, desired: 3 },
            { path: ['spec', 'template', 'spec', 'containers', 0, 'image'], op: 'replace', live: 'web:1', desired: 'web:2' },
            { path: ['metadata', 'labels', 'added-by-kustomize'], op: 'add', desired: 'x' },
            { path: ['spec', 'paused'], op: 'remove', live: true },
          ],
        },
        {
          id: { apiVersion: 'v1', kind: 'ConfigMap', name: 'x' },
          subject: 'ConfigMap/x',
          verdict: 'drifted',
          changes: [{ path: ['data'], op: 'replace', live: {}, desired: { a: 1 } }],
        },
      ],
    };
    const marks = liveValueMarks([report], (p) => (p === file.path ? file : undefined));
    assert.deepEqual(
      marks.map((m) => [m.line, m.text]),
      [
        [9, 'live: 1'],
        [14, 'live: web:1'],
      ],
    );
  });
});
