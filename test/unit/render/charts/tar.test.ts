/**
 * The in-memory chart unpacker (src/render/charts/tar.ts): a real packaged chart reads whole; a
 * package that would write outside the chart folder, holds a link, or passes the caps is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readTarGz } from '../../../../src/render/charts/tar';
import { paxPath, tgz } from './tarBuilder';

const sharedCharts = path.resolve(__dirname, '../../../../../shared/charts/repo');

test('a chart packaged by helm reads whole, subcharts included', () => {
  const r = readTarGz(fs.readFileSync(path.join(sharedCharts, 'app-template-4.1.1.tgz')));
  assert.ok(r.ok, r.ok ? '' : r.error);
  const names = r.files.map((f) => f.path);
  assert.ok(names.includes('app-template/Chart.yaml'));
  assert.ok(names.includes('app-template/charts/common/Chart.yaml'), 'the vendored library chart');
  assert.match(r.files.find((f) => f.path === 'app-template/Chart.yaml')!.data.toString(), /name: app-template/);
});

test('long names through PAX headers, folders and ./ prefixes are read as relative paths', () => {
  const long = `chart/${'d/'.repeat(70)}values.yaml`;
  const r = readTarGz(tgz([{ name: './chart/', type: '5' }, { name: './chart/Chart.yaml', data: 'name: chart\n' }, paxPath(long), { name: 'ignored', data: 'a: 1\n' }]));
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.deepEqual(r.files.map((f) => f.path), ['chart/Chart.yaml', long]);
});

test('paths leaving the chart folder, links and devices refuse the whole package', () => {
  const refused: [string, Parameters<typeof tgz>[0], RegExp][] = [
    ['dot-dot', [{ name: 'chart/../../etc/cron.d/x', data: 'x' }], /leaves the chart folder/],
    ['absolute', [{ name: '/etc/passwd', data: 'x' }], /leaves the chart folder/],
    ['pax dot-dot', [paxPath('../outside'), { name: 'chart/ok', data: 'x' }], /'\.\.\/outside' leaves the chart folder/],
    ['symlink', [{ name: 'chart/values.yaml', type: '2', linkname: '/etc/passwd' }], /is a link/],
    ['hard link', [{ name: 'chart/values.yaml', type: '1', linkname: 'chart/Chart.yaml' }], /is a link/],
    ['device', [{ name: 'chart/dev', type: '3' }], /not a regular file or folder/],
    ['fifo', [{ name: 'chart/fifo', type: '6' }], /not a regular file or folder/],
  ];
  for (const [what, entries, message] of refused) {
    const r = readTarGz(tgz([{ name: 'chart/Chart.yaml', data: 'name: chart\n' }, ...entries]));
    assert.ok(!r.ok, `${what} was accepted`);
    assert.match(r.error, message, what);
  }
});

test('the entry count and the unpacked size are capped, a gzip bomb included', () => {
  const many = Array.from({ length: 11 }, (_, i) => ({ name: `chart/f${i}`, data: 'x' }));
  const count = readTarGz(tgz(many), { maxEntries: 10, maxBytes: 1 << 20 });
  assert.ok(!count.ok && /more than 10 entries/.test(count.error), JSON.stringify(count));
  const big = readTarGz(tgz([{ name: 'chart/a', data: Buffer.alloc(600) }, { name: 'chart/b', data: Buffer.alloc(600) }]), { maxEntries: 10, maxBytes: 1000 });
  assert.ok(!big.ok && /more than 1000 bytes/.test(big.error), JSON.stringify(big));
  // 64 MB of zeros gzip to about 64 KB: refused without being inflated whole.
  const bomb = readTarGz(gzipSync(Buffer.alloc(64 * 2 ** 20)), { maxEntries: 10, maxBytes: 2 ** 20 });
  assert.ok(!bomb.ok && /unpacks to more than/.test(bomb.error), JSON.stringify(bomb));
  const notGzip = readTarGz(Buffer.from('<html>not found</html>'));
  assert.ok(!notGzip.ok && /not gzip data/.test(notGzip.error));
});
