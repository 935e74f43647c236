import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fieldDiff, formatFieldPath } from '../../../src/core/changes/fieldDiff';
import { compareObjects } from '../../../src/core/changes/objects';
import { deltaLines } from '../../../src/core/changes/diffText';
import { imageChanges, imagesOf } from '../../../src/core/changes/images';
import { findingChanges } from '../../../src/core/changes/report';
import { reportMarkdown } from '../../../src/core/changes/format';
import type { ChangedFinding, ChangesReport } from '../../../src/core/changes/types';

const deployment = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'app', namespace: 'apps' },
  spec: { template: { spec: { containers, ...extra } } },
});

const lines = (before: unknown, after: unknown) => deltaLines(fieldDiff(before, after)).split('\n');

describe('changes: list items matched by their name key', () => {
  test('an inserted container is one addition, not every later container replaced', () => {
    const a = { name: 'a', image: 'a:1' };
    const b = { name: 'b', image: 'b:1' };
    const out = lines(deployment([a, b]), deployment([{ name: 'new', image: 'n:1' }, a, b]));
    assert.deepEqual(out, ['+ spec.template.spec.containers[name=new]: {"name":"new","image":"n:1"}']);
  });

  test('a reorder shows as a move; a change inside a moved item is shown at its name', () => {
    const out = lines(deployment([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]), deployment([{ name: 'b', image: 'b:2' }, { name: 'a', image: 'a:1' }]));
    // Of two items swapped, one moved (the longest common order keeps the other).
    assert.deepEqual(out, ['- spec.template.spec.containers[name=b].image: b:1', '+ spec.template.spec.containers[name=b].image: b:2', '~ spec.template.spec.containers[name=a]: moved from position 0 to 1']);
  });

  test('env by name, volumeMounts by mountPath (two mounts may share a volume), ports by containerPort when unnamed', () => {
    const before = { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], volumeMounts: [{ name: 'v', mountPath: '/a', subPath: 'a' }, { name: 'v', mountPath: '/b', subPath: 'b' }], ports: [{ containerPort: 80 }] };
    const after = { env: [{ name: 'B', value: '3' }], volumeMounts: [{ name: 'v', mountPath: '/b', subPath: 'b' }], ports: [{ containerPort: 80 }, { containerPort: 443 }] };
    assert.deepEqual(lines(before, after), [
      '- env[name=A]: {"name":"A","value":"1"}',
      '- env[name=B].value: "2"',
      '+ env[name=B].value: "3"',
      '- volumeMounts[mountPath=/a]: {"name":"v","mountPath":"/a","subPath":"a"}',
      '+ ports[containerPort=443]: {"containerPort":443}',
    ]);
  });

  test('lists without a distinct key compare by position; paths with odd keys are quoted and escaped', () => {
    assert.deepEqual(lines({ args: ['a', 'b'] }, { args: ['a', 'c'] }), ['- args[1]: b', '+ args[1]: c']);
    assert.deepEqual(lines({ args: ['a'] }, { args: ['a', 'c'] }), ['- args: ["a"]', '+ args: ["a","c"]']);
    assert.equal(formatFieldPath(['metadata', 'annotations', 'a.b/c\u001b[2J']), 'metadata.annotations["a.b/c\\u001b[2J"]');
  });
});

describe('changes: objects and Secrets', () => {
  test('added, removed and changed objects; a Secret value change is masked on both sides, a copy of it elsewhere too', () => {
    const secret = (v: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, stringData: { password: v, same: 'kept-value' } });
    const cm = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'copy', namespace: 'apps' }, data: { url: `postgres://u:${v}@db` } });
    const gone = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'old', namespace: 'apps' } };
    const added = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'new', namespace: 'apps' } };
    const out = compareObjects([secret('hunter2-old'), cm('hunter2-old'), gone], [secret('hunter2-new'), cm('hunter2-new'), added]);
    assert.deepEqual(out.map((o) => [o.kind, o.name, o.change]), [['ConfigMap', 'copy', 'changed'], ['Secret', 's', 'changed'], ['Service', 'new', 'added'], ['Service', 'old', 'removed']]);
    const text = JSON.stringify(out);
    assert.doesNotMatch(text, /hunter2|kept-value/);
    assert.deepEqual(out[1].diff.split('\n'), ['- stringData.password: "*** (before)"', '+ stringData.password: "*** (after)"']);
    // Masked alike on both sides: the change is said, not shown.
    assert.equal(out[0].diff, '~ .: only Secret values copied into it differ (masked)');
    assert.match(out[2].diff, /^\+ apiVersion: v1\n\+ kind: Service/);
  });

  test('images summarised per repository, from every pod template', () => {
    const cron = { kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'ghcr.io/x/job:1' }] } } } } } };
    const before = imagesOf([deployment([{ name: 'a', image: 'ghcr.io/x/app:1.0' }], { initContainers: [{ name: 'i', image: 'busybox' }] }), cron]);
    const after = imagesOf([deployment([{ name: 'a', image: 'ghcr.io/x/app:1.1@sha256:abc' }], { initContainers: [{ name: 'i', image: 'busybox' }] }), cron]);
    assert.deepEqual(imageChanges(before, after), [{ image: 'ghcr.io/x/app', before: ['1.0'], after: ['1.1@sha256:abc'] }]);
  });

  test('findings compare by rule, file and message: a line shift is neither introduced nor fixed', () => {
    const f = (line: number, message: string): ChangedFinding => ({ rule: 'r', severity: 'error', file: 'a.yaml', line, column: 1, endLine: line, endColumn: 2, message, related: [] });
    const { introduced, fixed } = findingChanges([f(3, 'one'), f(9, 'gone')], [f(5, 'one'), f(7, 'new')]);
    assert.deepEqual(introduced.map((x) => x.message), ['new']);
    assert.deepEqual(fixed.map((x) => x.message), ['gone']);
  });
});

describe('changes: markdown', () => {
  const report = (objects: number, diff: string): ChangesReport => ({
    base: 'a'.repeat(40),
    changes: [{ cluster: 'prod', kind: 'Kustomization', name: 'apps', namespace: 'flux-system', objects: Array.from({ length: objects }, (_, i) => ({ kind: 'ConfigMap', name: `cm${i}`, namespace: 'apps', change: 'changed' as const, diff, yaml: { before: '', after: '' } })) }],
    findings: { introduced: [], fixed: [] },
    failures: [],
    images: [],
  });

  test('a summary line, a collapsible section per cluster, diffs fenced beyond any backquote run in them', () => {
    const md = reportMarkdown(report(1, '- data.x: a ``` b\n+ data.x: <img src=x>'), 'main');
    assert.match(md, /\*\*1 object\\\(s\\\) differ/);
    assert.match(md, /<details><summary>Cluster prod: 1 object\(s\) in 1 producer\(s\)<\/summary>/);
    assert.match(md, /````diff\n- data\.x: a ``` b\n\+ data\.x: <img src=x>\n````/);
    assert.match(md, /<\/details>\n$/);
  });

  test('past the limit the comment is cut between objects, its details closed, with a note', () => {
    const md = reportMarkdown(report(2000, `- data.x: ${'y'.repeat(100)}`), 'main');
    assert.ok(md.length <= 65_000, `${md.length}`);
    assert.match(md, /<\/details>\n\n> Cut at 65,000 characters: \d+ more object change\(s\) not shown/);
    assert.equal(md.match(/<details>/g)?.length, md.match(/<\/details>/g)?.length);
  });
});
