import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { diskHost } from '../../../src/node/fsHost';

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-fshost-'));
}

test('a file is read whole whatever its size beside the read chunk, multi-byte characters across chunks included', () => {
  const dir = tmp();
  const chunk = 64 * 1024;
  // 'é' is two bytes: a text of them split at an odd byte crosses a character at the chunk's end.
  const texts = ['', 'a', 'x'.repeat(chunk - 1), 'x'.repeat(chunk), 'x'.repeat(chunk + 1), 'é'.repeat(chunk + 7), `${'y'.repeat(3 * chunk + 5)}\n`];
  texts.forEach((text, i) => {
    const file = path.join(dir, `${i}.yaml`);
    fs.writeFileSync(file, text);
    assert.equal(diskHost.readFile(file, 10 * chunk), text, `text ${i} (${Buffer.byteLength(text)} bytes)`);
  });
});

test('a file over the limit is not read, by its size or by what a read finds', () => {
  const dir = tmp();
  const file = path.join(dir, 'big.yaml');
  fs.writeFileSync(file, 'z'.repeat(5000));
  const read = diskHost.readFile(file, 4999);
  assert.equal(typeof read === 'object' && read.notRead, 'too-large');
  assert.equal(diskHost.readFile(file, 5000), 'z'.repeat(5000));
});

test('special files are not read and do not block: a FIFO, a folder', () => {
  const dir = tmp();
  const fifo = path.join(dir, 'pipe.yaml');
  execFileSync('mkfifo', [fifo]);
  const read = diskHost.readFile(fifo, 1024);
  assert.ok(typeof read === 'object' && read.notRead === 'unreadable' && /FIFO/.test(read.message), JSON.stringify(read));
  const folder = diskHost.readFile(dir, 1024);
  assert.ok(typeof folder === 'object' && folder.notRead === 'unreadable', JSON.stringify(folder));
  assert.equal(diskHost.readFile(path.join(dir, 'missing.yaml'), 1024), undefined);
});
