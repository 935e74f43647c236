import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { libraryParse, parseSourceFile, parseYaml, type FileParse } from '../../../src/core/yaml/document';
import { quickParse } from '../../../src/core/yaml/quickParse';
import { CORPORA, yamlFilesUnder } from '../helpers';

/** The quick parse of `text` without its `quick` mark, which the library's parse does not carry. */
function quickOf(text: string): FileParse | undefined {
  const quick = quickParse(text, 10_000);
  if (!quick) return undefined;
  assert.equal(quick.quick, true);
  const { quick: _mark, ...parse } = quick;
  return parse;
}

/** The quick parse of `text`, which must be the library's where it answers. */
function same(text: string): FileParse | undefined {
  const quick = quickOf(text);
  if (quick) assert.deepStrictEqual(quick, libraryParse(text), JSON.stringify(text));
  return quick;
}

test('every fourth YAML file of the shared corpora: the quick parse is the library’s, and it answers for nearly all', () => {
  const files = yamlFilesUnder(CORPORA).filter((_, i) => i % 4 === 0);
  assert.ok(files.length > 3000, `${files.length} files`);
  let answered = 0;
  let bytes = 0;
  let answeredBytes = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    bytes += text.length;
    const quick = quickOf(text);
    if (!quick) continue;
    answered++;
    answeredBytes += text.length;
    if (!isDeepStrictEqual(quick, libraryParse(text))) assert.deepStrictEqual(quick, libraryParse(text), file);
  }
  // On the day it was written: 97 % of the files, 95 % of the bytes.
  assert.ok(answered / files.length > 0.9, `${answered} of ${files.length} files`);
  assert.ok(answeredBytes / bytes > 0.85, `${answeredBytes} of ${bytes} bytes`);
});

test('values as the YAML 1.2 core schema resolves them, keys as the library makes them strings', () => {
  const parse = same(
    'a: 1\nb: -0\nc: 0o17\nd: 0x1F\ne: 1e3\nf: .5\ng: .inf\nh: -.Inf\ni: .nan\nj: ~\nk: Null\nl: TRUE\nm: false\nn: yes\no: 1_000\np: 012\n' +
      '1: one\ntrue: two\n~: three\n"q": \'it\'\'s\'\nr: "tab\\there \\u00e9 \\x41 \\U0001F600"\n',
  )!;
  assert.ok(parse, 'answered');
  const v = parse.docs[0].value as Record<string, unknown>;
  assert.equal(v.a, 1);
  assert.ok(Object.is(v.b, -0));
  assert.equal(v.c, 15);
  assert.equal(v.d, 31);
  assert.equal(v.e, 1000);
  assert.equal(v.g, Infinity);
  assert.ok(Number.isNaN(v.i));
  assert.equal(v.j, null);
  assert.equal(v.l, true);
  assert.equal(v.n, 'yes');
  assert.equal(v.p, 12);
  assert.equal(v['1'], 'one');
  assert.equal(v.true, 'two');
  assert.equal(v[''], 'three');
  assert.equal(v.q, "it's");
  assert.equal(v.r, 'tab\there é A 😀');
});

test('block scalars, folded lines, multi-line plain and quoted scalars, flow collections, anchors', () => {
  const text = [
    'literal: |',
    '  one',
    '',
    '  # not a comment',
    'stripped: |-',
    '  two',
    'folded: >',
    '  three',
    '  four',
    '',
    '  five',
    'plain: a long',
    '  line, continued',
    '',
    '  - and a list-like line',
    'quoted: "first',
    '  second\\',
    '  third"',
    'flow: {a: [1, "two", three], b: {}}',
    'probes: &probes',
    '  path: /healthz',
    'again: *probes',
    'name: &app atuin',
    'list:',
    '- *app',
    '- ${APP}',
    '',
  ].join('\n');
  const parse = same(text);
  assert.ok(parse, 'answered');
  const v = parse.docs[0].value as Record<string, any>;
  assert.equal(v.literal, 'one\n\n# not a comment\n');
  assert.equal(v.stripped, 'two');
  assert.equal(v.folded, 'three four\nfive\n');
  assert.equal(v.plain, 'a long line, continued\n- and a list-like line');
  assert.equal(v.quoted, 'first secondthird');
  assert.deepEqual(v.flow, { a: [1, 'two', 'three'], b: {} });
  // An alias is the anchored value itself, as the library gives it.
  assert.equal(v.again, v.probes);
  assert.deepEqual(v.list, ['atuin', '${APP}']);
  assert.equal(parse.docs[0].keep, true);
  assert.deepEqual(parse.docs[0].substitutionScalars!.map(([a, b]) => text.slice(a, b)), ['${APP}']);
});

