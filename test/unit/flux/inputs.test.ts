import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Workspace } from '../../../src/core/workspace/workspace';
import { memoryHost } from '../../../src/core/workspace/host';
import { workspaceView } from '../../../src/core/model/view';
import { missingInputs } from '../../../src/core/flux/inputs';

test('files a build reads but the workspace lacks are named with their kustomization entry', () => {
  const ws = new Workspace('/r', memoryHost('/r', {
    'app/kustomization.yaml': 'resources:\n  - base\n  - nodir\n',
    'app/base/kustomization.yaml': 'configMapGenerator:\n  - name: dash\n    files:\n      - dash.json\n      - present=present.yaml\n',
    'app/base/present.yaml': 'a: 1',
  }));
  ws.load();
  const missing = missingInputs(ws, workspaceView(ws), 'app');
  assert.deepEqual(
    missing.map((m) => `${m.file}|${m.field}|${m.entry}`),
    // Depth first: base is visited when its entry is met, before the next resource.
    ['/r/app/base/kustomization.yaml|configMapGenerator[0].files[0]|dash.json', '/r/app/kustomization.yaml|resources[1]|nodir'],
  );
});
