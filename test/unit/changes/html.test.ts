/**
 * `changes --format html`: one page that loads and runs nothing, a tree of clusters → producers →
 * objects, each object's YAML diff laid out unified and side by side, every repository string
 * escaped, Secret values as the report masks them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { reportHtml } from '../../../src/core/changes/html';
import { lineDiff } from '../../../src/core/changes/lineDiff';
import { compareObjects } from '../../../src/core/changes/objects';
import type { ChangesReport } from '../../../src/core/changes/types';

const deployment = (name: string, image: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'apps' },
  spec: { replicas, template: { spec: { containers: [{ name: 'app', image }] } } },
});
const secret = (token: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'apps' }, stringData: { token } });
const hostile = '<script>alert(1)</script>';

function report(): ChangesReport {
  const objects = compareObjects(
    [deployment('web', 'ghcr.io/x/web:1.0', 1), deployment(hostile, 'a:1', 1), secret('old-secret-value')],
    [deployment('web', 'ghcr.io/x/web:1.1', 3), deployment(hostile, 'a:2', 1), secret('new-secret-value'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'added', namespace: 'apps' }, data: { url: 'https://evil.example/x.css' } }],
  );
  return {
    base: 'b'.repeat(40),
    changes: [
      { cluster: 'production', kind: 'Kustomization', name: 'apps', namespace: 'flux-system', objects },
      { cluster: `prod"><img src=x onerror=alert(1)>`, kind: 'Kustomization', name: 'infra', namespace: 'flux-system', objects: objects.slice(0, 1) },
    ],
    findings: {
      introduced: [{ rule: 'depends-on-not-found', severity: 'error', file: `apps/${hostile}.yaml`, line: 3, column: 5, endLine: 3, endColumn: 9, message: `dependsOn '${hostile}' is not found\nsecond line`, related: [] }],
      fixed: [],
    },
    failures: [{ cluster: 'production', kind: 'Kustomization', name: 'broken', namespace: 'flux-system', failed: 'head', message: `kustomize: <b>missing</b> file\n  at ${hostile}` }],
    images: [{ image: 'ghcr.io/x/web', before: ['1.0'], after: ['1.1'] }],
  };
}

describe('changes: HTML page', () => {
  const html = reportHtml(report(), `main & <friends>`);

  test('a tree of clusters, producers and objects with counts; a view switch per object', () => {
    assert.match(html, /^<!DOCTYPE html>\n<html lang="en">/);
    assert.equal(html.match(/<details class="cluster"/g)?.length, 2);
    assert.equal(html.match(/<details class="producer"/g)?.length, 2);
    assert.match(html, /<summary>Cluster production<span class="counts">1 producer\(s\), 4 object\(s\): 1 added, 3 changed<\/span><\/summary>/);
    assert.match(html, /<details class="object changed" id="object-\d+" open><summary><span class="badge">changed<\/span>Deployment apps\/web<\/summary>/);
    assert.match(html, /<details class="object added"[^>]*><summary><span class="badge">added<\/span>ConfigMap apps\/added<\/summary>/);
    // Each object: unified, side by side and field views behind radio buttons (no script).
    const objects = html.match(/<details class="object /g)!.length;
    for (const view of ['unified', 'split', 'fields']) assert.equal(html.match(new RegExp(`class="pick-${view}"`, 'g'))?.length, objects, view);
    assert.match(html, /\.pick-split:checked ~ \.split/);
  });

  test('the unified view signs each line; the side-by-side view puts the old value beside the new one', () => {
    const web = html.slice(html.indexOf('Deployment apps/web'));
    assert.match(web, /<tr class="del"><td class="n">\d+<\/td><td class="n"><\/td><td class="s">-<\/td><td>  replicas: 1<\/td><\/tr>/);
    assert.match(web, /<tr class="add"><td class="n"><\/td><td class="n">\d+<\/td><td class="s">\+<\/td><td>  replicas: 3<\/td><\/tr>/);
    assert.match(web, /<td class="text del"> +image: ghcr\.io\/x\/web:1\.0<\/td><td class="n add">\d+<\/td><td class="text add"> +image: ghcr\.io\/x\/web:1\.1<\/td>/);
    assert.match(web, /<pre class="fields">- spec\.replicas: 1\n\+ spec\.replicas: 3/);
  });

  test('findings, failures and images have their sections', () => {
    assert.match(html, /<h2>Findings introduced \(1\)<\/h2>/);
    assert.match(html, /<span class="error">error<\/span> <code>depends-on-not-found<\/code> dependsOn &#39;&lt;script&gt;/);
    assert.match(html, /<h2>Failed builds \(their objects are not compared\)<\/h2>/);
    assert.match(html, /fails with this change:<pre>kustomize: &lt;b&gt;missing&lt;\/b&gt; file\n  at &lt;script&gt;/);
    assert.match(html, /<h2>Images \(1\)<\/h2>[\s\S]*<code>ghcr\.io\/x\/web<\/code><\/td><td><code>1\.0<\/code><\/td><td><code>1\.1<\/code>/);
  });

  test('repository strings are escaped everywhere: no markup of theirs survives', () => {
    assert.ok(!html.includes('<script'), 'a <script> tag');
    assert.ok(!html.includes('<img'), 'an <img> tag');
    assert.ok(!html.includes('<b>'), 'a <b> tag');
    assert.match(html, /Deployment apps\/&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /Cluster prod&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(html, /<title>GitOps changes against bbbbbbbbbbbb \(main &amp; &lt;friends&gt;\)<\/title>/);
  });

  test('self-contained: nothing is loaded from anywhere, and the policy forbids it', () => {
    // Every `<` of the repository's text is escaped, so each tag on the page is the page's own.
    const tags = html.match(/<[a-zA-Z][^>]*>/g) ?? [];
    assert.ok(tags.length > 50);
    for (const tag of tags) {
      assert.doesNotMatch(tag, /^<(script|link|img|iframe|object|embed|source|video|audio|base|form)\b/i, tag);
      assert.doesNotMatch(tag, /\s(src|href|action|srcset|poster|style)\s*=/i, tag);
    }
    const style = html.slice(html.indexOf('<style>'), html.indexOf('</style>'));
    assert.doesNotMatch(style, /@import|url\(|https?:/i);
    assert.doesNotMatch(html, /(src|href)\s*=\s*["']?https?:|@import|url\(\s*["']?https?:/i);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';/);
    // A URL in a value is text on the page, never a reference.
    assert.match(html, /url: https:\/\/evil\.example\/x\.css/);
  });

  test('Secret values stay masked', () => {
    assert.doesNotMatch(html, /secret-value/);
    assert.match(html, /token: &quot;\*\*\* \(before\)&quot;|token: \*\*\* \(before\)/);
  });

  test('an empty report says so', () => {
    const empty = reportHtml({ base: 'c'.repeat(40), changes: [], findings: { introduced: [], fixed: [] }, failures: [], images: [] }, 'main');
    assert.match(empty, /<p class="empty">No object differs\.<\/p>/);
    assert.doesNotMatch(empty, /<h2>(Findings|Images|Failed)/);
  });
});

describe('changes: line diff of two YAML texts', () => {
  test('hunks with context; removals paired with the additions that replace them', () => {
    const before = ['a: 1', 'b: 2', 'c: 3', 'd: 4', 'e: 5', 'f: 6', 'g: 7', 'h: 8', 'i: 9', ''].join('\n');
    const after = before.replace('b: 2', 'b: 20').replace('h: 8\n', '');
    const hunks = lineDiff(before, after);
    assert.equal(hunks.length, 1);
    assert.equal(hunks[0].header, '@@ -1,9 +1,8 @@');
    assert.deepEqual(
      hunks[0].rows.filter((r) => r.sign !== ' ').map((r) => [r.sign, r.before?.text, r.after?.text]),
      [
        ['~', 'b: 2', 'b: 20'],
        ['-', 'h: 8', undefined],
      ],
    );
  });

  test('an added object is every line added', () => {
    const [hunk] = lineDiff('', 'a: 1\nb: 2\n');
    assert.deepEqual(hunk.lines.map((l) => [l.sign, l.after, l.text]), [['+', 1, 'a: 1'], ['+', 2, 'b: 2']]);
  });
});
