import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inventoryId, inventoryOf, parseInventoryId, staleEntries } from '../../../src/core/drift';

describe('inventory ids (cli-utils ObjMetadata)', () => {
  test('namespaced, cluster-scoped and RBAC names with colons', () => {
    assert.deepEqual(parseInventoryId('apps_web_apps_Deployment', 'v1'), { namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment', version: 'v1' });
    assert.deepEqual(parseInventoryId('_apps__Namespace'), { namespace: '', name: 'apps', group: '', kind: 'Namespace', version: '' });
    const rbac = parseInventoryId('_system__controller__foo_rbac.authorization.k8s.io_ClusterRole');
    assert.equal(rbac?.name, 'system:controller:foo');
    assert.equal(inventoryId(rbac!), '_system__controller__foo_rbac.authorization.k8s.io_ClusterRole');
    assert.equal(parseInventoryId('garbage'), undefined);
  });
  test('stale entries: inventory minus rendered, version ignored', () => {
    const inv = inventoryOf({
      status: { inventory: { entries: [{ id: 'default_a__ConfigMap', v: 'v1' }, { id: 'default_b__ConfigMap', v: 'v1' }, { id: 'bad' }] } },
    })!;
    assert.deepEqual(inv.malformed, ['bad']);
    const stale = staleEntries(inv.entries, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'default' }]);
    assert.deepEqual(stale.map((e) => e.name), ['b']);
    assert.equal(inventoryOf({ status: {} }), undefined);
  });
});
