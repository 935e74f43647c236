import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clampVirtual, normalizeVirtual } from '../../../src/core/model/view';

test('normalizeVirtual: a normal path is itself; every other is resolved segment by segment, undefined past the root', () => {
  assert.equal(normalizeVirtual('apps/base/podinfo'), 'apps/base/podinfo');
  assert.equal(normalizeVirtual('./apps//base/./x/../podinfo/'), 'apps/base/podinfo');
  assert.equal(normalizeVirtual('/.hidden/..x/...'), '.hidden/..x/...');
  assert.equal(normalizeVirtual('apps/../..'), undefined);
  assert.equal(normalizeVirtual('.'), '');
  // Against the rule itself, over short paths of every kind of segment and separator.
  const byRule = (path: string): string | undefined => {
    const out: string[] = [];
    for (const part of path.split('/')) {
      if (part === '' || part === '.') continue;
      if (part !== '..') out.push(part);
      else if (out.pop() === undefined) return undefined;
    }
    return out.join('/');
  };
  const parts = ['', '.', '..', '...', 'a', '.h', 'b.', '..x'];
  let checked = 0;
  for (const a of parts)
    for (const b of parts)
      for (const c of parts)
        for (const sep of ['/', '//']) {
          for (const p of [a + sep + b + sep + c, `/${a}${sep}${b}`, `${a}/${b}/`, sep + a]) {
            assert.equal(normalizeVirtual(p), byRule(p), JSON.stringify(p));
            checked++;
          }
        }
  assert.equal(checked, 4096);
  assert.equal(clampVirtual('../../a/./b'), 'a/b');
});
