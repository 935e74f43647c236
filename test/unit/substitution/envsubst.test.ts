import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envsubst, substituteVariables, SubstitutionError } from '../../../src/core/substitution/evaluate';

const vars = new Map([
  ['APP', 'podinfo'],
  ['EMPTY', ''],
  ['HOST', 'www.example.com'],
]);

test('substitutes ${var}; $var without braces stays text', () => {
  assert.equal(substituteVariables('name: ${APP}-svc $APP', vars, true), 'name: podinfo-svc $APP');
});

test('$$ escapes: $${var} is the literal ${var}', () => {
  assert.equal(substituteVariables('a: $${APP} b: ${APP}', vars, true), 'a: ${APP} b: podinfo');
});

test('defaults apply to unset and empty variables, also in strict mode', () => {
  assert.equal(substituteVariables('${MISSING:=10Gi} ${MISSING:-x} ${EMPTY:=d} ${APP:=no}', vars, true), '10Gi x d podinfo');
});

test('strict mode fails on an unset variable without default; non-strict empties it', () => {
  assert.throws(() => substituteVariables('x: ${NOPE}', vars, true), (e: unknown) => e instanceof SubstitutionError && /NOPE/.test((e as Error).message));
  assert.equal(substituteVariables('x: ${NOPE}.', vars, false), 'x: .');
});

test('bash functions behave as drone/envsubst', () => {
  assert.equal(substituteVariables('${APP^^} ${APP:0:3} ${HOST/www./api.} ${HOST//e/E} ${#APP} ${HOST#*.} ${HOST%%.*}', vars, true), 'PODINFO pod api.example.com www.ExamplE.com 7 example.com www');
});

test('nested default expressions', () => {
  assert.equal(substituteVariables('${MISSING:=${APP}-x}', vars, true), 'podinfo-x');
});

test('invalid variable names and bad syntax are errors', () => {
  assert.throws(() => substituteVariables('x', new Map([['bad-name', 'v']]), false), /var name is invalid/);
  assert.throws(() => envsubst('x: ${APP', () => ['', true]), SubstitutionError);
});

// Behaviours checked against github.com/fluxcd/pkg/envsubst v1.7.0 (what kustomize-controller v1.9 links).

test('strict mode also fails transformations of an unset variable; only default operators tolerate it', () => {
  for (const expr of ['${NOPE^^}', '${#NOPE}', '${NOPE:0:2}', '${NOPE/a/b}', '${NOPE#x}', '${NOPE,,}']) {
    assert.throws(() => substituteVariables(expr, vars, true), /variable not set \(strict mode\): "NOPE"/, expr);
    assert.equal(substituteVariables(expr, vars, false), expr === '${#NOPE}' ? '0' : '', expr);
  }
  assert.equal(substituteVariables('${NOPE:-a}${NOPE:+b}${NOPE:?c}${NOPE:=d}${NOPE=e}', vars, true), 'abcde');
  // `${v-x}`, `${v+x}`, `${v?x}` do not parse in envsubst: only `=` may follow a name without `:`.
  assert.throws(() => substituteVariables('${NOPE-a}', vars, false), /missing closing brace/);
});

test('trim patterns: `*` and `?` cross `/`, classes negate with ^ only, \\ escapes', () => {
  const v = new Map([['P', 'a/b/c.d'], ['Q', '!x*y']]);
  assert.equal(substituteVariables('${P#*/} ${P##*/} ${P%/*} ${P%%/*} ${P#a?b}', v, true), 'b/c.d c.d a/b a /c.d');
  assert.equal(substituteVariables('${Q#[!]} ${Q#[^!]} ${Q#?x\\*}', v, true), 'x*y !x*y y');
  assert.equal(substituteVariables('${P#[}', v, true), 'a/b/c.d');
});

test('replacement text is literal; an empty pattern inserts as Go strings.Replace does', () => {
  const v = new Map([['A', 'abc'], ['E', '']]);
  assert.equal(substituteVariables('${A/b/$&}', v, true), 'a$&c');
  assert.equal(substituteVariables('${A/${E}/-} ${A//${E}/-}', v, true), '-abc -a-b-c-');
});

test('syntax errors carry envsubst messages, including its scanner quirks', () => {
  const result = (text: string) => {
    try {
      return envsubst(text, (name) => (name === 'a' ? ['v', true] : ['', false]));
    } catch (e) {
      assert.ok(e instanceof SubstitutionError);
      return `error: ${e.message}`;
    }
  };
  // It loses its place peeking past `${a:` at the end or before a multi-byte character.
  assert.equal(result('${a:'), 'error: bad substitution');
  assert.equal(result('${a:é}'), 'error: bad substitution');
  assert.equal(result('${a={'), 'error: unable to parse substitution within function');
  // Names are letters, decimal digits and `_` (Go's unicode.IsLetter/IsDigit): `²` is not a digit.
  assert.equal(result('${²}'), 'error: unable to parse variable name');
  assert.equal(result('${é}'), 'error: variable not set (strict mode): "é"');
  // An offset or length that strconv.Atoi rejects leaves the value whole.
  assert.equal(result('${a:1:x}|${a: 1}'), 'v|v');
});
