import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { libraryParse, parseSourceFile, rangeAt, type PathSegment, type SourceFile } from '../../../src/core/yaml/document';
import { quickRange } from '../../../src/core/yaml/quickRange';
import { CORPORA, yamlFilesUnder } from '../helpers';

/** Paths into a value (to depth 5: map keys, the first two items of a sequence), and beside each one that goes missing below it. */
function pathsOf(value: unknown, prefix: PathSegment[] = [], out: PathSegment[][] = []): PathSegment[][] {
  if (!value || typeof value !== 'object' || prefix.length >= 5) return out;
  const entries: [PathSegment, unknown][] = Array.isArray(value) ? value.slice(0, 2).map((v, i) => [i, v]) : Object.entries(value as Record<string, unknown>);
  for (const [k, v] of entries) {
    const p = [...prefix, k];
    out.push(p, [...p, 'no-such-key'], [...p, 0]);
    pathsOf(v, p, out);
  }
  return out;
}

/** The same text read by the library, without the quick mark: rangeAt answers from its tree. */
function libraryFile(file: string, text: string): SourceFile {
  return parseSourceFile(file, text, { restored: libraryParse(text) });
}

const asOffsets = (file: SourceFile, r: { start: { line: number; character: number }; end: { line: number; character: number } }) => [file.lines.offset(r.start), file.lines.offset(r.end)];

test('over the shared corpora, quickRange finds what rangeAt finds in the tree, and answers for most names', () => {
  const files = yamlFilesUnder(CORPORA).filter((_, i) => i % 6 === 0);
  let asked = 0;
  let answered = 0;
  let names = 0;
  let namesAnswered = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    const quick = parseSourceFile(file, text);
    if (!quick.docs.length) continue;
    const library = libraryFile(file, text);
    quick.docs.forEach((doc, i) => {
      const paths: PathSegment[][] = [...pathsOf(doc.value), ['metadata', 'name'], ['no-such-key'], ['spec', 0]];
      for (const p of paths) {
        const got = quickRange(text, doc.start, doc.end, p);
        asked++;
        const isName = p.length === 2 && p[0] === 'metadata' && p[1] === 'name' && typeof (doc.value as { metadata?: { name?: unknown } })?.metadata?.name === 'string';
        if (isName) names++;
        if (!got) continue;
        answered++;
        if (isName) namesAnswered++;
        const want = asOffsets(library, rangeAt(library.docs[i], p));
        assert.deepEqual([...got], want, `${file} document ${i} ${JSON.stringify(p)}: ${JSON.stringify(text.slice(got[0], got[1]))} against ${JSON.stringify(text.slice(want[0], want[1]))}`);
      }
    });
  }
  assert.ok(asked > 50_000, `${asked} paths asked`);
  // On the day it was written: most names (the ranges checks ask for most) are read from the text.
  assert.ok(namesAnswered / names > 0.9, `${namesAnswered} of ${names} metadata.name answered`);
  assert.ok(answered / asked > 0.3, `${answered} of ${asked} paths answered`);
});

test('quickRange: scalars on the key line, a missing key points at its parent, anything unusual goes to the tree', () => {
  const text = [
    'apiVersion: v1',
    'kind: ConfigMap # a comment',
    'metadata:',
    '  labels:',
    '    app: x',
    '  name: &name cfg  ',
    '  namespace: \'it\'\'s\' # c',
    '  uid: "a\\"b" tail',
    'data:',
    '  list:',
    '  - a',
    '  quoted: "q"',
    '  multi: one',
    '    two',
    '  flow: {a: 1}',
    '  block: |',
    '    name: not-a-key',
    '',
  ].join('\n');
  const r = (p: PathSegment[]) => {
    const got = quickRange(text, 0, text.length - 1, p);
    return got && text.slice(got[0], got[1]);
  };
  assert.equal(r(['kind']), 'ConfigMap');
  assert.equal(r(['metadata', 'name']), 'cfg', 'after its anchor, without trailing spaces');
  assert.equal(r(['metadata', 'labels', 'app']), 'x');
  assert.equal(r(['metadata', 'namespace']), "'it''s'", 'an escaped quote inside');
  assert.equal(r(['metadata', 'uid']), undefined, 'something after the closing quote: the tree');
  assert.equal(r(['metadata', 'annotations']), 'metadata', 'a missing key: its parent key');
  assert.equal(r(['data', 'list', 'x']), 'list', 'a sequence where a map was looked for: its key');
  assert.equal(r(['kind', 'x']), 'kind', 'below a scalar: its key');
  assert.equal(r(['data', 'quoted']), '"q"', 'quoted scalars with their quotes');
  assert.equal(r(['data', 'multi']), undefined, 'a scalar continued on the next line: the tree');
  assert.equal(r(['data', 'flow']), undefined);
  assert.equal(r(['data', 'block']), undefined);
  assert.equal(r(['data', 'list']), undefined, 'collections: the tree');
  assert.equal(r(['nothing']), undefined, 'missing at the top: the tree (the whole document)');
  assert.equal(r(['data', 0]), undefined);
  assert.equal(r(['data', 'list', 0]), undefined, 'sequence items: the tree');
  // A document that does not start at a line's start, or holds a tab in its indentation.
  assert.equal(quickRange('--- a: 1\n', 4, 8, ['a']), undefined);
  assert.equal(quickRange('a:\n\tb: 1\n', 0, 9, ['a', 'b']), undefined);
  // Keys the library reads as another type, and quoted keys.
  assert.equal(quickRange('True: 1\n', 0, 7, ['True']), undefined);
  assert.equal(quickRange('"a": 1\nb: 2\n', 0, 11, ['b']), undefined);
});

test('rangeAt of a quick-read file answers from the text, with the tree\'s answer', () => {
  const text = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: apps\n';
  const quick = parseSourceFile('/r/s.yaml', text);
  const doc = quick.docs[0];
  const library = libraryFile('/r/s.yaml', text);
  for (const p of [['metadata', 'name'], ['metadata', 'namespace'], ['kind'], ['spec'], ['metadata', 'labels']] as PathSegment[][]) {
    assert.deepEqual(rangeAt(doc, p), rangeAt(library.docs[0], p), JSON.stringify(p));
  }
});
