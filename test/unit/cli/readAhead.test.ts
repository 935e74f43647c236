import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { readAhead, readAheadHost, readAheadRoot, READ_AHEAD_BUDGET } from '../../../src/cli/readAhead';
import { diskHost } from '../../../src/node/fsHost';
import type { WorkspaceHost } from '../../../src/core/workspace/host';
import { Workspace } from '../../../src/core/workspace/workspace';

function repo(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gitops-readahead-')));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('clusters/prod/kustomization.yaml', 'resources:\n  - ../../apps\n');
  write('apps/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
  write('apps/README.md', '# not a manifest\n');
  write('apps/.sourceignore', 'ignored/\n');
  write('apps/ignored/x.yaml', 'a: 1\n');
  write('charts/c/Chart.yaml', 'name: c\n');
  write('charts/c/templates/t.yaml', '{{ .Values.x }}\n');
  write('.git/config.yaml', 'not: read\n');
  write('node_modules/m/x.yaml', 'not: read\n');
  fs.symlinkSync('/etc', path.join(root, 'apps/outside'));
  return root;
}

/** A host that counts what reaches the disk. */
function counting(): WorkspaceHost & { files: string[]; dirs: string[] } {
  const files: string[] = [];
  const dirs: string[] = [];
  return {
    ...diskHost,
    files,
    dirs,
    readFile(p, maxBytes) {
      files.push(p);
      return diskHost.readFile(p, maxBytes);
    },
    readDir(p) {
      dirs.push(p);
      return diskHost.readDir(p);
    },
  };
}

test('the read-ahead lists folders and reads manifests as the walk does, never into .git, node_modules, chart templates or links', () => {
  const root = repo();
  const got = readAhead(root);
  const rel = (p: string) => p.slice(root.length + 1);
  assert.deepEqual(got.files.map(([p]) => rel(p)).sort(), ['apps/.sourceignore', 'apps/cm.yaml', 'apps/ignored/x.yaml', 'charts/c/Chart.yaml', 'clusters/prod/kustomization.yaml']);
  assert.deepEqual(got.dirs.map(([p]) => rel(p) || '.').sort(), ['.', 'apps', 'apps/ignored', 'charts', 'charts/c', 'clusters', 'clusters/prod']);
  for (const [p, text, size] of got.files) {
    assert.equal(text, fs.readFileSync(p, 'utf8'));
    assert.equal(size, Buffer.byteLength(text));
  }
  // Bounded as a whole: files, bytes and time.
  assert.equal(readAhead(root, { ...READ_AHEAD_BUDGET, files: 2 }).files.length, 2);
  assert.equal(readAhead(root, { ...READ_AHEAD_BUDGET, ms: -1 }).files.length, 0);
  const small = readAhead(root, { ...READ_AHEAD_BUDGET, bytes: 60 });
  assert.ok(small.files.reduce((n, [, , size]) => n + size, 0) <= 60);
});

test('the walk takes each read-ahead answer once and gives the workspace the disk would give', () => {
  const root = repo();
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(readAhead(root));
  const disk = counting();
  const host = readAheadHost(disk, root, port2);
  const ahead = new Workspace(root, host);
  ahead.load();
  const plain = new Workspace(root, diskHost);
  plain.load();
  assert.deepEqual([...ahead.files.keys()].sort(), [...plain.files.keys()].sort());
  for (const [p, f] of plain.files) assert.equal(ahead.files.get(p)?.text, f.text);
  // Everything the walk read came from the read-ahead; a second read of a file goes to the disk.
  assert.deepEqual(disk.files, []);
  assert.deepEqual(disk.dirs, []);
  // The digest of each text it answered is known, for that text only.
  const cm = `${root}/apps/cm.yaml`;
  const text = ahead.files.get(cm)!.text;
  assert.equal(ahead.knownDigest(cm, text), createHash('sha256').update(text).digest('hex'));
  assert.equal(ahead.knownDigest(cm, `${text}# edited\n`), undefined);
  assert.equal(plain.knownDigest(cm, text), undefined);
  host.readFile(cm, 1 << 20);
  assert.deepEqual(disk.files, [cm]);
  port1.close();
});

test('a read-ahead of another folder, a late one, or none: the walk reads the disk', () => {
  const root = repo();
  const other = repo();
  // Another folder's: ignored.
  {
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(readAhead(other));
    const disk = counting();
    new Workspace(root, readAheadHost(disk, root, port2)).load();
    assert.ok(disk.files.length >= 4, String(disk.files.length));
    port1.close();
  }
  // None yet at the first read, then it comes: the reads after it are answered from it.
  {
    const { port1, port2 } = new MessageChannel();
    const disk = counting();
    const host = readAheadHost(disk, root, port2);
    assert.equal(typeof host.readFile(`${root}/apps/cm.yaml`, 1 << 20), 'string');
    assert.equal(disk.files.length, 1);
    port1.postMessage(readAhead(root));
    assert.equal(host.readFile(`${root}/clusters/prod/kustomization.yaml`, 1 << 20), 'resources:\n  - ../../apps\n');
    assert.equal(disk.files.length, 1);
    // Read ahead within 5 MB, asked within 10 bytes: the disk says it is too large.
    const read = host.readFile(`${root}/charts/c/Chart.yaml`, 3);
    assert.ok(typeof read === 'object' && read?.notRead === 'too-large', JSON.stringify(read));
    port1.close();
  }
});

test('the folder a command will open: its last argument naming a folder, else the current one; none for commands that open none', () => {
  const root = repo();
  assert.equal(readAheadRoot(['build', 'ks', 'apps', '-n', 'flux-system', root], '/'), root);
  assert.equal(readAheadRoot(['check'], root), root);
  assert.equal(readAheadRoot(['check', '--format', 'json', 'apps'], root), `${root}/apps`);
  assert.equal(readAheadRoot(['tree', 'no-such-folder'], root), root);
  // A flag's value is not the folder, even when a folder has its name; a value-less flag has none.
  assert.equal(readAheadRoot(['build', 'ks', 'x', '-n', 'apps'], root), root);
  assert.equal(readAheadRoot(['changes', '--base', 'apps', '--offline', 'charts'], root), `${root}/charts`);
  assert.equal(readAheadRoot(['check', '--format=json', 'apps'], root), `${root}/apps`);
  assert.equal(readAheadRoot(['reconcile', 'ks', 'apps'], root), undefined);
  assert.equal(readAheadRoot([], root), undefined);
  assert.equal(readAheadRoot(['check', '--help'], root), undefined);
});
