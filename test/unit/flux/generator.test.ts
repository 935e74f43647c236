import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Workspace } from '../../../src/core/workspace/workspace';
import { memoryHost } from '../../../src/core/workspace/host';
import { workspaceView } from '../../../src/core/model/view';
import { fluxKustomization, generatedResources, isLocalRelativePath } from '../../../src/core/flux/generator';

function view(files: Record<string, string>) {
  const ws = new Workspace('/r', memoryHost('/r', files));
  ws.load();
  return workspaceView(ws);
}

test("Flux's generator lists yaml files in lexical order and sub-kustomizations as units", () => {
  const v = view({
    'app/b.yaml': 'kind: A',
    'app/a.yml': 'kind: A',
    'app/notes.txt': 'x',
    'app/nested/deep/c.yaml': 'kind: A',
    'app/overlay/kustomization.yaml': 'resources: [x.yaml]',
    'app/overlay/x.yaml': 'kind: A',
  });
  assert.deepEqual(generatedResources(v, 'app'), ['./a.yml', './b.yaml', './nested/deep/c.yaml', './overlay']);
});

const noFiles = { generated: () => [], exists: () => false };

test('an empty generated kustomization gets the _placeholder namespace', () => {
  const r = fluxKustomization({ spec: {}, ...noFiles });
  assert.ok(!('error' in r));
  assert.equal(r.action, 'created');
  assert.equal(r.config.namespace, '_placeholder');
  assert.equal(r.config.resources, undefined);
});

test('an existing kustomization without resources gets buildMetadata originAnnotations', () => {
  const r = fluxKustomization({ spec: {}, existing: { fileName: 'kustomization.yml', config: { components: ['../c'] } }, ...noFiles });
  assert.ok(!('error' in r));
  assert.equal(r.fileName, 'kustomization.yml');
  assert.deepEqual(r.config.buildMetadata, ['originAnnotations']);
});

test('spec fields are merged: namespace, prefix/suffix, patches appended, components appended', () => {
  const r = fluxKustomization({
    spec: {
      targetNamespace: 'team',
      namePrefix: 'p-',
      nameSuffix: '-s',
      patches: [{ patch: 'x', target: { kind: 'Deployment', name: 'web', extra: 1 } }],
      components: ['../comp'],
    },
    existing: { fileName: 'kustomization.yaml', config: { namespace: 'old', resources: ['a.yaml'], patches: [{ path: 'p.yaml' }], components: ['../first'] } },
    generated: () => assert.fail('must not generate when a kustomization exists'),
    exists: () => true,
  });
  assert.ok(!('error' in r));
  assert.equal(r.config.namespace, 'team');
  assert.equal(r.config.namePrefix, 'p-');
  assert.equal(r.config.nameSuffix, '-s');
  assert.deepEqual(r.config.patches, [{ path: 'p.yaml' }, { patch: 'x', target: { kind: 'Deployment', name: 'web' } }]);
  assert.deepEqual(r.config.components, ['../first', '../comp']);
});

test('images merge field-wise into an existing entry; newTag and digest change together', () => {
  const r = fluxKustomization({
    spec: { images: [{ name: 'nginx', digest: 'sha256:abc' }, { name: 'redis', newName: 'my/redis' }, { name: 'new', newTag: '1' }] },
    existing: { fileName: 'kustomization.yaml', config: { resources: ['a.yaml'], images: [{ name: 'nginx', newName: 'mirror/nginx', newTag: '1.0' }, { name: 'redis', newTag: '7' }] } },
    ...noFiles,
  });
  assert.ok(!('error' in r));
  assert.deepEqual(r.config.images, [
    { name: 'nginx', newName: 'mirror/nginx', digest: 'sha256:abc' },
    { name: 'redis', newTag: '7', newName: 'my/redis' },
    { name: 'new', newTag: '1' },
  ]);
});

test('components must be local; missing ones are skipped only with ignoreMissingComponents', () => {
  const remote = fluxKustomization({ spec: { components: ['https://github.com/x/y'] }, ...noFiles });
  assert.ok('error' in remote && /must be local and relative/.test(remote.error));
  const skipped = fluxKustomization({ spec: { components: ['../gone'], ignoreMissingComponents: true }, existing: { fileName: 'kustomization.yaml', config: { resources: ['a'] } }, ...noFiles });
  assert.ok(!('error' in skipped));
  assert.deepEqual(skipped.config.components, []);
  assert.equal(isLocalRelativePath('/abs'), false);
  assert.equal(isLocalRelativePath('../ok'), true);
});