test('documents and their ranges: markers, leading and trailing comments, empty values', () => {
  for (const text of [
    '# lead\n---\na: 1\n---\nb: 2\n# trail\n',
    '---\na: 1\n\n\n---\n\n# x\nb:\n  - c\n  # in\n\n# out\n',
    'a:\n  - b: 1\n    c: 2\n # x\n',
    'a: 1\n  # c\n# d\n  # e\n',
    'x:\n  a: 1\n      # c\n  # d\n',
    'a: |\n  x\n # c\n',
    '  \n# x\n  a: 1\n',
    'a:\n\n---\nb: 1\n',
    'a: []\n  # c\n',
    '{"a":1}\n  # c\n',
    'a: b # c\n',
  ]) {
    assert.ok(same(text), `answered: ${JSON.stringify(text)}`);
  }
});

test('what the quick parse leaves to the library: it answers nothing rather than something else', () => {
  for (const text of [
    'a: 1\na: 2\n', // a duplicate key: the full parse reports it
    'a: *missing\n',
    'a: &x\n  b: *x\n', // an alias inside the node it names
    'a: !!str 1\n',
    'a: b: c\n',
    'a: |+\n  kept\n\n',
    'a:\n\tb: 1\n',
    'a: 1\r\nb: 2\r\n',
    '? complex\n: key\n',
    'a: [1,\n  2]\n',
    '',
    '# only a comment\n',
    '---\n---\n',
    'a: 1\n...\n',
    'x\n',
  ]) {
    assert.equal(quickParse(text, 10_000), undefined, JSON.stringify(text));
  }
  // More documents than allowed: the full parse reads up to the limit and says so.
  assert.equal(quickParse('a: 1\n---\nb: 2\n---\nc: 3\n', 2), undefined);
});

test('a workspace file and parseYaml take the quick parse, with the same answers and problems as before', () => {
  const file = parseSourceFile('/r/a.yaml', 'a: 1\n---\nb: [1, 2]\n');
  assert.deepEqual(
    file.docs.map((d) => d.value),
    [{ a: 1 }, { b: [1, 2] }],
  );
  // A position still comes from the library's tree, parsed when asked for.
  const range = file.docs[1].node.contents!.range!;
  assert.equal(file.text.slice(range[0], range[1]), 'b: [1, 2]\n');
  assert.deepEqual(parseYaml('a: {b: c}\n'), { a: { b: 'c' } });
  assert.throws(() => parseYaml('a: 1\na: 2\n'), /Map keys must be unique/);
  assert.deepEqual(parseSourceFile('/r/b.yaml', 'a: 1\na: 2\n').docs[0].problems.map((p) => p.message), ['Map keys must be unique']);
});

test('mutated corpus files: where the quick parse answers, it is the library’s (seeded, so a failure repeats)', () => {
  const texts = yamlFilesUnder(CORPORA)
    .filter((_, i) => i % 7 === 0)
    .map((f) => fs.readFileSync(f, 'utf8'))
    .filter((t) => t.length > 20 && t.length < 3000);
  const pieces = [':', ' ', '\n', '#', '-', '- ', '"', "'", '&a ', '*a', '|', '>', '|-', '>-', '  ', '[', ']', '{', '}', ',', '${X}', '\\', 'true', '0x1F', '---\n', '\t', '? ', ': ', '\n\n', '\n    ', ' # c', '\n  # c\n', "''", '\\n'];
  let seed = 26;
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  let answered = 0;
  for (let n = 0; n < 3000; n++) {
    let text = texts[Math.floor(random() * texts.length)];
    for (let m = 1 + Math.floor(random() * 3); m > 0; m--) {
      const at = Math.floor(random() * text.length);
      text = random() < 0.3 ? text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 3)) : text.slice(0, at) + pieces[Math.floor(random() * pieces.length)] + text.slice(at);
    }
    if (same(text)) answered++;
  }
  // Most mutations keep a text the quick parse reads, so the comparison is made on many.
  assert.ok(answered > 1000, `${answered} answered`);
});
