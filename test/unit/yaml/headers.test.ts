import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSourceFile, isParsed } from '../../../src/core/yaml/document';
import { objectsOf } from '../../../src/core/model/objects';
import { scanHeaders } from '../../../src/core/yaml/headers';
import { generateRepo } from '../../../bench/generate';
import { CORPORA } from '../helpers';

const identity = (o: { id: string; apiVersion: string; kind: string; name: string; namespace?: string }) => `${o.id} ${o.apiVersion} ${o.kind} ${o.name} ${o.namespace ?? '-'}`;

/** The fast header path must name exactly the objects a full parse finds, or decline. */
function compare(files: [string, string][]) {
  let fast = 0;
  for (const [p, text] of files) {
    const lazy = parseSourceFile(p, text);
    const quick = objectsOf(lazy);
    const tookFastPath = !isParsed(lazy);
    const full = parseSourceFile(p, text);
    void full.docs;
    const expected = objectsOf(full).map(identity);
    if (tookFastPath) {
      fast++;
      // Only documents that parse cleanly are objects; the fast path is for files without errors.
      if (full.docs.every((d) => d.problems.length === 0)) assert.deepEqual(quick.map(identity), expected, p);
      for (const o of quick) assert.equal(o.doc.index, Number(o.id.slice(o.id.lastIndexOf('#') + 1)), p);
    } else {
      assert.deepEqual(quick.map(identity), expected, p);
    }
  }
  return fast;
}

function walk(dir: string, out: [string, string][]) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.ya?ml$/.test(e.name)) out.push([p, fs.readFileSync(p, 'utf8')]);
  }
}

test('header scan agrees with the full parse on every corpus file and takes the fast path for most', () => {
  const files: [string, string][] = [];
  walk(CORPORA, files);
  const fast = compare(files);
  assert.ok(files.length > 800, 'reads the corpora');
  assert.ok(fast > files.length * 0.3, `fast path used for ${fast} of ${files.length} files`);
});

test('header scan agrees with the full parse on the generated repository', () => {
  const files = Object.entries(generateRepo().files).map(([p, t]) => [`/g/${p}`, t] as [string, string]);
  const fast = compare(files);
  assert.ok(fast > files.length * 0.45, `fast path used for ${fast} of ${files.length} files`);
});

test('header scan numbers documents like the yaml library and declines unusual shapes', () => {
  assert.deepEqual(scanHeaders('a: 1\n---\n')?.map((h) => h.index), [0, 1]);
  assert.deepEqual(scanHeaders('# c\n---\nkind: A\napiVersion: v1\n')?.map((h) => [h.index, h.kind]), [[0, 'A']]);
  assert.deepEqual(scanHeaders('kind: A\n---\n---\nkind: B\n')?.map((h) => h.kind), ['A', undefined, 'B']);
  const cm = scanHeaders('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    name: not-this\n  name: "x" # c\n  namespace: y\ndata:\n  a: |\n    kind: Nope\n');
  assert.deepEqual(cm?.map((h) => [h.kind, h.name, h.namespace]), [['ConfigMap', 'x', 'y']]);
  for (const odd of [
    'kind: &k A\n',
    'kind: !!str A\n',
    'metadata: {name: x}\nkind: A\n',
    '%YAML 1.2\n---\nkind: A\n',
    'kind: A\nkind: B\n',
    'metadata:\n  name: 123\n',
    '? complex\n: key\n',
    'kind: A\nmetadata:\n  name: a\n name: b\n',
  ]) {
    assert.equal(scanHeaders(odd), undefined, JSON.stringify(odd));
  }
});

test("a repository's YAML prints no warning of the yaml library (a mapping used as a key)", async () => {
  const warnings: string[] = [];
  const listen = (w: Error) => warnings.push(w.message);
  process.on('warning', listen);
  try {
    const file = parseSourceFile('/repo/values.yaml', 'env:\n  { .PLEX_APIKEY }: x\n');
    assert.equal(file.docs.length, 1);
    assert.ok(file.docs[0].value);
    // process warnings are emitted on the next tick.
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off('warning', listen);
  }
  assert.deepEqual(warnings, []);
});
