/**
 * A trusted folder's `.vscode/settings.json` must not choose the helm binary or the kubeconfig
 * (whose exec plugins run commands): both settings are the user's alone.
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

test('helmPath and kubeconfig are declared settable by the user only (machine scope), and restricted in untrusted workspaces', () => {
  for (const key of ['gitopsPreview.helmPath', 'gitopsPreview.kubeconfig']) {
    assert.equal(manifest.contributes.configuration.properties[key]?.scope, 'machine', key);
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
  }
});

test('only the user\'s value of a path setting is used: workspace and folder values are ignored', () => {
  const config = (values: Record<string, unknown>): InspectableConfiguration => ({
    inspect: <T>() => values as { globalValue?: T },
  });
  assert.equal(userPathSetting(config({ workspaceValue: './evil/helm', workspaceFolderValue: './evil/helm' }), 'helmPath'), undefined);
  assert.equal(userPathSetting(config({ globalValue: ' /usr/bin/helm ', workspaceValue: './evil/helm' }), 'helmPath'), '/usr/bin/helm');
  assert.equal(userPathSetting(config({ globalValue: 42 }), 'kubeconfig'), undefined);
});
