/**
 * The chart cache (src/render/charts/cache.ts): charts stored by digest, whole or not at all, the
 * least recently used evicted past the cap, a corrupt ref file read as a miss.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedChart, capChartCache, chartCacheMaxBytes, defaultChartCache, readRef, storeChart, writeRef } from '../../../../src/render/charts/cache';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-preview-chart-cache-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const digestOf = (c: string) => c.repeat(64);
const chart = (name: string, bytes: number) => [
  { path: `${name}/Chart.yaml`, data: Buffer.from(`name: ${name}\n`) },
  { path: `${name}/templates/big.yaml`, data: Buffer.alloc(bytes, 'a') },
];

test('a stored chart is found by its digest; storing the same digest again keeps the first copy', () => {
  const dir = path.join(tmp, 'store');
  const stored = storeChart(dir, digestOf('a'), chart('demo', 10));
  assert.equal(stored, path.join(dir, `sha256-${digestOf('a')}`, 'demo'));
  assert.equal(cachedChart(dir, digestOf('a')), stored);
  assert.equal(storeChart(dir, digestOf('a'), chart('other', 10)), stored);
  assert.equal(cachedChart(dir, digestOf('b')), undefined);
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temp folder left behind');
  // A package without Chart.yaml is not a chart: nothing is kept under its digest.
  assert.equal(storeChart(dir, digestOf('c'), [{ path: 'x/values.yaml', data: Buffer.from('a: 1\n') }]), undefined);
});

test('past the cap the least recently used charts go, the one just used last', () => {
  const dir = path.join(tmp, 'cap');
  const old = new Date(Date.now() - 3600_000);
  for (const [i, c] of ['1', '2', '3'].entries()) {
    storeChart(dir, digestOf(c), chart(`c${c}`, 1000));
    fs.utimesSync(path.join(dir, `sha256-${digestOf(c)}`), old, new Date(old.getTime() + i * 1000));
  }
  // Using chart 1 makes it the most recent; chart 3 is the caller's own and goes last.
  cachedChart(dir, digestOf('1'));
  capChartCache(dir, 2500, cachedChart(dir, digestOf('3')));
  assert.equal(cachedChart(dir, digestOf('2')), undefined, 'the least recently used went');
  assert.ok(cachedChart(dir, digestOf('1')));
  assert.ok(cachedChart(dir, digestOf('3')));
  capChartCache(dir, 0, cachedChart(dir, digestOf('3')));
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('sha256-')), []);
});

test('ref files: what a reference resolved to, a corrupt or foreign file read as a miss', () => {
  const dir = path.join(tmp, 'refs');
  writeRef(dir, 'http|https://x|demo|1.x', { digest: digestOf('d'), version: '1.2.0', at: 5 });
  assert.deepEqual(readRef(dir, 'http|https://x|demo|1.x'), { digest: digestOf('d'), version: '1.2.0', at: 5 });
  assert.equal(readRef(dir, 'http|https://x|demo|2.x'), undefined);
  for (const f of fs.readdirSync(path.join(dir, 'refs'))) fs.writeFileSync(path.join(dir, 'refs', f), '{"key":');
  assert.equal(readRef(dir, 'http|https://x|demo|1.x'), undefined);
});

test('the cache location and cap come from the user\'s environment', () => {
  assert.equal(defaultChartCache({ HOME: '/home/u' }), '/home/u/.cache/gitops-preview/charts');
  assert.equal(defaultChartCache({ HOME: '/home/u', GITOPS_PREVIEW_CACHE: '/ci/cache' }), '/ci/cache/charts');
  assert.equal(chartCacheMaxBytes({}), 1024 * 2 ** 20);
  assert.equal(chartCacheMaxBytes({ GITOPS_PREVIEW_CHART_CACHE_MAX_MB: '5' }), 5 * 2 ** 20);
  assert.equal(chartCacheMaxBytes({ GITOPS_PREVIEW_CHART_CACHE_MAX_MB: 'lots' }), 1024 * 2 ** 20);
});
