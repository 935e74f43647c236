/**
 * Chart version resolution as source-controller does it, with Masterminds/semver v3 semantics
 * (the expectations are Masterminds' own test cases and source-controller's getChartVersion).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions, newestMatching, parseConstraint, parseVersion, satisfies } from '../../../../src/render/charts/semver';
import { chartEntries, pickEntry } from '../../../../src/render/charts/helmIndex';

const check = (constraint: string, version: string): boolean => {
  const c = parseConstraint(constraint);
  const v = parseVersion(version);
  assert.ok(c, `constraint ${constraint} parses`);
  assert.ok(v, `version ${version} parses`);
  return satisfies(v, c);
};

test('versions are read leniently as Masterminds reads them, and ordered with pre-releases below their release', () => {
  assert.deepEqual(parseVersion('v1.2'), { major: 1, minor: 2, patch: 0, pre: '', original: 'v1.2' });
  assert.equal(parseVersion('1.2.3-rc.1+build.5')?.pre, 'rc.1');
  for (const bad of ['', '1.2.3.4', '01.2.3', '1.2.3-01', 'latest', 'V1.2.3', '1.2.3-', `1.${'1'.repeat(300)}`]) assert.equal(parseVersion(bad), undefined, bad);
  const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '1.0.1', '1.10.0'];
  for (let i = 1; i < order.length; i++) assert.equal(compareVersions(parseVersion(order[i - 1])!, parseVersion(order[i])!), -1, `${order[i - 1]} < ${order[i]}`);
  assert.equal(compareVersions(parseVersion('1.0.0+a')!, parseVersion('1.0.0+b')!), 0, 'metadata is ignored');
});

test('constraints: operators, wildcards, tilde, caret, ranges, and || / , / blanks', () => {
  const cases: [string, string, boolean][] = [
    ['1.2.3', '1.2.3', true],
    ['=1.2.3', '1.2.4', false],
    ['!=4.1', '4.1.0', false],
    ['!=4.1', '5.1.0', true],
    ['>1.1', '1.1.1', false],
    ['>1.1', '1.2.0', true],
    ['>=1.1', '1.1.0', true],
    ['<1.1', '1.0.9', true],
    ['<=1.1', '1.1.9', true],
    ['<=1.1', '1.2.0', false],
    ['~1.2.3', '1.2.9', true],
    ['~1.2.3', '1.3.0', false],
    ['~1', '1.9.0', true],
    ['~1', '2.0.0', false],
    ['^1.2.3', '1.9.9', true],
    ['^1.2.3', '2.0.0', false],
    ['^0.2.3', '0.2.9', true],
    ['^0.2.3', '0.3.0', false],
    ['^0.0.3', '0.0.4', false],
    ['1.x', '1.9.0', true],
    ['1.2.*', '1.3.0', false],
    ['*', '9.9.9', true],
    ['>=1.2, <2', '1.5.0', true],
    ['>= 1.2 < 2', '2.0.0', false],
    ['1.2 - 1.4.5', '1.4.5', true],
    ['1.2 - 1.4.5', '1.4.6', false],
    ['<1 || >=3', '3.1.0', true],
    ['<1 || >=3', '2.0.0', false],
  ];
  for (const [c, v, want] of cases) assert.equal(check(c, v), want, `${v} satisfies ${c}: ${want}`);
  for (const bad of ['', 'latest', '>=', '1.2.3 ||', `${'1 || '.repeat(40)}1`, 'x'.repeat(600)]) assert.equal(parseConstraint(bad), undefined, bad);
});

test('a pre-release matches only a constraint group that names a pre-release', () => {
  assert.equal(check('>=1.0.0', '1.5.0-rc.1'), false);
  assert.equal(check('*', '2.0.0-beta'), false);
  assert.equal(check('>=1.0.0-0', '1.5.0-rc.1'), true);
  assert.equal(check('>=2.0.0-alpha || <1', '2.1.0-beta'), true);
  assert.equal(check('<1 || >=2.0.0-alpha', '2.1.0-beta'), true);
  assert.equal(check('>=1.0.0 || <1.0.0-0', '1.5.0-rc.1'), false, 'only its own group counts');
});

test('source-controller picks the exact text first, else the newest match; OCIRepository semver does not take the exact text first', () => {
  const tags = ['1.0.0', '1.10.0', '1.9.0', '2.0.0-rc.1', 'latest', 'v1.2'];
  const pick = (wanted: string | undefined, exactFirst = true) => {
    const r = newestMatching(tags, (t) => t, wanted, { exactFirst });
    return r.ok ? r.value : r.error;
  };
  assert.equal(pick(undefined), '1.10.0', 'empty: the newest release, not the pre-release');
  assert.equal(pick('1.x'), '1.10.0');
  assert.equal(pick('~1.2'), 'v1.2');
  assert.equal(pick('>=2.0.0-0'), '2.0.0-rc.1');
  assert.equal(pick('latest'), 'latest', 'an exact tag that is no version');
  assert.match(pick('latest', false), /'latest' is not a semver constraint/);
  assert.match(pick('>=3'), /no version matches '>=3'/);
});

test('a HelmRepository index entry: exact version first, then the newest, ties to the newest created', () => {
  const entries = [
    { version: '1.0.0', urls: ['a-1.0.0.tgz'], created: '2025-01-01T00:00:00Z' },
    { version: '1.1.0+build.1', urls: ['old.tgz'], created: '2025-01-01T00:00:00Z' },
    { version: '1.1.0+build.2', urls: ['new.tgz'], created: '2025-03-01T10:00:00+02:00' },
    { version: '2.0.0-beta.1', urls: ['b.tgz'], created: '2025-04-01T00:00:00Z' },
  ];
  const urlOf = (v: string | undefined) => {
    const e = pickEntry(entries, v);
    return typeof e === 'string' ? e : e.urls[0];
  };
  assert.equal(urlOf('*'), 'new.tgz');
  assert.equal(urlOf(undefined), 'new.tgz');
  assert.equal(urlOf('1.1.0+build.1'), 'old.tgz', 'the exact text wins over the newer build');
  assert.equal(urlOf('<1.1'), 'a-1.0.0.tgz');
  assert.equal(urlOf('2.0.0-beta.1'), 'b.tgz');
  assert.equal(urlOf('^2.0.0-0'), 'b.tgz');
  assert.match(urlOf('>=3'), /no version matches/);
});

test('index.yaml scalars stay the strings helm reads: `version: 1.10` is not 1.1, a digest of digits is not a number', () => {
  const index = `apiVersion: v1\nentries:\n  demo:\n  - version: 1.10\n    digest: ${'1'.repeat(64)}\n    urls: [demo-1.10.tgz]\n  - version: 1.9\n    urls: [demo-1.9.tgz]\n`;
  const entries = chartEntries(index, 'demo');
  assert.ok(Array.isArray(entries), String(entries));
  assert.deepEqual(entries.map((e) => [e.version, e.digest]), [['1.10', '1'.repeat(64)], ['1.9', undefined]]);
  const newest = pickEntry(entries, '*');
  assert.equal(typeof newest === 'string' ? newest : newest.version, '1.10');
  assert.equal(chartEntries(index, '__proto__'), "no chart named '__proto__' in index.yaml");
  assert.match(String(chartEntries('entries: &a\n  demo: *a\n', 'demo')), /not valid YAML/);
});
