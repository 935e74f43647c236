/**
 * A commit's workspace takes the working tree's parse of a file whose text is the same
 * (WorkspaceHost.parsed), so `changes` parses at the base only the files the change touched.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryHost } from '../../../src/core/workspace/host';
import { Workspace } from '../../../src/core/workspace/workspace';
import { parseSourceFile, type SourceFile } from '../../../src/core/yaml/document';

test('a file with the same text is the parse given; one that differs is parsed anew', () => {
  const root = '/repo';
  const same = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n';
  const working: Record<string, SourceFile> = {
    '/repo/same.yaml': parseSourceFile('/repo/same.yaml', same),
    '/repo/edited.yaml': parseSourceFile('/repo/edited.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n'),
  };
  const host = memoryHost(root, { 'same.yaml': same, 'edited.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: before\n' });
  const asked: string[] = [];
  host.parsed = (path, text) => {
    asked.push(path);
    const file = working[path];
    return file?.text === text ? file : undefined;
  };
  const ws = new Workspace(root, host);
  ws.load();
  assert.deepEqual(asked.sort(), ['/repo/edited.yaml', '/repo/same.yaml']);
  assert.equal(ws.files.get('/repo/same.yaml'), working['/repo/same.yaml']);
  const edited = ws.files.get('/repo/edited.yaml');
  assert.notEqual(edited, working['/repo/edited.yaml']);
  assert.equal((edited?.docs[0].value as { metadata: { name: string } }).metadata.name, 'before');
});
