import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const grammar = JSON.parse(fs.readFileSync(path.join(root, 'syntaxes/flux-substitution.injection.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** Tokenizes the way a TextMate engine would for this grammar: leftmost match, first pattern wins ties. */
function scan(line: string): { text: string; rule: string; groups: (string | undefined)[] }[] {
  const rules = ['escaped', 'variable'].map((name) => ({ name, re: new RegExp(grammar.repository[name].match, 'g') }));
  const out: { text: string; rule: string; groups: (string | undefined)[] }[] = [];
  let pos = 0;
  while (pos < line.length) {
    let best: { rule: string; m: RegExpExecArray } | undefined;
    for (const r of rules) {
      r.re.lastIndex = pos;
      const m = r.re.exec(line);
      if (m && (!best || m.index < best.m.index)) best = { rule: r.name, m };
    }
    if (!best) break;
    out.push({ text: best.m[0], rule: best.rule, groups: [...best.m] });
    pos = best.m.index + best.m[0].length;
  }
  return out;
}

test('grammar is registered as a YAML injection in package.json', () => {
  const entry = pkg.contributes.grammars.find((g: any) => g.scopeName === grammar.scopeName);
  assert.ok(entry);
  assert.deepEqual(entry.injectTo, ['source.yaml']);
  assert.equal(path.normalize(entry.path), path.normalize('./syntaxes/flux-substitution.injection.json'));
  assert.equal(grammar.injectionSelector, 'L:source.yaml -comment');
});

test('plain variables and every operator Flux envsubst supports are one token', () => {
  const cases: [string, number, string][] = [
    ['${cluster_name}', 3, 'cluster_name'],
    ['${CLUSTER_DOMAIN:=example.com}', 6, 'example.com'],
    ['${replicas:-2}', 6, '2'],
    ['${var=fallback}', 6, 'fallback'],
    ['${var:+alt}', 6, 'alt'],
    ['${var:?must be set}', 6, 'must be set'],
    ['${name^^}', 4, '^^'],
    ['${name,}', 4, ','],
    ['${path#*/}', 8, '*/'],
    ['${path%%.*}', 8, '.*'],
    ['${image/docker.io/ghcr.io}', 12, 'ghcr.io'],
    ['${image//-/_}', 12, '_'],
    ['${sha:0:7}', 16, '7'],
    ['${#name}', 2, '#'],
  ];
  for (const [text, group, expected] of cases) {
    const tokens = scan(`value: ${text}`);
    assert.equal(tokens.length, 1, text);
    assert.equal(tokens[0].rule, 'variable', text);
    assert.equal(tokens[0].text, text);
    assert.equal(tokens[0].groups[group], expected, `${text} group ${group}`);
  }
  const op = scan('${a:=b}')[0].groups;
  assert.equal(op[5], ':=');
  assert.equal(op[3], 'a');
});

test('escaped $${var} is its own token, never a substitution', () => {
  const tokens = scan('echo $${HOME} and ${REAL}');
  assert.deepEqual(tokens.map((t) => [t.rule, t.text]), [
    ['escaped', '$${HOME}'],
    ['variable', '${REAL}'],
  ]);
  assert.equal(grammar.repository.escaped.name.startsWith('constant.character.escape'), true);
});

test('things Flux does not substitute are not highlighted', () => {
  for (const text of ['$var', '${1abc}', '${}', '${has space}', '{var}', '$ {var}', '${var']) {
    assert.deepEqual(scan(`x: ${text}`).filter((t) => t.rule === 'variable'), [], text);
  }
});

test('several substitutions in one line', () => {
  const tokens = scan('host: ${app}.${CLUSTER_DOMAIN:=local}:${port}');
  assert.deepEqual(tokens.map((t) => t.groups[3]), ['app', 'CLUSTER_DOMAIN', 'port']);
});

test('patterns avoid constructs Oniguruma and JavaScript read differently', () => {
  for (const name of Object.keys(grammar.repository)) {
    const src: string = grammar.repository[name].match;
    // Lookbehind, named groups, \h, \A/\z, possessive quantifiers and atomic groups differ between the engines.
    assert.doesNotMatch(src, /\(\?<|\\[hHAzZG]|[*+?}]\+|\(\?>/, name);
  }
});
