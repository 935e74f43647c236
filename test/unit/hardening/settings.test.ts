/**
 * A trusted folder's `.vscode/settings.json` must not choose the kubeconfig (whose exec plugins
 * run commands): the setting is the user's alone. No setting names a binary any more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { userPathSetting, type InspectableConfiguration } from '../../../src/extension/userSetting';

const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
};

test('kubeconfig is declared settable by the user only (machine scope), and restricted in untrusted workspaces; no helm binary setting is left', () => {
  const key = 'gitopsPreview.kubeconfig';
  assert.equal(manifest.contributes.configuration.properties[key]?.scope, 'machine', key);
  assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
  assert.equal(manifest.contributes.configuration.properties['gitopsPreview.helmPath'], undefined);
});

test('only the user\'s value of a path setting is used: workspace and folder values are ignored', () => {
  const config = (values: Record<string, unknown>): InspectableConfiguration => ({
    inspect: <T>() => values as { globalValue?: T },
  });
  assert.equal(userPathSetting(config({ workspaceValue: './evil/kubeconfig', workspaceFolderValue: './evil/kubeconfig' }), 'kubeconfig'), undefined);
  assert.equal(userPathSetting(config({ globalValue: ' /home/u/.kube/config ', workspaceValue: './evil/kubeconfig' }), 'kubeconfig'), '/home/u/.kube/config');
  assert.equal(userPathSetting(config({ globalValue: 42 }), 'kubeconfig'), undefined);
});
