import { test } from 'node:test';
import assert from 'node:assert/strict';
import { showControls } from '../../../src/core/escape/controls';
import { terminalName, terminalText } from '../../../src/core/escape/terminal';
import { githubData, githubProperty } from '../../../src/core/escape/github';
import { yamlComment, yamlDocument } from '../../../src/core/escape/yaml';
import { markdownCode, markdownText } from '../../../src/core/escape/markdown';
import { dotString } from '../../../src/core/escape/dot';
import { mermaidLabel } from '../../../src/core/escape/mermaid';
import { jsonOutput } from '../../../src/core/escape/json';
import { parse as parseYaml } from 'yaml';

/** Every character a terminal or a renderer acts on, one of each family. */
const HOSTILE = 'a\u001b[2Jb\rc\u0000d\u009be\u202ef\u2066g\u200fh\u2028i\u007fj';

test('showControls writes C0, C1, DEL, bidi and line separators as escapes, and leaves the rest', () => {
  assert.equal(showControls(HOSTILE), 'a\\x1b[2Jb\\rc\\x00d\\x9be\\u202ef\\u2066g\\u200fh\\u2028i\\x7fj');
  assert.equal(showControls('x\ny\tz'), 'x\\ny\\tz');
  assert.equal(showControls('plain ünïcode 名前 ✓'), 'plain ünïcode 名前 ✓');
});

test('terminalText stays on one line and holds no control character', () => {
  const shown = terminalText('ok\n::stop-commands::x\r0 error(s)\u001b[32m');
  assert.ok(!/[\u0000-\u001f\u007f-\u009f]/.test(shown));
  assert.equal(shown, 'ok\\n::stop-commands::x\\r0 error(s)\\x1b[32m');
});

test('terminalName leaves plain names bare and quotes anything unusual', () => {
  assert.equal(terminalName('apps/podinfo.yaml'), 'apps/podinfo.yaml');
  assert.equal(terminalName('Kustomization/flux-system/apps'), 'Kustomization/flux-system/apps');
  assert.equal(terminalName('::error::x.yaml'), '"::error::x.yaml"');
  assert.equal(terminalName('a "b"\\c'), '"a \\"b\\"\\\\c"');
  assert.equal(terminalName('x\u202e.yaml'), '"x\\u202e.yaml"');
  assert.equal(terminalName(''), '""');
});

test('githubData and githubProperty: GitHub escapes for %, CR, LF (and : , in properties), no control character', () => {
  assert.equal(githubData('100% done\r\nnext::x'), '100%25 done%0D%0Anext::x');
  assert.equal(githubProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
  assert.equal(githubData('\u001b[31mred\u0000\u202e'), '\\x1b[31mred\\x00\\u202e');
  assert.equal(githubProperty('x\u2067'), 'x\\u2067');
});

test('yamlComment is one comment line whatever the text holds', () => {
  assert.equal(yamlComment('Source: a\nkind: Pod'), '# Source: a\\nkind: Pod\n');
  assert.equal(yamlComment('x\r\u2028y').split('\n').length, 2);
});

test('markdownText escapes what would render; markdownCode cannot be closed from inside', () => {
  assert.equal(markdownText('![x](https://e.com/a.png)'), '\\!\\[x\\]\\(https\\://e\\.com/a\\.png\\)');
  assert.equal(markdownText('<img src=x>'), '\\<img src\\=x\\>');
  assert.equal(markdownText('a\n\n# h'), 'a\\\\n\\\\n\\# h');
  assert.equal(markdownCode('plain'), '`plain`');
  assert.equal(markdownCode('a`b'), '``a`b``');
  assert.equal(markdownCode('`![x](y)``'), '``` `![x](y)`` ```');
  assert.equal(markdownCode('a\n\n![x](y)'), '`a\\n\\n![x](y)`');
  assert.equal(markdownCode(''), '`  `');
});

test('dotString keeps text inside its quotes and shows escapes literally', () => {
  assert.equal(dotString('a"b'), '"a\\"b"');
  assert.equal(dotString('x\\N'), '"x\\\\N"');
  assert.equal(dotString('one\ntwo'), '"one\\ntwo"');
  assert.equal(dotString('ends\\'), '"ends\\\\ "');
  assert.equal(dotString('\u001b[2J'), '"\\\\x1b[2J"');
});

test('mermaidLabel: entity codes for what would end a label or become markup, one line, no control character', () => {
  assert.equal(mermaidLabel('a"]; click a "x"'), 'a#quot;]; click a #quot;x#quot;');
  assert.equal(mermaidLabel('<b>&#60;`|\n'), '#lt;b#gt;#38;#35;60;#96;#124; ');
  assert.equal(mermaidLabel('\u001b\u202e'), '\\x1b\\u202e');
});

test('jsonOutput leaves no DEL, C1 or bidi control raw and parses to the same value', () => {
  const value = { a: 'x\u009b[31m\u202e\u001b\u007f', b: ['\u2028\n'] };
  const out = jsonOutput(value);
  assert.equal(/[\u007f-\u009f\u2028\u202e]/.test(out), false);
  assert.deepEqual(JSON.parse(out), value);
  assert.ok(out.endsWith('}\n'));
});

test('yamlDocument: no control character raw, no line starting with ::, the same value once parsed', () => {
  const value = {
    apiVersion: 'v1',
    data: { script: 'echo ok\n  ::stop-commands::x\n', bidi: 'a\u202eb', csi: '\u009b31m', nel: 'x\u0085y', tab: 'a\tb', plain: 'line one\nline two\n' },
    '::error::key': 'v',
    list: ['::warning::item', 'GITOPS_PREVIEW_QUOTED_0_'],
  };
  const text = yamlDocument(value);
  assert.equal(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(text), false, text);
  for (const line of text.split('\n')) assert.ok(!line.trimStart().startsWith('::'), line);
  assert.deepEqual(parseYaml(text), value);
  assert.match(text, /^ {2}plain: \|\n {4}line one\n {4}line two\n/m, 'other multi-line strings keep their block style');
});
