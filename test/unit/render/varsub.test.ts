import { test } from 'node:test';
import assert from 'node:assert/strict';
import { envsubst, substituteVariables, SubstitutionError } from '../../../src/core/render/varsub';

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
