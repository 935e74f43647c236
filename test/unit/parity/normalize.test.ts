import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffBuilds, isIdentical, normalizeObject, parseStream, SECRET_VALUE_MARK } from '../../parity/normalize';
import { inlineSubstituteFrom } from '../../parity/harness';
import { classify } from '../../parity/classify';
import type { Entry } from '../../parity/harness';

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'apps' }, ...extra });

test('normalisation drops origin annotations, keeps Secret keys only and ignores order', () => {
  const flux = [
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, data: { b: 'Kipv', a: 'eA==' } },
    cm('a', { metadata: { name: 'a', namespace: 'apps', annotations: { 'config.kubernetes.io/origin': 'path: a.yaml\n' } }, data: { k: SECRET_VALUE_MARK } }),
  ];
  const ours = [cm('a', { data: { k: '***' } }), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'apps' }, data: { a: '***', b: '***' } }];
  const d = diffBuilds(flux, ours);
  assert.ok(isIdentical(d), JSON.stringify(d));
  assert.equal(d.orderDiffers, true);
  assert.deepEqual(normalizeObject(flux[1]).metadata, { name: 'a', namespace: 'apps' });
});

test('differences are reported per object and field', () => {
  const d = diffBuilds([cm('a', { data: { k: 'v' } }), cm('b')], [cm('a', { data: { k: '${X}' } }), cm('c')]);
  assert.deepEqual(d.onlyFlux, ['ConfigMap/apps/b']);
  assert.deepEqual(d.onlyOurs, ['ConfigMap/apps/c']);
  assert.deepEqual(d.changed, [{ key: 'ConfigMap/apps/a', fields: [{ path: '.data.k', flux: 'v', ours: '${X}' }] }]);
  const entry = { outcome: 'differ', diff: d, notes: [], inputSpecDiffers: false } as unknown as Entry;
  assert.deepEqual(classify(entry), ['object-set', 'substitution']);
});

test('substituteFrom is inlined in Flux precedence, Secret values as the mark, missing refs noted', () => {
  const ks = {
    spec: {
      postBuild: {
        substitute: { A: 'inline' },
        substituteFrom: [
          { kind: 'ConfigMap', name: 'one' },
          { kind: 'Secret', name: 'two' },
          { kind: 'ConfigMap', name: 'gone', optional: true },
        ],
      },
    },
  };
  const objects: Record<string, any> = {
    'ConfigMap/one': cm('one', { data: { A: 'cm', B: 'multi\nline', C: 'cm' } }),
    'Secret/two': { kind: 'Secret', metadata: { name: 'two' }, stringData: { C: 'secret' } },
  };
  const notes = inlineSubstituteFrom(ks, (kind, name) => (objects[`${kind}/${name}`] ? { obj: objects[`${kind}/${name}`], from: 'flux-build' } : undefined));
  assert.deepEqual(ks.spec.postBuild, { substitute: { A: 'inline', B: 'multiline', C: SECRET_VALUE_MARK } });
  assert.deepEqual(notes, ['substituteFrom ConfigMap/gone (optional) not found']);
});

test('a YAML stream with an invalid document is an error, not a silent empty build', () => {
  assert.equal(parseStream('---\na: 1\n---\nb: 2\n').length, 2);
  assert.throws(() => parseStream('a: [1\n'), /not valid YAML/);
});

test('an input difference is named per spec field; what remains on flux\'s input is a renderer cause', () => {
  const inputOnly = diffBuilds([cm('a', { data: { k: 'v' } })], [cm('a')]);
  const base = { outcome: 'differ', diff: inputOnly, notes: [], inputSpecDiffers: true, inputFields: ['spec.patches', 'spec.postBuild'] };
  // Given flux's input our renderer agrees: the input is the only cause.
  const explained = { ...base, givenInput: { outcome: 'identical', diff: diffBuilds([cm('a')], [cm('a')]) } } as unknown as Entry;
  assert.deepEqual(classify(explained), ['input-differs', 'input-differs:spec.patches', 'input-differs:spec.postBuild']);
  // It still differs on flux's input: that difference is named as for any other build.
  const rest = diffBuilds([cm('a', { data: { k: 'v' } })], [cm('a', { data: { k: 'w' } })]);
  const renderer = { ...base, givenInput: { outcome: 'differ', diff: rest } } as unknown as Entry;
  assert.deepEqual(classify(renderer), ['input-differs', 'input-differs:spec.patches', 'input-differs:spec.postBuild', 'unclassified:ConfigMap.data.k']);
  const failed = { ...base, givenInput: { outcome: 'only-flux', oursError: 'variable not set (strict mode): "X"' } } as unknown as Entry;
  assert.ok(classify(failed).includes('our-error:strict-substitution'));
  // The same input on both sides: the renderer's causes only.
  assert.deepEqual(classify({ ...base, inputSpecDiffers: false, inputFields: [] } as unknown as Entry), ['unclassified:ConfigMap.data']);
});
